#include "server/session/stream_cache.hpp"

#include <catch2/catch.hpp>

namespace gridftp::server {
namespace {

using Direction = StreamCache::Direction;

// A connection that is only a descriptor: no peer is needed to see it closed.
DataStreamPtr open_stream(asio::io_context& io) {
  auto socket = std::make_shared<tcp::socket>(io);
  socket->open(tcp::v4());
  return std::make_shared<DataStream>(DataStream{socket, {}, socket->get_executor()});
}

std::vector<DataStreamPtr> open_streams(asio::io_context& io, std::size_t count) {
  std::vector<DataStreamPtr> streams;
  for (std::size_t i = 0; i < count; ++i) streams.push_back(open_stream(io));
  return streams;
}

TEST_CASE("An empty StreamCache reuses nothing", "[session][mode_e]") {
  const StreamCache cache;
  CHECK(cache.is_empty());
  CHECK_FALSE(cache.can_reuse(true, true, false));
  CHECK_FALSE(cache.can_reuse(false, true, false));
}

TEST_CASE("StreamCache reuses connections only in MODE E, same direction, no new address",
          "[session][mode_e]") {
  struct Row {
    Direction cached;
    bool sending;
    bool mode_e;
    bool channel_configured;
    bool reusable;
  };
  const auto row = GENERATE(Row{Direction::Sending, true, true, false, true},
                            Row{Direction::Receiving, false, true, false, true},
                            Row{Direction::Sending, false, true, false, false},
                            Row{Direction::Receiving, true, true, false, false},
                            Row{Direction::Sending, true, false, false, false},
                            Row{Direction::Sending, true, true, true, false},
                            Row{Direction::Receiving, false, true, true, false},
                            Row{Direction::None, true, true, false, false},
                            Row{Direction::None, false, true, false, false});
  asio::io_context io;
  StreamCache cache;
  cache.keep(open_streams(io, 2), row.cached);
  CHECK(cache.can_reuse(row.sending, row.mode_e, row.channel_configured) == row.reusable);
}

TEST_CASE("StreamCache hands its connections over once", "[session][mode_e]") {
  asio::io_context io;
  StreamCache cache;
  const auto streams = open_streams(io, 3);
  cache.keep(streams, Direction::Sending);
  CHECK(cache.size() == 3);
  const auto taken = cache.take();
  CHECK(taken == streams);
  CHECK(cache.is_empty());
  CHECK_FALSE(cache.can_reuse(true, true, false));
  for (const auto& stream : taken) CHECK(stream->socket->is_open());  // the transfer's now
}

TEST_CASE("StreamCache closes what it drops", "[session][mode_e]") {
  asio::io_context io;
  StreamCache cache;
  const auto streams = open_streams(io, 2);
  cache.keep(streams, Direction::Receiving);
  cache.drop();
  CHECK(cache.is_empty());
  CHECK_FALSE(cache.can_reuse(false, true, false));
  for (const auto& stream : streams) CHECK_FALSE(stream->socket->is_open());
  cache.drop();  // dropping nothing is harmless (every PASV/PORT does it)
  CHECK(cache.is_empty());
}

TEST_CASE("StreamCache keeps the last transfer's connection count apart from the cache",
          "[session][mode_e]") {
  asio::io_context io;
  StreamCache cache;
  CHECK(cache.streams_used() == 0);
  cache.set_streams_used(4);
  cache.keep(open_streams(io, 1), Direction::Sending);
  cache.drop();
  CHECK(cache.streams_used() == 4);
}

}  // namespace
}  // namespace gridftp::server
