// A UDPX transfer between two threads over loopback sockets (docs/UDPX.md §5): handshake, then
// file to file through the batched socket, the dedicated-thread runner and real time; junk sent to
// the receiver's port is dropped and counted without harm; a receiver whose sender never comes
// gives up after its idle timeout; each end tells its outcome before it stays on for its peer.
#include "transport/udpx/endpoint_runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <unistd.h>

#include "security/udpx/key_schedule.hpp"
#include "transport/udpx/file_blocks.hpp"

using namespace gridftp::transport;
using namespace gridftp::transport::udpx;
namespace crypto = gridftp::security::udpx;

namespace {

const udp::endpoint kLoopback(asio::ip::make_address("127.0.0.1"), 0);

struct TempFile {
  std::string path;
  int fd = -1;
  explicit TempFile(const std::vector<std::uint8_t>& contents) {
    char name[] = "/tmp/udpx-runner-XXXXXX";
    fd = ::mkstemp(name);
    REQUIRE(fd >= 0);
    path = name;
    REQUIRE(::write(fd, contents.data(), contents.size()) == static_cast<ssize_t>(contents.size()));
  }
  ~TempFile() {
    ::close(fd);
    std::remove(path.c_str());
  }
  std::vector<std::uint8_t> read_all() const {
    std::vector<std::uint8_t> out(static_cast<std::size_t>(::lseek(fd, 0, SEEK_END)));
    REQUIRE(::pread(fd, out.data(), out.size(), 0) == static_cast<ssize_t>(out.size()));
    return out;
  }
};

struct Keys {
  crypto::ConnectionSecrets secrets;
  Keys() {
    crypto::Secret secret{};
    secret.fill(7);
    std::array<std::uint8_t, 16> a{}, p{};
    a.fill(3);
    p.fill(4);
    auto derived = crypto::derive_connection_secrets(secret, a, p);
    REQUIRE(derived);
    secrets = *derived;
  }
  PacketPath path(Side side) const {
    auto made = PacketPath::create(secrets, side);
    REQUIRE(made);
    return std::move(*made);
  }
};

std::vector<std::uint8_t> random_bytes(std::size_t size) {
  std::mt19937_64 random(99);
  std::vector<std::uint8_t> out(size);
  for (auto& byte : out) byte = static_cast<std::uint8_t>(random());
  return out;
}

// Two sockets on loopback and both ends of a key exchange whose secret stands in for the control
// session's TLS exporter (keyed by `key`).
struct LoopbackEnds {
  explicit LoopbackEnds(std::uint8_t key)
      : exporter([key](const Random& random) -> gridftp::Result<crypto::Secret> {
          crypto::Secret secret{};
          secret.fill(key);
          return crypto::hkdf_extract(random, secret);
        }),
        sender_socket(DatagramSocket::open(io.get_executor(), kLoopback)),
        receiver_socket(DatagramSocket::open(io.get_executor(), kLoopback)),
        active(Handshake::active(exporter, {}, 1452)),
        passive(Handshake::passive(exporter, {})) {
    REQUIRE(sender_socket);
    REQUIRE(receiver_socket);
    REQUIRE(active);
  }
  asio::io_context io;
  SecretForRandom exporter;
  gridftp::Result<DatagramSocket> sender_socket;
  gridftp::Result<DatagramSocket> receiver_socket;
  gridftp::Result<Handshake> active;
  Handshake passive;
};

}  // namespace

TEST_CASE("A file crosses loopback through two UDPX endpoints", "[udpx][socket]") {
  const auto contents = random_bytes(24 << 20);
  TempFile source_file(contents);
  TempFile sink_file({});
  asio::io_context io;
  auto sender_socket = DatagramSocket::open(io.get_executor(), kLoopback);
  auto receiver_socket = DatagramSocket::open(io.get_executor(), kLoopback);
  REQUIRE(sender_socket);
  REQUIRE(receiver_socket);
  // The handshake first: the secret stands in for the control session's TLS exporter.
  const SecretForRandom exporter = [](const Random& random) -> gridftp::Result<crypto::Secret> {
    crypto::Secret key{};
    key.fill(5);
    return crypto::hkdf_extract(random, key);
  };
  auto active = Handshake::active(exporter, {}, 1452);
  REQUIRE(active);
  auto passive = Handshake::passive(exporter, {});
  FileBlockSource source(source_file.fd);
  FileBlockSink sink(sink_file.fd);

  // Junk at the receiver's port first: it must be dropped, not believed.
  auto stranger = DatagramSocket::open(io.get_executor(), kLoopback);
  REQUIRE(stranger);
  const auto junk = random_bytes(600);
  const std::vector<OutgoingDatagram> forged{{junk, receiver_socket->local_endpoint()}};
  REQUIRE(stranger->send_batch(forged));

  RunOutcome received;
  std::uint64_t junk_dropped = 0;
  std::thread receiving([&] {
    std::optional<udp::endpoint> peer;
    // No Catch assertions off the test's thread: record, check after join.
    const auto shook = run_handshake(*receiver_socket, passive, peer);
    junk_dropped = shook.dropped;
    if (!shook.completed) return;
    DataReceiver receiver(passive.path(), sink, 1, ReceiverSettings{});
    received = run_receiver(*receiver_socket, passive.path(), receiver, peer, {}, &passive);
  });
  std::optional<udp::endpoint> peer = receiver_socket->local_endpoint();
  REQUIRE(run_handshake(*sender_socket, *active, peer).completed);
  SenderSettings settings;
  settings.rate.target = 100e6;
  DataSender sender(active->path(), source, TransferShape{1, 0, contents.size(), 1404}, settings);
  const auto sent = run_sender(*sender_socket, active->path(), sender, peer);
  receiving.join();
  INFO("sender " << sent.elapsed << " us, retransmissions " << sender.stats().retransmissions);
  CHECK(sent.completed);
  CHECK(received.completed);
  CHECK(junk_dropped + received.dropped >= 1);
  CHECK(sink_file.read_all() == contents);
}

TEST_CASE("A UDPX receiver whose sender never comes gives up after its idle timeout",
          "[udpx][socket]") {
  const Keys keys;
  asio::io_context io;
  auto socket = DatagramSocket::open(io.get_executor(), kLoopback);
  REQUIRE(socket);
  auto path = keys.path(Side::Passive);
  TempFile sink_file({});
  FileBlockSink sink(sink_file.fd);
  DataReceiver receiver(path, sink, 1, ReceiverSettings{});
  RunLimits limits;
  limits.idle_timeout = 200'000;
  const auto outcome = run_receiver(*socket, path, receiver, std::nullopt, limits);
  CHECK_FALSE(outcome.completed);
  CHECK(outcome.code == gridftp::protocol::udpx::CloseCode::IdleTimeout);
}

TEST_CASE("A sender that dies mid-transfer leaves its receiver to time out with the data so far",
          "[udpx][socket]") {
  const auto contents = random_bytes(64 << 20);
  TempFile source_file(contents);
  TempFile sink_file({});
  LoopbackEnds ends(6);
  auto& sender_socket = ends.sender_socket;
  auto& receiver_socket = ends.receiver_socket;
  auto& active = ends.active;
  auto& passive = ends.passive;
  FileBlockSink sink(sink_file.fd);
  RunOutcome received;
  std::uint64_t written = 0;
  std::thread receiving([&] {
    std::optional<udp::endpoint> peer;
    if (!run_handshake(*receiver_socket, passive, peer).completed) return;
    DataReceiver receiver(passive.path(), sink, 1, ReceiverSettings{});
    RunLimits limits;
    limits.idle_timeout = 500'000;
    received = run_receiver(*receiver_socket, passive.path(), receiver, peer, limits, &passive);
    written = receiver.stats().bytes_written;
  });
  std::optional<udp::endpoint> peer = receiver_socket->local_endpoint();
  REQUIRE(run_handshake(*sender_socket, *active, peer).completed);
  FileBlockSource source(source_file.fd);
  SenderSettings settings;
  settings.rate.target = 20e6;  // slow enough to be cut off well before the end
  DataSender sender(active->path(), source, TransferShape{1, 0, contents.size(), 1404}, settings);
  // The sender "dies": its thread stops after 300 ms and never sends again.
  std::atomic<bool> stop{false};
  std::thread killer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
  });
  RunLimits sender_limits;
  sender_limits.stop = &stop;
  const auto sent = run_sender(*sender_socket, active->path(), sender, peer, sender_limits);
  killer.join();
  receiving.join();
  CHECK_FALSE(sent.completed);
  CHECK(sent.code == gridftp::protocol::udpx::CloseCode::Aborted);
  CHECK_FALSE(received.completed);
  CHECK(received.code == gridftp::protocol::udpx::CloseCode::IdleTimeout);
  // What arrived was written where it belongs, for a restart to keep.
  CHECK(written > 0);
  CHECK(written < contents.size());
  const auto partial = sink_file.read_all();
  CHECK(std::equal(partial.begin(), partial.begin() + 1404, contents.begin()));
}

namespace {

// Storage that takes `bytes_per_second` at most: each write waits its share of time.
class ThrottledSink final : public BlockSink {
 public:
  ThrottledSink(BlockSink& inner, double bytes_per_second)
      : inner_(inner), bytes_per_second_(bytes_per_second) {}
  gridftp::Result<void> write_at(std::uint64_t offset,
                                 std::span<const std::uint8_t> bytes) override {
    std::this_thread::sleep_for(
        std::chrono::duration<double>(static_cast<double>(bytes.size()) / bytes_per_second_));
    const auto now = std::chrono::steady_clock::now();
    if (last_ != std::chrono::steady_clock::time_point{}) {
      longest_gap_ = std::max(longest_gap_, now - last_);
    }
    last_ = now;
    return inner_.write_at(offset, bytes);
  }
  // The longest time between two writes: a stall of the transfer, as the storage saw it.
  std::chrono::steady_clock::duration longest_gap() const { return longest_gap_; }

 private:
  BlockSink& inner_;
  double bytes_per_second_;
  std::chrono::steady_clock::time_point last_{};
  std::chrono::steady_clock::duration longest_gap_{};
};

}  // namespace

TEST_CASE("A receiver with slow storage slows the sender instead of losing datagrams",
          "[udpx][socket]") {
  // 16 MB to storage that takes at most 20 MB/s, from a sender asked for 100 MB/s: without the
  // storage cap (docs/UDPX.md §2.4) the receive buffer overflows and the excess is lost and
  // sent again; with it, the sender paces at the storage's speed.
  const auto contents = random_bytes(16 << 20);
  TempFile source_file(contents);
  TempFile sink_file({});
  const Keys keys;
  asio::io_context io;
  auto sender_socket = DatagramSocket::open(io.get_executor(), kLoopback);
  auto receiver_socket = DatagramSocket::open(io.get_executor(), kLoopback);
  REQUIRE(sender_socket);
  REQUIRE(receiver_socket);
  auto sender_path = keys.path(Side::Active);
  auto receiver_path = keys.path(Side::Passive);
  FileBlockSource source(source_file.fd);
  FileBlockSink file_sink(sink_file.fd);
  ThrottledSink slow_sink(file_sink, 20e6);
  DataReceiver receiver(receiver_path, slow_sink, 1, ReceiverSettings{});
  RunOutcome received;
  std::thread receiving(
      [&] { received = run_receiver(*receiver_socket, receiver_path, receiver, std::nullopt); });
  SenderSettings settings;
  settings.rate.target = 100e6;
  DataSender sender(sender_path, source, TransferShape{1, 0, contents.size(), 1404}, settings);
  const auto sent =
      run_sender(*sender_socket, sender_path, sender, receiver_socket->local_endpoint());
  receiving.join();
  const auto stats = sender.stats();
  const double data_packets = static_cast<double>(stats.data_packets);
  INFO("retransmissions " << stats.retransmissions << " of " << stats.data_packets
                          << ", duplicates " << receiver.stats().duplicates
                          << ", lowest storage cap " << stats.lowest_storage_cap);
  REQUIRE(sent.completed);
  REQUIRE(received.completed);
  CHECK(sink_file.read_all() == contents);
  // The receiver asked for its storage's pace at some point; by the end storage may have caught
  // up and the cap been lifted, so the lowest cap asked for is what tells.
  CHECK(stats.lowest_storage_cap > 0);
  CHECK(stats.lowest_storage_cap < 30e6);
  // Receiving cost (duplicates) under 1 %. What is sent twice is what overflowed before the
  // first storage report reached the sender and the pace settled: 10-25 % here, where the same
  // transfer without the cap resends more than half of the file. The bound sits between the
  // two: on a 2-core machine running another suite beside this one (ctest -j 2 under ASan) the
  // capped transfer resent 37 % once, since the endpoints run on real threads.
  CHECK(static_cast<double>(receiver.stats().duplicates) < 0.01 * data_packets);
  CHECK(static_cast<double>(stats.retransmissions) < 0.45 * data_packets);
  // Reported, not asserted (no timings in tests): acceptance 3 of the UDPX issue wants no
  // stall over 1 s, which this figure shows on the machine that ran it.
  const double stall_ms =
      std::chrono::duration<double, std::milli>(slow_sink.longest_gap()).count();
  WARN("longest stall between storage writes: " << stall_ms << " ms");
}

TEST_CASE(
    "Each UDPX end tells its outcome once, as soon as it is known, and a stop after that "
    "keeps it",
    "[udpx][socket]") {
  const auto contents = random_bytes(2 << 20);
  TempFile source_file(contents);
  TempFile sink_file({});
  LoopbackEnds ends(8);
  FileBlockSink sink(sink_file.fd);
  // Each control side stops its end right after hearing the outcome, as gridcp does once the
  // server's reply has come: the end's stay for its peer is cut short, its outcome stands.
  std::atomic<bool> receiver_stop{false};
  int receiver_told = 0;
  RunOutcome receiver_heard;
  std::uint64_t written_when_told = 0;
  RunOutcome received;
  std::thread receiving([&] {
    std::optional<udp::endpoint> peer;
    if (!run_handshake(*ends.receiver_socket, ends.passive, peer).completed) return;
    DataReceiver receiver(ends.passive.path(), sink, 1, ReceiverSettings{});
    RunLimits limits;
    limits.stop = &receiver_stop;
    limits.on_settled = [&](const RunOutcome& outcome) {
      ++receiver_told;
      receiver_heard = outcome;
      written_when_told = receiver.stats().bytes_written;
      receiver_stop = true;
    };
    received = run_receiver(*ends.receiver_socket, ends.passive.path(), receiver, peer, limits,
                            &ends.passive);
  });
  std::optional<udp::endpoint> peer = ends.receiver_socket->local_endpoint();
  REQUIRE(run_handshake(*ends.sender_socket, *ends.active, peer).completed);
  FileBlockSource source(source_file.fd);
  DataSender sender(ends.active->path(), source, TransferShape{1, 0, contents.size(), 1404}, {});
  std::atomic<bool> sender_stop{false};
  int sender_told = 0;
  RunOutcome sender_heard;
  RunLimits sender_limits;
  sender_limits.stop = &sender_stop;
  sender_limits.on_settled = [&](const RunOutcome& outcome) {
    ++sender_told;
    sender_heard = outcome;
    sender_stop = true;
  };
  const auto sent =
      run_sender(*ends.sender_socket, ends.active->path(), sender, peer, sender_limits);
  receiving.join();
  CHECK(sender_told == 1);
  CHECK(receiver_told == 1);
  CHECK(sender_heard.completed);
  CHECK(receiver_heard.completed);
  // The receiver is told once every block is written, not later at the sender's CLOSE_ACK.
  CHECK(written_when_told == contents.size());
  CHECK(sent.completed);
  CHECK(sent.code == gridftp::protocol::udpx::CloseCode::Ok);
  CHECK(received.completed);
  CHECK(received.code == gridftp::protocol::udpx::CloseCode::Ok);
  CHECK(sink_file.read_all() == contents);
}
