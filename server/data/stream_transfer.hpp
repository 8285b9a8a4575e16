// Stream-mode (MODE S) data movement over one connection: the sender's close marks EOF
// (RFC 959 §3.4.1). Each function takes the connection as a ByteStream (clear TCP, TLS after a
// DCAU or FTPS handshake, or memory in tests). Binary sends to a clear socket use sendfile(2),
// so file bytes never enter user space.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "protocol/core/result.hpp"
#include "server/storage/upload.hpp"
#include "transport/asio.hpp"
#include "transport/byte_stream.hpp"
#include "transport/deadline.hpp"
#include "transport/sendfile_use.hpp"

namespace gridftp::server {

using transport::tcp;

struct TransferProgress {
  std::atomic<std::uint64_t> bytes{
      0};  // moved so far (wire bytes for ASCII); MODE E streams add from their strands
};

// Writes `size` bytes to `stream` within `timeout` (re-arming `deadline`, the connection's
// stall watch) and counts them in `progress`; `more`: data follows at once (MSG_MORE). Errors:
// Condition::TransferAborted on a stall or a broken connection.
transport::awaitable<Result<void>> write_all(transport::ByteStream& stream, const char* data,
                                             std::size_t size, transport::Deadline& deadline,
                                             std::chrono::seconds timeout,
                                             TransferProgress& progress, bool more = false);

// Sends `fd` from `offset`, `length` bytes at most (to its end by default); `ascii` converts LF to
// CR LF. A clear connection sends with sendfile(2) where `sendfile` wants it for its peer, else
// through a buffer. Errors: errno from the file or socket; Condition::DataConnection on a stall
// past `stall_timeout`.
transport::awaitable<Result<void>> send_file(transport::ByteStream& stream, int fd,
                                             std::uint64_t offset, std::uint64_t length, bool ascii,
                                             transport::SendfileUse sendfile,
                                             std::chrono::seconds stall_timeout,
                                             TransferProgress& progress);
// Sends an in-memory listing.
transport::awaitable<Result<void>> send_text(transport::ByteStream& stream, std::string text,
                                             std::chrono::seconds stall_timeout,
                                             TransferProgress& progress);
// Receives until the peer closes, writing into `upload` off this thread (DiskWriter); `ascii`
// converts CR LF to LF. Errors: errno from the socket or the file; Condition::TransferAborted on a
// stall past `stall_timeout`, Condition::DiskStalled when a disk write outlasted it.
transport::awaitable<Result<void>> receive_into(transport::ByteStream& stream,
                                                storage::Upload& upload, bool ascii,
                                                std::chrono::seconds stall_timeout,
                                                TransferProgress& progress);

}  // namespace gridftp::server
