// Two connected ByteStream ends in memory, for tests of code that moves bytes: what one end
// writes the other reads, with no socket. Knobs make the cases a socket makes hard to stage:
// reads split at a chosen size, and a connection that breaks after a given number of bytes.
// Both ends run on one executor (a test's io_context).
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <utility>

#include "transport/byte_stream.hpp"

namespace gridftp::transport {

struct MemoryStreamOptions {
  // This end's reads and writes each fail with `fail_with` once this many bytes went that way
  // (a write that crosses the limit delivers the bytes before it first).
  std::size_t fail_after_bytes = std::numeric_limits<std::size_t>::max();
  std::error_code fail_with = std::make_error_code(std::errc::connection_reset);
  // A read returns at most this many bytes.
  std::size_t max_read_bytes = std::numeric_limits<std::size_t>::max();
};

struct MemoryPipe;

class MemoryStream final : public ByteStream {
 public:
  MemoryStream(asio::any_io_executor executor, std::shared_ptr<MemoryPipe> in,
               std::shared_ptr<MemoryPipe> out, MemoryStreamOptions options);
  ~MemoryStream() override;

  asio::any_io_executor get_executor() override { return executor_; }
  awaitable<std::size_t> read_some(std::span<char> out, std::error_code& ec) override;
  awaitable<void> write_all(std::span<const char> bytes, std::error_code& ec,
                            bool more = false) override;
  // The peer reads what was written, then EndOfStream.
  awaitable<void> finish(std::error_code& ec) override;
  // Our pending read fails (operation_canceled), as later calls do; the peer reads what was
  // written, then EndOfStream (a socket's close sends a FIN), and its writes fail (broken_pipe).
  void close() override;
  // The peer finished or closed and every byte it wrote was read.
  bool peer_has_finished() override;

 private:
  asio::any_io_executor executor_;
  std::shared_ptr<MemoryPipe> in_;
  std::shared_ptr<MemoryPipe> out_;
  MemoryStreamOptions options_;
  std::size_t read_count_ = 0;
  std::size_t written_count_ = 0;
  bool closed_ = false;
};

std::pair<std::unique_ptr<MemoryStream>, std::unique_ptr<MemoryStream>> make_memory_stream_pair(
    const asio::any_io_executor& executor, MemoryStreamOptions first = {},
    MemoryStreamOptions second = {});

}  // namespace gridftp::transport
