#include "server/data/disk_writer.hpp"

#include <utility>

#include "protocol/core/errors.hpp"

namespace gridftp::server {
namespace {

transport::awaitable<Result<void>> write_here(storage::Upload* upload, std::uint64_t offset,
                                              std::span<const char> bytes,
                                              DiskWriter::WrittenHook written,
                                              std::shared_ptr<const void> /*hold*/) {
  auto outcome = upload->write_at(offset, bytes);
  if (outcome && written) written(offset, bytes.size());
  co_return outcome;
}

}  // namespace

transport::awaitable<Result<void>> DiskWriter::write_at(storage::Upload& upload,
                                                        std::uint64_t offset,
                                                        std::span<const char> bytes,
                                                        const transport::Deadline& watch) {
  start(co_await transport::asio::this_coro::executor, upload, offset, bytes);
  co_return co_await finish(watch);
}

void DiskWriter::start(const transport::asio::any_io_executor& owner, storage::Upload& upload,
                       std::uint64_t offset, std::span<const char> bytes, WrittenHook written,
                       std::shared_ptr<const void> hold) {
  if (!shared_thread_ && !thread_) thread_.emplace(1);
  auto& thread = shared_thread_ ? *shared_thread_ : *thread_;
  in_flight_.emplace(owner);
  in_flight_->spawn(thread.get_executor(),
                    write_here(&upload, offset, bytes, std::move(written), std::move(hold)));
}

transport::awaitable<Result<void>> DiskWriter::finish(const transport::Deadline& watch) {
  if (!in_flight_) co_return Result<void>{};
  auto written = co_await in_flight_->wait();
  in_flight_.reset();
  if (written && watch.expired()) co_return make_error(error_code_for(Condition::DiskStalled));
  co_return written;
}

}  // namespace gridftp::server
