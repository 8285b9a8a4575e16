#include "server/data/stream_transfer.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "protocol/control/ascii_codec.hpp"
#include "protocol/core/errors.hpp"
#include "server/data/disk_writer.hpp"
#include "server/data/stall_watch.hpp"
#include "transport/aligned_buffer.hpp"
#include "transport/deadline.hpp"
#include "transport/error_conversion.hpp"
#include "transport/file_send.hpp"

namespace gridftp::server {
namespace {

namespace asio = transport::asio;

constexpr std::size_t kChunkBytes = 1 << 20;
constexpr std::size_t kSendfileChunkBytes = 16 << 20;

std::error_code errno_code() { return {errno, std::generic_category()}; }

// Whether fewer than half of a regular file's bytes are allocated. Holes read as the kernel's one
// zero page, which is in every core's cache, so the reason for a copying send to a peer on this
// host (transport/sendfile_use.hpp) does not hold there, and sendfile moved a sparse file at
// twice the copy's rate and more (bench/README.md, "Stream mode and the checksum's slice").
bool mostly_holes(int fd) {
  struct stat facts {};
  if (::fstat(fd, &facts) != 0 || !S_ISREG(facts.st_mode)) return false;
  return facts.st_blocks * 512 < facts.st_size / 2;
}

transport::awaitable<Result<void>> send_with_sendfile(tcp::socket& socket, int fd,
                                                      std::uint64_t offset, std::uint64_t length,
                                                      transport::Deadline& deadline,
                                                      std::chrono::seconds timeout,
                                                      TransferProgress& progress,
                                                      bool& unsupported) {
  std::uint64_t done = 0;
  while (done < length) {
    deadline.expires_after(timeout);
    const auto chunk =
        static_cast<std::size_t>(std::min<std::uint64_t>(length - done, kSendfileChunkBytes));
    boost::system::error_code ec;
    const auto sent = co_await transport::async_send_file(socket, fd, offset + done, chunk, ec);
    done += sent;
    progress.bytes += sent;
    if (ec && progress.bytes == 0 && transport::is_sendfile_unsupported(ec)) {
      unsupported = true;  // e.g. a file system without splice support: fall back to read/write
      co_return Result<void>{};
    }
    if (ec == asio::error::broken_pipe || ec == asio::error::connection_reset ||
        ec == asio::error::operation_aborted || ec == asio::error::bad_descriptor ||
        deadline.expired()) {
      co_return make_error(data_socket_error(ec, deadline));
    }
    if (ec) co_return make_error(transport::to_error_code(ec));
    if (sent < chunk) break;  // the file ended
  }
  co_return Result<void>{};
}

}  // namespace

transport::awaitable<Result<void>> write_all(transport::ByteStream& stream, const char* data,
                                             std::size_t size, transport::Deadline& deadline,
                                             std::chrono::seconds timeout,
                                             TransferProgress& progress, bool more) {
  deadline.expires_after(timeout);
  std::error_code ec;
  co_await stream.write_all({data, size}, ec, more);
  if (ec) co_return make_error(data_socket_error(ec, deadline));
  progress.bytes += size;
  co_return Result<void>{};
}

transport::awaitable<Result<void>> send_file(transport::ByteStream& stream, int fd,
                                             std::uint64_t offset, std::uint64_t length, bool ascii,
                                             transport::SendfileUse sendfile,
                                             std::chrono::seconds stall_timeout,
                                             TransferProgress& progress) {
  auto deadline = close_on_stall(stream, stall_timeout);
  auto* socket = stream.clear_socket();
  if (!ascii && socket != nullptr &&
      (transport::sendfile_wanted(sendfile, *socket) || mostly_holes(fd))) {
    bool unsupported = false;
    auto result = co_await send_with_sendfile(*socket, fd, offset, length, *deadline, stall_timeout,
                                              progress, unsupported);
    if (!unsupported) {
      deadline->stop();
      co_return result;
    }
  }
  // A clear connection that is not spliced goes (unless sendfile failed) to a peer on this host:
  // slices small enough that the bytes the read brought in are still in the core's cache when the
  // socket's copy takes them (transport/file_send.hpp). TLS transfers keep the larger buffer:
  // each pass seals the whole of it into records.
  transport::AlignedBuffer buffer(socket != nullptr ? transport::kClearSliceBytes : kChunkBytes);
  std::string converted;
  auto position = static_cast<off_t>(offset);
  std::uint64_t left = length;
  while (left > 0) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(left, buffer.size()));
    const auto got = ::pread(fd, buffer.data(), want, position);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      deadline->stop();
      co_return make_error(errno_code());
    }
    if (got == 0) break;
    position += got;
    left -= static_cast<std::uint64_t>(got);
    const char* data = buffer.data();
    auto size = static_cast<std::size_t>(got);
    if (ascii) {
      converted.clear();
      protocol::control::encode_network_ascii({buffer.data(), size}, converted);
      data = converted.data();
      size = converted.size();
    }
    // MSG_MORE between the slices of a clear connection: they leave in full segments instead
    // of one short push each (measured slower without it, bench/README.md).
    auto written = co_await write_all(stream, data, size, *deadline, stall_timeout, progress,
                                      socket != nullptr && left > 0);
    if (!written) {
      deadline->stop();
      co_return written;
    }
  }
  deadline->stop();
  co_return Result<void>{};
}

transport::awaitable<Result<void>> send_text(transport::ByteStream& stream, std::string text,
                                             std::chrono::seconds stall_timeout,
                                             TransferProgress& progress) {
  auto deadline = close_on_stall(stream, stall_timeout);
  auto result =
      co_await write_all(stream, text.data(), text.size(), *deadline, stall_timeout, progress);
  deadline->stop();
  co_return result;
}

transport::awaitable<Result<void>> receive_into(transport::ByteStream& stream,
                                                storage::Upload& upload, bool ascii,
                                                std::chrono::seconds stall_timeout,
                                                TransferProgress& progress) {
  auto deadline = close_on_stall(stream, stall_timeout);
  // Two buffers: one is written (on the writer's thread) while the other fills, and a
  // hand-off carries a megabyte, not one read (a TLS link's reads are a few records each).
  std::array<transport::AlignedBuffer, 2> buffers{transport::AlignedBuffer(kChunkBytes),
                                                  transport::AlignedBuffer(kChunkBytes)};
  std::array<std::string, 2> converted;
  std::size_t current = 0;
  DiskWriter writer;  // after the buffers: destroyed (joined) before them
  protocol::control::NetworkAsciiDecoder decoder;
  std::uint64_t file_offset = 0;
  Result<void> outcome;
  bool at_eof = false;
  while (outcome && !at_eof) {
    auto& buffer = buffers[current];
    std::size_t filled = 0;
    while (filled < buffer.size()) {
      deadline->expires_after(stall_timeout);
      std::error_code ec;
      const auto got = co_await stream.read_some(buffer.span().subspan(filled), ec);
      if (ec == transport::TransportErrc::EndOfStream) {
        at_eof = true;
        break;
      }
      if (ec) {
        outcome = make_error(data_socket_error(ec, *deadline));
        break;
      }
      filled += got;
    }
    // What was read so far is written even when the connection failed: a restart goes on
    // from there.
    if (auto written = co_await writer.finish(*deadline); !written) {
      outcome = make_error(written.error());
      break;
    }
    if (filled == 0) continue;
    std::span<const char> data(buffer.data(), filled);
    if (ascii) {
      converted[current].clear();
      decoder.decode(data, converted[current]);
      data = converted[current];
    }
    // Counted once on disk, on the writer's thread as soon as the write ends: a restart marker
    // never names bytes still in a buffer, and names these even when the sender stops after them
    // (counted at the next turn, they waited for a buffer that never filled).
    writer.start(stream.get_executor(), upload, file_offset, data,
                 [&progress, filled](std::uint64_t, std::size_t) { progress.bytes += filled; });
    file_offset += data.size();
    current ^= 1;
  }
  if (auto written = co_await writer.finish(*deadline); outcome && !written) outcome = written;
  if (outcome && ascii) {
    converted[0].clear();
    decoder.finish(converted[0]);
    outcome = co_await writer.write_at(upload, file_offset, converted[0], *deadline);
  }
  deadline->stop();
  co_return outcome;
}

}  // namespace gridftp::server
