// RunningTransfer: begin and end, an abort asked before or while a transfer runs, the closes of
// its connections, and the wake-up of a command waiting for it to end. One io_context stands
// in for the session strand, another for a data loop.
#include "server/session/running_transfer.hpp"

#include <catch2/catch.hpp>

namespace gridftp::server {
namespace {

// A connection that is only a descriptor on `io`: no peer is needed to see it closed.
DataStreamPtr open_stream(asio::io_context& io) {
  auto socket = std::make_shared<tcp::socket>(io);
  socket->open(tcp::v4());
  return std::make_shared<DataStream>(DataStream{socket, {}, socket->get_executor()});
}

// Spawns wait_until_done() on `io`; `woke` becomes true when it returns.
void spawn_waiter(asio::io_context& io, RunningTransfer& transfer, bool& woke) {
  asio::co_spawn(io, transfer.wait_until_done(),
                 [&woke](const std::exception_ptr&) { woke = true; });
}

TEST_CASE("RunningTransfer begins active with nothing moved and no abort asked",
          "[session][transfer]") {
  asio::io_context io;
  RunningTransfer transfer(io.get_executor());
  CHECK_FALSE(transfer.is_active());
  CHECK_FALSE(transfer.abort_requested());
  // An abort asked while nothing runs (an ABOR between transfers) does not stop the next one.
  transfer.request_abort();
  CHECK(transfer.abort_requested());
  transfer.progress().bytes = 42;
  transfer.begin();
  CHECK(transfer.is_active());
  CHECK_FALSE(transfer.abort_requested());
  CHECK(transfer.progress().bytes == 0);
  transfer.end();
  CHECK_FALSE(transfer.is_active());
}

TEST_CASE("An abort asked while a transfer runs closes its stream-mode connection",
          "[session][transfer]") {
  asio::io_context io;
  RunningTransfer transfer(io.get_executor());
  auto socket = std::make_shared<tcp::socket>(io);
  socket->open(tcp::v4());
  transfer.begin();
  transfer.hold_socket(socket);
  transfer.request_abort();
  CHECK(transfer.abort_requested());
  CHECK_FALSE(socket->is_open());
  CHECK(transfer.is_active());  // until the transfer itself ends, with its 426
}

TEST_CASE("An abort after the stream-mode connection was released leaves that socket alone",
          "[session][transfer]") {
  asio::io_context io;
  RunningTransfer transfer(io.get_executor());
  auto socket = std::make_shared<tcp::socket>(io);
  socket->open(tcp::v4());
  transfer.begin();
  transfer.hold_socket(socket);
  transfer.release_socket();
  transfer.request_abort();
  CHECK(transfer.abort_requested());
  CHECK(socket->is_open());
}

TEST_CASE("close_streams posts each close to the stream's executor and closes the listener",
          "[session][transfer][mode_e]") {
  asio::io_context session;
  asio::io_context data_loop;
  RunningTransfer transfer(session.get_executor());
  const auto first = open_stream(data_loop);
  const auto second = open_stream(data_loop);
  transfer.add_stream(first);
  transfer.add_stream(second);
  auto listener = std::make_shared<tcp::acceptor>(session);
  listener->open(tcp::v4());
  transfer.hold_listener(listener);

  transfer.close_streams();
  CHECK_FALSE(listener->is_open());  // the listener belongs to the session strand
  CHECK(first->socket->is_open());   // the streams' closes wait for their own loop
  CHECK(second->socket->is_open());
  session.poll();
  CHECK(first->socket->is_open());
  data_loop.poll();
  CHECK_FALSE(first->socket->is_open());
  CHECK_FALSE(second->socket->is_open());
  CHECK(transfer.streams().size() == 2);  // closed, not forgotten: the transfer notes them
  transfer.forget_streams();
  CHECK(transfer.streams().empty());
}

TEST_CASE("RunningTransfer hands its streams on and runs each on its socket's loop",
          "[session][transfer][mode_e]") {
  asio::io_context session;
  asio::io_context data_loop;
  RunningTransfer transfer(session.get_executor());
  const auto stream = open_stream(data_loop);
  transfer.use_streams({stream});
  CHECK(transfer.stream_executor(0) == asio::any_io_executor(data_loop.get_executor()));
  const auto taken = transfer.take_streams();
  REQUIRE(taken.size() == 1);
  CHECK(taken[0] == stream);
  CHECK(transfer.streams().empty());
  transfer.close_streams();  // nothing left to close: the taken stream stays open
  data_loop.poll();
  CHECK(stream->socket->is_open());
}

TEST_CASE("close_listener closes and forgets the receiver's listener", "[session][transfer]") {
  asio::io_context io;
  RunningTransfer transfer(io.get_executor());
  auto listener = std::make_shared<tcp::acceptor>(io);
  listener->open(tcp::v4());
  transfer.hold_listener(listener);
  CHECK(transfer.listener() == listener);
  transfer.close_listener();
  CHECK_FALSE(listener->is_open());
  CHECK(transfer.listener() == nullptr);
}

TEST_CASE("The end of a transfer wakes a command waiting for it", "[session][transfer]") {
  asio::io_context io;
  RunningTransfer transfer(io.get_executor());
  transfer.begin();
  bool woke = false;
  spawn_waiter(io, transfer, woke);
  io.poll();
  CHECK_FALSE(woke);
  transfer.request_abort();
  io.poll();
  CHECK_FALSE(woke);  // asked to stop, but the transfer has not ended yet
  transfer.end();
  io.poll();
  CHECK(woke);
}

TEST_CASE("Waiting when no transfer runs returns at once", "[session][transfer]") {
  asio::io_context io;
  RunningTransfer transfer(io.get_executor());
  bool woke = false;
  spawn_waiter(io, transfer, woke);
  io.poll();
  CHECK(woke);
  // And after a transfer that began and ended.
  transfer.begin();
  transfer.end();
  woke = false;
  io.restart();
  spawn_waiter(io, transfer, woke);
  io.poll();
  CHECK(woke);
}

}  // namespace
}  // namespace gridftp::server
