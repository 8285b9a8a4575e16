#include "server/session/reply_writer.hpp"

#include <array>
#include <chrono>
#include <string>

#include <catch2/catch.hpp>

namespace gridftp::server {
namespace {

namespace asio = transport::asio;
using transport::tcp;

// A connected loopback pair: `server` is what the writer owns, `client` reads what it sent.
struct SocketPair {
  explicit SocketPair(asio::io_context& io) : server(io), client(io) {
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    client.connect(acceptor.local_endpoint());
    acceptor.accept(server);
  }
  tcp::socket server;
  tcp::socket client;
};

// The deadline only catches a hang; the drain ends long before it.
transport::awaitable<void> wait_then_mark(ReplyWriter* writer, bool* done) {
  co_await writer->wait_until_drained(std::chrono::seconds(30));
  *done = true;
}

// Reads until the peer closes; what the writer sent, in order.
std::string read_to_end(tcp::socket& socket) {
  std::string received;
  boost::system::error_code ec;
  std::array<char, 256> buffer{};
  while (!ec) {
    const auto got = socket.read_some(asio::buffer(buffer), ec);
    received.append(buffer.data(), got);
  }
  CHECK(ec == asio::error::eof);
  return received;
}

TEST_CASE("ReplyWriter sends replies in the order queued, then closes", "[session][control]") {
  asio::io_context io;
  SocketPair pair(io);
  ReplyWriter writer(pair.server);
  CHECK(writer.queue("150 Opening.\r\n"));
  CHECK(writer.queue("226 Transfer complete.\r\n"));
  CHECK(writer.close_after_drain());
  // Two drains started before either runs, as two sends in a row would: one writes, one returns.
  asio::co_spawn(io, writer.drain(), asio::detached);
  asio::co_spawn(io, writer.drain(), asio::detached);
  io.run();
  CHECK_FALSE(pair.server.is_open());
  CHECK(read_to_end(pair.client) == "150 Opening.\r\n226 Transfer complete.\r\n");
}

TEST_CASE("ReplyWriter waits for the queue to drain", "[session][control]") {
  asio::io_context io;
  SocketPair pair(io);
  ReplyWriter writer(pair.server);
  (void)writer.queue("221 Goodbye.\r\n");
  asio::co_spawn(io, writer.drain(), asio::detached);
  bool waited = false;
  asio::co_spawn(io, wait_then_mark(&writer, &waited), asio::detached);
  io.run();
  CHECK(waited);
  CHECK(pair.server.is_open());  // drained, not asked to close
  pair.server.close();
  CHECK(read_to_end(pair.client) == "221 Goodbye.\r\n");
}

TEST_CASE("ReplyWriter forgets replies it cannot write", "[session][control]") {
  asio::io_context io;
  tcp::socket closed(io);  // never opened: every write fails at once
  ReplyWriter writer(closed);
  (void)writer.queue("150 a\r\n");
  (void)writer.queue("226 b\r\n");
  asio::co_spawn(io, writer.drain(), asio::detached);
  io.run();
  io.restart();
  bool waited = false;
  asio::co_spawn(io, wait_then_mark(&writer, &waited), asio::detached);
  io.run();
  CHECK(waited);
  CHECK(writer.queue("221 c\r\n"));  // idle again: the next reply starts a new writer
}

}  // namespace
}  // namespace gridftp::server
