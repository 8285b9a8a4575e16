// Stream-mode (MODE S) data movement over one TCP connection: the sender's close marks EOF
// (RFC 959 §3.4.1). Binary sends use sendfile(2) so file bytes never enter user space.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "protocol/core/result.hpp"
#include "server/storage/upload.hpp"
#include "transport/asio.hpp"
#include "transport/data_link.hpp"
#include "transport/deadline.hpp"

namespace gridftp::server {

using transport::tcp;

struct TransferProgress {
  std::atomic<std::uint64_t> bytes{
      0};  // moved so far (wire bytes for ASCII); MODE E streams add from their strands
};

// Writes `size` bytes through `link` within `timeout` (re-arming `deadline`, the connection's
// stall watch) and counts them in `progress`. Errors: Condition::DataConnection on a stall, else
// the socket's.
transport::awaitable<Result<void>> write_all(tcp::socket& socket, transport::DataLink& link,
                                             const char* data, std::size_t size,
                                             transport::Deadline& deadline,
                                             std::chrono::seconds timeout,
                                             TransferProgress& progress);

// `link` is the connection's byte path: clear (sendfile allowed) or TLS after a DCAU handshake.
// Sends `fd` from `offset`, `length` bytes at most (to its end by default); `ascii` converts LF to
// CR LF. Errors: errno from the file or socket; Condition::DataConnection on a stall past
// `stall_timeout`.
transport::awaitable<Result<void>> send_file(tcp::socket& socket, transport::DataLink& link, int fd,
                                             std::uint64_t offset, std::uint64_t length, bool ascii,
                                             std::chrono::seconds stall_timeout,
                                             TransferProgress& progress);
// Sends an in-memory listing.
transport::awaitable<Result<void>> send_text(tcp::socket& socket, transport::DataLink& link,
                                             std::string text, std::chrono::seconds stall_timeout,
                                             TransferProgress& progress);
// Receives until the peer closes, writing into `upload` off this thread (DiskWriter); `ascii`
// converts CR LF to LF. Errors: errno from the socket or the file; Condition::TransferAborted on a
// stall past `stall_timeout`, Condition::DiskStalled when a disk write outlasted it.
transport::awaitable<Result<void>> receive_into(tcp::socket& socket, transport::DataLink& link,
                                                storage::Upload& upload, bool ascii,
                                                std::chrono::seconds stall_timeout,
                                                TransferProgress& progress);

}  // namespace gridftp::server
