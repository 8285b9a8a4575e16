// Zero-copy sends of file ranges: sendfile(2) moves page-cache pages (or /dev/zero's) straight
// into the socket, so a clear data channel costs one kernel copy per byte instead of two (pread
// into user memory, then the socket's copy). MODE E headers go in front with MSG_MORE so header
// and payload leave in the same segments.
#pragma once

#include <cstdint>
#include <span>

#include "transport/asio.hpp"
#include "transport/sendfile_use.hpp"

namespace gridftp::transport {

// Whether a file sent on `socket` goes with sendfile under `use`.
bool sendfile_wanted(SendfileUse use, const tcp::socket& socket);

// A piece of a staged (copying) send: read this much, then send or seal it, so the bytes the
// read brought in are still in the core's cache (L2 is 512 KiB per core on the machines in
// bench/README.md) when the socket's copy or the cipher takes them.
// - A clear connection copies 256 KiB at a time: one send per MODE E block at the default block
//   size (Globus's -bs), which costs a receiver on this host fewer wake-ups and reads than two
//   128 KiB sends (bench/README.md, "One send per block").
// - A TLS connection seals 128 KiB at a time (bench/README.md, "Our own TLS 1.3 record layer").
inline constexpr std::size_t kClearSliceBytes = std::size_t{256} * 1024;
inline constexpr std::size_t kSealSliceBytes = std::size_t{128} * 1024;

// Sends `count` bytes of `fd` starting at `offset`. Returns the bytes sent: fewer than `count`
// with no error means the file ended early. Socket errors land in `ec`.
awaitable<std::size_t> async_send_file(tcp::socket& socket, int fd, std::uint64_t offset,
                                       std::size_t count, boost::system::error_code& ec);

// sendfile's way of saying this file (system) cannot be spliced: fall back to read and write.
bool is_sendfile_unsupported(const boost::system::error_code& ec);

// Sends all of `bytes`; `more` tells the kernel further data follows at once (MSG_MORE).
awaitable<void> async_send_all(tcp::socket& socket, std::span<const char> bytes, bool more,
                               boost::system::error_code& ec);

}  // namespace gridftp::transport
