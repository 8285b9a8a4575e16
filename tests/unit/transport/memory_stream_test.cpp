// The in-memory ByteStream pair that tests drive byte-moving code through (no socket).
#include "transport/memory_stream.hpp"

#include <string>

#include <catch2/catch.hpp>

#include "transport/error_conversion.hpp"

namespace gridftp::transport {
namespace {

// Reads until the end of the stream or an error; what arrived and the ending error.
awaitable<std::pair<std::string, std::error_code>> read_to_end(ByteStream& stream,
                                                               std::size_t chunk) {
  std::string got;
  std::string buffer(chunk, '\0');
  for (;;) {
    std::error_code ec;
    const auto n = co_await stream.read_some(buffer, ec);
    if (ec) co_return std::pair{got, ec};
    got.append(buffer.data(), n);
  }
}

template <typename Body>
void run(asio::io_context& io, Body body) {
  asio::co_spawn(io, body(), asio::detached);
  io.run();
}

}  // namespace

TEST_CASE("A memory stream delivers what the other end wrote, then its end", "[transport]") {
  asio::io_context io;
  auto [client, server] = make_memory_stream_pair(io.get_executor());
  std::pair<std::string, std::error_code> seen;
  run(io, [&, &client = client, &server = server]() -> awaitable<void> {
    std::error_code ec;
    co_await client->write_all(std::string_view("hello "), ec);
    CHECK_FALSE(ec);
    co_await client->write_all(std::string_view("world"), ec);
    co_await client->finish(ec);
    seen = co_await read_to_end(*server, 4);
  });
  CHECK(seen.first == "hello world");
  CHECK(seen.second == TransportErrc::EndOfStream);
}

TEST_CASE("A memory stream's reader waits for bytes written later", "[transport]") {
  asio::io_context io;
  auto [client, server] = make_memory_stream_pair(io.get_executor());
  std::pair<std::string, std::error_code> seen;
  asio::co_spawn(
      io, [&, &server = server]() -> awaitable<void> { seen = co_await read_to_end(*server, 64); },
      asio::detached);
  asio::co_spawn(
      io,
      [&, &client = client]() -> awaitable<void> {
        std::error_code ec;
        co_await client->write_all(std::string_view("late"), ec);
        co_await client->finish(ec);
      },
      asio::detached);
  io.run();
  CHECK(seen.first == "late");
  CHECK(seen.second == TransportErrc::EndOfStream);
}

TEST_CASE("A memory stream splits reads and breaks after the bytes asked", "[transport]") {
  asio::io_context io;
  MemoryStreamOptions reader;
  reader.max_read_bytes = 3;
  reader.fail_after_bytes = 7;
  auto [client, server] = make_memory_stream_pair(io.get_executor(), {}, reader);
  std::vector<std::size_t> sizes;
  std::error_code ending;
  run(io, [&, &client = client, &server = server]() -> awaitable<void> {
    std::error_code ec;
    co_await client->write_all(std::string_view("0123456789"), ec);
    std::string buffer(16, '\0');
    for (;;) {
      const auto n = co_await server->read_some(buffer, ec);
      if (ec) break;
      sizes.push_back(n);
    }
    ending = ec;
  });
  CHECK(sizes == std::vector<std::size_t>{3, 3, 1});
  CHECK(ending == std::errc::connection_reset);
}

TEST_CASE("A memory stream's write past its limit delivers the bytes before it, then fails",
          "[transport]") {
  asio::io_context io;
  MemoryStreamOptions writer;
  writer.fail_after_bytes = 4;
  auto [client, server] = make_memory_stream_pair(io.get_executor(), writer, {});
  std::error_code write_error;
  std::pair<std::string, std::error_code> seen;
  run(io, [&, &client = client, &server = server]() -> awaitable<void> {
    co_await client->write_all(std::string_view("abcdef"), write_error);
    client->close();
    seen = co_await read_to_end(*server, 16);
  });
  CHECK(write_error == std::errc::connection_reset);
  CHECK(seen.first == "abcd");
  CHECK(seen.second == TransportErrc::EndOfStream);
}

TEST_CASE("Closing a memory stream fails its pending read and the peer's writes", "[transport]") {
  asio::io_context io;
  auto [client, server] = make_memory_stream_pair(io.get_executor());
  std::error_code read_error;
  std::error_code write_error;
  asio::co_spawn(
      io,
      [&, &server = server]() -> awaitable<void> {
        std::string buffer(8, '\0');
        co_await server->read_some(buffer, read_error);
      },
      asio::detached);
  asio::co_spawn(
      io,
      [&, &client = client, &server = server]() -> awaitable<void> {
        server->close();  // the pending read above ends
        co_await client->write_all(std::string_view("x"), write_error);
      },
      asio::detached);
  io.run();
  CHECK(read_error == std::errc::operation_canceled);
  CHECK(write_error == std::errc::broken_pipe);
}

}  // namespace gridftp::transport
