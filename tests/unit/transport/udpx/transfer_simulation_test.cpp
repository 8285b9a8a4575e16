// A whole UDPX transfer between a DataSender and a DataReceiver, real packets sealed and opened
// by their PacketPaths, over a simulated path in virtual time (docs/UDPX.md §2-§4): a bottleneck
// that serialises packets at its rate behind a drop-tail queue, a one-way delay each way, and
// seeded random loss. The file must arrive byte for byte, both ends must finish, each lost data
// copy must be sent again once, and the delay-based rate must fill the bottleneck without
// filling its queue.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "security/udpx/key_schedule.hpp"
#include "transport/udpx/data_receiver.hpp"
#include "transport/udpx/data_sender.hpp"

using namespace gridftp::transport::udpx;
using gridftp::Result;
namespace wire = gridftp::protocol::udpx;
namespace crypto = gridftp::security::udpx;

namespace {

class MemorySource final : public BlockSource {
 public:
  explicit MemorySource(const std::vector<std::uint8_t>& bytes) : bytes_(bytes) {}
  Result<std::size_t> read_at(std::uint64_t offset, std::span<std::uint8_t> out) override {
    const auto available = bytes_.size() - std::min<std::size_t>(bytes_.size(), offset);
    const auto count = std::min(out.size(), available);
    std::copy_n(bytes_.begin() + static_cast<std::ptrdiff_t>(offset), count, out.begin());
    return count;
  }

 private:
  const std::vector<std::uint8_t>& bytes_;
};

class MemorySink final : public BlockSink {
 public:
  explicit MemorySink(std::size_t size) : bytes_(size) {}
  Result<void> write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) override {
    std::copy(bytes.begin(), bytes.end(), bytes_.begin() + static_cast<std::ptrdiff_t>(offset));
    return {};
  }
  std::vector<std::uint8_t> bytes_;
};

struct Path {
  double capacity = 12.5e6;       // bytes/s at the bottleneck (100 Mb/s)
  Microseconds one_way = 25'000;  // each way
  std::size_t queue_bytes = 1 << 20;
  double loss = 0;  // random, data direction
  double reverse_loss = 0;
  std::uint32_t seed = 1;
};

struct Result_ {
  bool sender_done = false;
  bool receiver_done = false;
  bool same_bytes = false;
  Microseconds elapsed = 0;
  std::uint64_t lost_data = 0;
  std::uint64_t queue_drops = 0;
  SenderStats sender;
  ReceiverStats receiver;
};

struct Datagram {
  Microseconds arrives;
  std::vector<std::uint8_t> bytes;
  bool to_receiver;
  bool operator>(const Datagram& other) const { return arrives > other.arrives; }
};

Result_ run_transfer(const Path& path, std::size_t file_bytes, double target_rate) {
  std::mt19937_64 random(path.seed);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<std::uint8_t> file(file_bytes);
  for (auto& byte : file) byte = static_cast<std::uint8_t>(random());

  crypto::Secret secret{};
  secret.fill(0x42);
  std::array<std::uint8_t, 16> random_active{}, random_passive{};
  random_active.fill(1);
  random_passive.fill(2);
  auto secrets = crypto::derive_connection_secrets(secret, random_active, random_passive);
  REQUIRE(secrets);
  auto sender_path = PacketPath::create(*secrets, Side::Active);
  auto receiver_path = PacketPath::create(*secrets, Side::Passive);
  REQUIRE(sender_path);
  REQUIRE(receiver_path);

  MemorySource source(file);
  MemorySink sink(file.size());
  const TransferShape shape{7, 0, file.size(), 1404};
  SenderSettings sender_settings;
  sender_settings.rate.target = target_rate;
  DataSender sender(*sender_path, source, shape, sender_settings);
  DataReceiver receiver(*receiver_path, sink, 7, ReceiverSettings{});

  std::priority_queue<Datagram, std::vector<Datagram>, std::greater<>> network;
  Microseconds bottleneck_free = 0;  // when the bottleneck finishes what it holds
  Result_ result;
  std::vector<std::uint8_t> buffer(1500);
  Microseconds now = 0;
  Microseconds last_trace = -1;
  const Microseconds limit = 600'000'000;
  while (now < limit && !(sender.state() == DataSender::State::Done &&
                          receiver.state() == DataReceiver::State::Done)) {
    while (!network.empty() && network.top().arrives <= now) {
      Datagram datagram = network.top();
      network.pop();
      auto& path_in = datagram.to_receiver ? *receiver_path : *sender_path;
      auto opened = path_in.open(datagram.bytes);
      REQUIRE(opened);  // nothing on this path forges or replays
      if (datagram.to_receiver) {
        receiver.on_packet(*opened, now);
      } else {
        sender.on_packet(*opened, now);
      }
    }
    for (int i = 0; i < 64; ++i) {  // the sender's datagrams go through the bottleneck
      auto length = sender.next_datagram(buffer, now);
      REQUIRE(length);
      if (*length == 0) break;
      const bool data = wire::decode_common_header(buffer)->type == wire::PacketType::Data;
      const Microseconds start = std::max(now, bottleneck_free);
      const double queued = static_cast<double>(start - now) * 1e-6 * path.capacity;
      if (queued > static_cast<double>(path.queue_bytes)) {
        ++result.queue_drops;
        if (data) ++result.lost_data;
        continue;
      }
      bottleneck_free =
          start + static_cast<Microseconds>(static_cast<double>(*length) / path.capacity * 1e6);
      if (uniform(random) < path.loss) {
        if (data) ++result.lost_data;
        continue;
      }
      network.push({bottleneck_free + path.one_way,
                    {buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(*length)},
                    true});
    }
    for (int i = 0; i < 64; ++i) {
      auto length = receiver.next_datagram(buffer, now);
      REQUIRE(length);
      if (*length == 0) break;
      if (uniform(random) < path.reverse_loss) continue;
      network.push({now + path.one_way,
                    {buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(*length)},
                    false});
    }
    if (std::getenv("UDPX_TRACE") && now / 50'000 != last_trace) {
      last_trace = now / 50'000;
      std::printf("t=%.2f rate=%.2f MB/s srtt=%.1f ms sent=%llu retx=%llu written=%llu\n",
                  static_cast<double>(now) * 1e-6, sender.stats().rate / 1e6,
                  sender.stats().srtt * 1e3, (unsigned long long)sender.stats().data_packets,
                  (unsigned long long)sender.stats().retransmissions,
                  (unsigned long long)receiver.stats().bytes_written);
    }
    Microseconds wake = std::min(sender.next_wakeup(now), receiver.next_wakeup(now));
    if (!network.empty()) wake = std::min(wake, network.top().arrives);
    now = std::max(wake, now + 1);
  }
  result.sender_done = sender.state() == DataSender::State::Done;
  result.receiver_done = receiver.state() == DataReceiver::State::Done;
  result.same_bytes = sink.bytes_ == file;
  result.elapsed = now;
  result.sender = sender.stats();
  result.receiver = receiver.stats();
  return result;
}

}  // namespace

TEST_CASE("A UDPX transfer over a clean path arrives whole and fills the bottleneck",
          "[udpx][transfer]") {
  const Path path;
  const std::size_t bytes = std::getenv("UDPX_MB") ? std::stoul(std::getenv("UDPX_MB")) << 20 : 60 << 20;
  const auto result = run_transfer(path, bytes, 4 * path.capacity);
  INFO("elapsed " << result.elapsed << " us, retransmissions " << result.sender.retransmissions
                  << ", queue drops " << result.queue_drops << ", rate " << result.sender.rate);
  REQUIRE(result.sender_done);
  REQUIRE(result.receiver_done);
  CHECK(result.same_bytes);
  CHECK(result.receiver.duplicates == 0);
  // Goodput over the whole transfer, startup included: at least 80 % of the bottleneck.
  const double goodput = static_cast<double>(bytes) / (static_cast<double>(result.elapsed) * 1e-6);
  CHECK(goodput > 0.8 * path.capacity);
}

TEST_CASE("A UDPX transfer over a lossy path retransmits each lost copy once", "[udpx][transfer]") {
  for (const double loss : {0.01, 0.05}) {
    Path path;
    path.loss = loss;
    path.reverse_loss = loss;
    const std::size_t bytes = 40 << 20;
    const auto result = run_transfer(path, bytes, 4 * path.capacity);
    INFO("loss " << loss << ": lost " << result.lost_data << ", retransmitted "
                 << result.sender.retransmissions << ", duplicates " << result.receiver.duplicates
                 << ", elapsed " << result.elapsed);
    REQUIRE(result.sender_done);
    REQUIRE(result.receiver_done);
    CHECK(result.same_bytes);
    CHECK(result.lost_data > 0);
    // Each loss repaired once; at most a handful more where an ACK or NAK was itself lost.
    CHECK(result.sender.retransmissions >= result.lost_data);
    CHECK(result.sender.retransmissions <= result.lost_data + result.lost_data / 50 + 5);
    // Random loss does not cut the rate: goodput stays near (1 - p) of the bottleneck.
    const double goodput =
        static_cast<double>(bytes) / (static_cast<double>(result.elapsed) * 1e-6);
    CHECK(goodput > 0.6 * (1 - loss) * path.capacity);
  }
}
