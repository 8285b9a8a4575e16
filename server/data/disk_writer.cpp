#include "server/data/disk_writer.hpp"

#include "protocol/core/errors.hpp"

namespace gridftp::server {
namespace {

transport::awaitable<Result<void>> write_here(storage::Upload* upload, std::uint64_t offset,
                                              std::span<const char> bytes) {
  co_return upload->write_at(offset, bytes);
}

}  // namespace

transport::awaitable<Result<void>> DiskWriter::write_at(storage::Upload& upload,
                                                        std::uint64_t offset,
                                                        std::span<const char> bytes,
                                                        const transport::Deadline& watch) {
  if (!thread_) thread_.emplace(1);
  auto written = co_await transport::asio::co_spawn(*thread_, write_here(&upload, offset, bytes),
                                                    transport::use_awaitable);
  if (written && watch.expired()) co_return make_error(error_code_for(Condition::DiskStalled));
  co_return written;
}

}  // namespace gridftp::server
