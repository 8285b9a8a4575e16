#include "transport/deadline.hpp"

namespace gridftp::transport {

void Deadline::stop() {
  stopped_ = true;
  timer_.cancel();
}

void start_watch(const std::shared_ptr<Deadline>& deadline, std::function<void()> on_expiry) {
  asio::co_spawn(deadline->timer_.get_executor(), Deadline::watch(deadline, std::move(on_expiry)),
                 asio::detached);
}

awaitable<void> Deadline::watch(std::shared_ptr<Deadline> self, std::function<void()> on_expiry) {
  while (!self->stopped_) {
    if (self->expiry_ <= Clock::now()) {
      self->expired_ = true;
      on_expiry();
      co_return;
    }
    self->timer_.expires_at(self->expiry_);
    boost::system::error_code ec;
    co_await self->timer_.async_wait(asio::redirect_error(use_awaitable, ec));
  }
}

}  // namespace gridftp::transport
