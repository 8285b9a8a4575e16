#include "server/session/reply_writer.hpp"

#include <array>
#include <chrono>
#include <string>

#include <catch2/catch.hpp>

#include "transport/error_conversion.hpp"
#include "transport/memory_stream.hpp"

namespace gridftp::server {
namespace {

namespace asio = transport::asio;

// The deadline only catches a hang; the drain ends long before it.
transport::awaitable<void> wait_then_mark(ReplyWriter* writer, bool* done) {
  co_await writer->wait_until_drained(std::chrono::seconds(30));
  *done = true;
}

// Reads until the writer's end finishes; what it sent, in order, and the error that ended it.
transport::awaitable<void> read_to_end(transport::ByteStream* stream, std::string* received,
                                       std::error_code* ended) {
  std::array<char, 256> buffer{};
  for (;;) {
    const auto got = co_await stream->read_some(buffer, *ended);
    if (*ended) co_return;
    received->append(buffer.data(), got);
  }
}

TEST_CASE("ReplyWriter sends replies in the order queued, then closes", "[session][control]") {
  asio::io_context io;
  auto [server, client] = transport::make_memory_stream_pair(io.get_executor());
  ReplyWriter writer(*server);
  CHECK(writer.queue("150 Opening.\r\n"));
  CHECK(writer.queue("226 Transfer complete.\r\n"));
  CHECK(writer.close_after_drain());
  // Two drains started before either runs, as two sends in a row would: one writes, one returns.
  asio::co_spawn(io, writer.drain(), asio::detached);
  asio::co_spawn(io, writer.drain(), asio::detached);
  std::string received;
  std::error_code ended;
  asio::co_spawn(io, read_to_end(client.get(), &received, &ended), asio::detached);
  io.run();
  CHECK(received == "150 Opening.\r\n226 Transfer complete.\r\n");
  CHECK(ended == transport::TransportErrc::EndOfStream);
}

TEST_CASE("ReplyWriter waits for the queue to drain", "[session][control]") {
  asio::io_context io;
  auto [server, client] = transport::make_memory_stream_pair(io.get_executor());
  ReplyWriter writer(*server);
  (void)writer.queue("221 Goodbye.\r\n");
  asio::co_spawn(io, writer.drain(), asio::detached);
  bool waited = false;
  asio::co_spawn(io, wait_then_mark(&writer, &waited), asio::detached);
  io.run();
  CHECK(waited);
  io.restart();
  // Drained, not asked to close: the peer reads the reply and then waits for more.
  server->close();
  std::string received;
  std::error_code ended;
  asio::co_spawn(io, read_to_end(client.get(), &received, &ended), asio::detached);
  io.run();
  CHECK(received == "221 Goodbye.\r\n");
}

TEST_CASE("ReplyWriter forgets replies it cannot write", "[session][control]") {
  asio::io_context io;
  // A stream that breaks at once: every write fails.
  auto [server, client] =
      transport::make_memory_stream_pair(io.get_executor(), {.fail_after_bytes = 0});
  ReplyWriter writer(*server);
  (void)writer.queue("150 a\r\n");
  (void)writer.queue("226 b\r\n");
  asio::co_spawn(io, writer.drain(), asio::detached);
  io.run();
  io.restart();
  bool waited = false;
  asio::co_spawn(io, wait_then_mark(&writer, &waited), asio::detached);
  io.run();
  CHECK(waited);
  CHECK(writer.backlog() == 0);
  CHECK(writer.queue("221 c\r\n"));  // idle again: the next reply starts a new writer
}

}  // namespace
}  // namespace gridftp::server
