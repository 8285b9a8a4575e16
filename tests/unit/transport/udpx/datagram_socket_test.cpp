// Batched UDP I/O over loopback (docs/UDPX.md §5): a batch of datagrams of different sizes
// arrives whole and in order with its source; datagrams laid back to back go down as segmented
// sends and arrive whole, split again where the kernel coalesced them; one segmented send arrives
// as separate datagrams of the segment size (with or without offload); a datagram larger than its
// slot is dropped and counted; a receive buffer left full shows the kernel's overflow count on the
// next datagram.
#include "transport/udpx/datagram_socket.hpp"

#include <numeric>
#include <vector>

#include <catch2/catch.hpp>
#include <poll.h>

using namespace gridftp::transport;
using namespace gridftp::transport::udpx;

namespace {
const udp::endpoint kLoopback(asio::ip::make_address("127.0.0.1"), 0);

DatagramSocket open_socket(asio::io_context& io, DatagramSocketOptions options = {}) {
  auto socket = DatagramSocket::open(io.get_executor(), kLoopback, options);
  REQUIRE(socket);
  return std::move(*socket);
}

std::vector<std::uint8_t> pattern(std::size_t bytes, std::uint8_t seed) {
  std::vector<std::uint8_t> out(bytes);
  for (std::size_t i = 0; i < bytes; ++i) {
    out[i] = static_cast<std::uint8_t>(seed + i * 7);
  }
  return out;
}

// Reads until `expected` datagrams came or the socket stays empty for a while.
std::vector<std::vector<std::uint8_t>> receive_all(DatagramSocket& socket, std::size_t expected,
                                                   std::size_t slot_bytes,
                                                   udp::endpoint* source = nullptr,
                                                   std::size_t* coalesced = nullptr) {
  std::vector<std::vector<std::uint8_t>> buffers(16, std::vector<std::uint8_t>(slot_bytes));
  std::vector<std::vector<std::uint8_t>> out;
  for (int idle = 0; out.size() < expected && idle < 50;) {
    std::vector<IncomingDatagram> slots;
    for (auto& buffer : buffers) {
      IncomingDatagram slot;
      slot.buffer = buffer;
      slots.push_back(slot);
    }
    auto got = socket.receive_batch(slots);
    REQUIRE(got);
    if (*got == 0) {
      ++idle;
      pollfd readable{socket.socket().native_handle(), POLLIN, 0};
      ::poll(&readable, 1, 10);
      continue;
    }
    for (std::size_t i = 0; i < *got; ++i) {
      slots[i].for_each_datagram([&](std::span<std::uint8_t> received) {
        out.emplace_back(received.begin(), received.end());
      });
      if (source) *source = slots[i].source;
      if (coalesced && slots[i].segment_bytes > 0) ++*coalesced;
    }
  }
  return out;
}
}  // namespace

TEST_CASE("A batch of datagrams arrives whole, in order, with its source", "[udpx][socket]") {
  asio::io_context io;
  auto sender = open_socket(io);
  auto receiver = open_socket(io);
  std::vector<std::vector<std::uint8_t>> payloads;
  for (std::size_t i = 0; i < 150; ++i) {  // more than one sendmmsg batch
    payloads.push_back(pattern(1 + (i * 97) % 1452, static_cast<std::uint8_t>(i)));
  }
  std::vector<OutgoingDatagram> batch;
  for (const auto& payload : payloads) batch.push_back({payload, receiver.local_endpoint()});
  auto sent = sender.send_batch(batch);
  REQUIRE(sent);
  REQUIRE(*sent == payloads.size());
  udp::endpoint source;
  const auto received = receive_all(receiver, payloads.size(), 2048, &source);
  CHECK(received == payloads);
  CHECK(source == sender.local_endpoint());
}

TEST_CASE(
    "Datagrams laid back to back go as segmented sends and arrive whole whether coalesced or not",
    "[udpx][socket]") {
  asio::io_context io;
  auto sender = open_socket(io);
  auto receiver = open_socket(io);
  const bool coalescing = receiver.coalesce_received();
  INFO("segmentation offload: " << sender.segmentation_offload() << ", GRO: " << coalescing);
  // Runs of one size with a shorter one ending each run, and one datagram out of line.
  std::vector<std::size_t> sizes(100, 1452);
  sizes.push_back(300);
  sizes.insert(sizes.end(), 49, 1000);
  std::vector<std::uint8_t> memory;
  std::vector<std::vector<std::uint8_t>> payloads;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    payloads.push_back(pattern(sizes[i], static_cast<std::uint8_t>(i)));
    memory.insert(memory.end(), payloads.back().begin(), payloads.back().end());
  }
  const auto apart = pattern(1452, 0xee);
  payloads.insert(payloads.begin() + 50, apart);
  std::vector<OutgoingDatagram> batch;
  std::size_t at = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (i == 50) batch.push_back({apart, receiver.local_endpoint()});
    batch.push_back({std::span(memory).subspan(at, sizes[i]), receiver.local_endpoint()});
    at += sizes[i];
  }
  auto sent = sender.send_batch(batch);
  REQUIRE(sent);
  REQUIRE(*sent == batch.size());
  std::size_t coalesced = 0;
  const auto received =
      receive_all(receiver, payloads.size(), kCoalescedSlotBytes, nullptr, &coalesced);
  CHECK(received == payloads);
  if (coalescing && sender.segmentation_offload()) CHECK(coalesced > 0);
}

TEST_CASE("One segmented send arrives as datagrams of the segment size", "[udpx][socket]") {
  asio::io_context io;
  auto sender = open_socket(io);
  auto receiver = open_socket(io);
  INFO("segmentation offload: " << sender.segmentation_offload());
  const std::size_t segment = 1452;
  const auto bytes = pattern(100 * segment + 300, 9);  // 101 datagrams, the last 300 bytes
  auto sent = sender.send_segments(bytes, segment, receiver.local_endpoint());
  REQUIRE(sent);
  CHECK(*sent == 101);
  const auto received = receive_all(receiver, 101, 2048);
  REQUIRE(received.size() == 101);
  std::vector<std::uint8_t> joined;
  for (std::size_t i = 0; i < received.size(); ++i) {
    CHECK(received[i].size() == (i < 100 ? segment : 300));
    joined.insert(joined.end(), received[i].begin(), received[i].end());
  }
  CHECK(joined == bytes);
}

TEST_CASE("A datagram larger than its slot is dropped and counted", "[udpx][socket]") {
  asio::io_context io;
  auto sender = open_socket(io);
  auto receiver = open_socket(io);
  const auto big = pattern(1400, 1);
  const auto small = pattern(100, 2);
  const std::vector<OutgoingDatagram> batch{{big, receiver.local_endpoint()},
                                            {small, receiver.local_endpoint()}};
  REQUIRE(sender.send_batch(batch));
  const auto received = receive_all(receiver, 1, 512);
  REQUIRE(received.size() == 1);
  CHECK(received[0] == small);
  CHECK(receiver.truncated() == 1);
}

TEST_CASE("Datagrams the kernel dropped for a full receive buffer are counted", "[udpx][socket]") {
  asio::io_context io;
  auto sender = open_socket(io);
  DatagramSocketOptions tiny;
  tiny.receive_buffer_bytes = 4096;  // the kernel doubles and floors it; far below 2,000 packets
  auto receiver = open_socket(io, tiny);
  const auto payload = pattern(1000, 3);
  std::vector<OutgoingDatagram> batch(2000, OutgoingDatagram{payload, receiver.local_endpoint()});
  auto sent = sender.send_batch(batch);
  REQUIRE(sent);
  REQUIRE(*sent > 100);
  const auto received = receive_all(receiver, *sent, 2048);
  REQUIRE(received.size() < *sent);
  // The kernel stamps its drop count on the next datagram it queues: one more, once drained.
  const std::vector<OutgoingDatagram> one{{payload, receiver.local_endpoint()}};
  REQUIRE(sender.send_batch(one));
  REQUIRE(receive_all(receiver, 1, 2048).size() == 1);
  CHECK(receiver.overflow_drops() == *sent - received.size());
}
