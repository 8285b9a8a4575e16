#include "transport/task_group.hpp"

#include "protocol/core/errors.hpp"

namespace gridftp::transport {

// Touched only on the owner's strand: completions are posted there.
struct TaskGroup::State {
  explicit State(const asio::any_io_executor& executor) : owner(executor), timer(executor) {
    timer.expires_at(asio::steady_timer::time_point::max());
  }
  asio::any_io_executor owner;
  asio::steady_timer timer;
  std::size_t remaining = 0;
  std::error_code first_error;
};

TaskGroup::TaskGroup(const asio::any_io_executor& owner) : state_(std::make_shared<State>(owner)) {}

void TaskGroup::spawn(const asio::any_io_executor& executor, awaitable<Result<void>> task) {
  ++state_->remaining;
  asio::co_spawn(executor, std::move(task),
                 [state = state_](const std::exception_ptr& failure, const Result<void>& result) {
                   std::error_code error = result ? std::error_code{} : result.error();
                   if (failure) error = error_code_for(Condition::LocalError);
                   asio::post(state->owner, [state, error] {
                     if (error && !state->first_error) state->first_error = error;
                     if (--state->remaining == 0) state->timer.cancel();
                   });
                 });
}

std::size_t TaskGroup::running() const { return state_->remaining; }

awaitable<Result<void>> TaskGroup::wait() {
  const auto state = state_;
  while (state->remaining > 0) {
    boost::system::error_code ignored;
    co_await state->timer.async_wait(asio::redirect_error(use_awaitable, ignored));
  }
  if (state->first_error) co_return make_error(state->first_error);
  co_return Result<void>{};
}

}  // namespace gridftp::transport
