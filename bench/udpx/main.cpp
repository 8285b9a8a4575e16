// udpx_pipe: one end of a UDPX file transfer over the project's engine (transport/udpx), with
// no control channel, for benchmarks through the WAN emulator (bench/udpx_wan_bench.py). Both
// ends are given the same session key in hex; it stands in for the control session's TLS
// exporter (the connection secret is HKDF-Extract(salt = R_a, IKM = key), as in the tests).
//   udpx_pipe receive --listen 10.77.0.2:7000 --file out --key HEX
//   udpx_pipe send --to 10.77.0.2:7000 --file in --key HEX [--rate-mbit 1000] [--clear]
//   udpx_pipe protection-cost [--mib 1024] [--body 1404]
// Prints one JSON object with what the end measured, and exits non-zero if the transfer failed.
// protection-cost needs no peer: it prints the CPU seconds per GB of file that sealing and
// opening every DATA packet costs alone (bench/udpx/protection_cost.hpp).
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/udpx/protection_cost.hpp"
#include "security/udpx/key_schedule.hpp"
#include "transport/udpx/endpoint_runner.hpp"
#include "transport/udpx/file_blocks.hpp"

namespace {

using namespace gridftp::transport;
using namespace gridftp::transport::udpx;
namespace crypto = gridftp::security::udpx;

bool parse_key(const std::string& hex, crypto::Secret& key) {
  if (hex.size() != 2 * key.size()) return false;
  for (std::size_t i = 0; i < key.size(); ++i) {
    key[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  }
  return true;
}

udp::endpoint parse_endpoint(const std::string& text) {
  const auto colon = text.rfind(':');
  return {asio::ip::make_address(text.substr(0, colon)),
          static_cast<unsigned short>(std::stoul(text.substr(colon + 1)))};
}

const char* code_name(gridftp::protocol::udpx::CloseCode code) {
  switch (code) {
    case gridftp::protocol::udpx::CloseCode::Ok:
      return "ok";
    case gridftp::protocol::udpx::CloseCode::Aborted:
      return "aborted";
    case gridftp::protocol::udpx::CloseCode::StorageError:
      return "storage error";
    case gridftp::protocol::udpx::CloseCode::IdleTimeout:
      return "idle timeout";
    default:
      return "protocol error";
  }
}

// One JSON object: seal and open CPU s/GB of file data, authenticated only and encrypted.
int print_protection_cost(std::uint64_t mib, std::size_t body_bytes) {
  const std::uint64_t bytes = mib << 20;
  const double gb = static_cast<double>(bytes) * 1e-9;
  const auto authenticated = gridftp::bench::measure_protection_cost(
      bytes, body_bytes, crypto::BodyProtection::AuthenticateOnly);
  const auto encrypted =
      gridftp::bench::measure_protection_cost(bytes, body_bytes, crypto::BodyProtection::Encrypt);
  if (!authenticated || !encrypted) {
    std::fprintf(stderr, "udpx_pipe: a sealed packet did not open\n");
    return 1;
  }
  std::printf(
      "{\"body_bytes\":%zu,\"authenticate\":{\"seal\":%.4f,\"open\":%.4f},"
      "\"encrypt\":{\"seal\":%.4f,\"open\":%.4f}}\n",
      body_bytes, authenticated->seal_seconds / gb, authenticated->open_seconds / gb,
      encrypted->seal_seconds / gb, encrypted->open_seconds / gb);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"one end of a UDPX file transfer, for benchmarks"};
  app.require_subcommand(1);
  std::string file;
  std::string key_hex;
  std::string address;
  double rate_mbit = 1000;
  bool clear = false;
  auto* send = app.add_subcommand("send", "send FILE to the receiver at --to");
  send->add_option("--to", address, "receiver address:port")->required();
  send->add_option("--rate-mbit", rate_mbit, "target rate, Mb/s of datagrams");
  send->add_flag("--clear", clear, "authenticate DATA only (PROT C/S), do not encrypt it");
  auto* receive = app.add_subcommand("receive", "receive into FILE at --listen");
  receive->add_option("--listen", address, "address:port to bind")->required();
  for (auto* command : {send, receive}) {
    command->add_option("--file", file)->required();
    command->add_option("--key", key_hex, "64 hex digits")->required();
  }
  std::uint64_t cost_mib = 1024;
  std::size_t cost_body = 1404;
  auto* cost = app.add_subcommand("protection-cost", "CPU of sealing and opening DATA alone");
  cost->add_option("--mib", cost_mib, "MiB of file data to seal and open");
  cost->add_option("--body", cost_body, "file bytes per packet")->check(CLI::Range(1, 65000));
  CLI11_PARSE(app, argc, argv);
  if (cost->parsed()) return print_protection_cost(cost_mib, cost_body);
  crypto::Secret key{};
  if (!parse_key(key_hex, key)) {
    std::fprintf(stderr, "udpx_pipe: --key wants 64 hex digits\n");
    return 2;
  }
  const SecretForRandom exporter = [key](const Random& random) {
    return crypto::hkdf_extract(random, key);
  };
  asio::io_context io;
  const bool sending = send->parsed();
  auto socket = DatagramSocket::open(
      io.get_executor(), sending ? udp::endpoint(udp::v4(), 0) : parse_endpoint(address));
  if (!socket) {
    std::fprintf(stderr, "udpx_pipe: socket: %s\n", socket.error().message().c_str());
    return 1;
  }
  const int fd = sending ? ::open(file.c_str(), O_RDONLY)
                         : ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    std::perror(file.c_str());
    return 1;
  }
  if (sending) {
    struct stat info {};
    ::fstat(fd, &info);
    auto handshake = Handshake::active(exporter, {}, 1452);
    if (!handshake) return 1;
    std::optional<udp::endpoint> peer = parse_endpoint(address);
    if (!run_handshake(*socket, *handshake, peer).completed) {
      std::fprintf(stderr, "udpx_pipe: no answer to HELLO\n");
      return 1;
    }
    FileBlockSource source(fd);
    SenderSettings settings;
    settings.rate.target = rate_mbit * 1e6 / 8;
    settings.data_protection =
        clear ? crypto::BodyProtection::AuthenticateOnly : crypto::BodyProtection::Encrypt;
    DataSender sender(handshake->path(), source,
                      TransferShape{1, 0, static_cast<std::uint64_t>(info.st_size), 1404},
                      settings);
    const Microseconds began = monotonic_now();
    const auto outcome = run_sender(*socket, handshake->path(), sender, peer);
    const auto& stats = sender.stats();
    // Seconds from the start of the data phase to each mark of the timeline (-1: never).
    const auto since_start = [&](Microseconds at) {
      return at < 0 ? -1.0 : static_cast<double>(at - began) * 1e-6;
    };
    std::printf(
        "{\"role\":\"send\",\"ok\":%s,\"code\":\"%s\",\"bytes\":%lld,\"seconds\":%.6f,"
        "\"data_packets\":%llu,\"retransmissions\":%llu,\"srtt_ms\":%.2f,\"rate_mbit\":%.1f,"
        "\"sending_since\":%.3f,\"startup_ended\":%.3f,\"last_new_block\":%.3f}\n",
        outcome.completed ? "true" : "false", code_name(outcome.code),
        static_cast<long long>(info.st_size), static_cast<double>(outcome.elapsed) * 1e-6,
        static_cast<unsigned long long>(stats.data_packets),
        static_cast<unsigned long long>(stats.retransmissions), stats.srtt * 1e3,
        stats.rate * 8 / 1e6, since_start(stats.sending_since), since_start(stats.startup_ended_at),
        since_start(stats.last_new_block_at));
    ::close(fd);
    return outcome.completed ? 0 : 1;
  }
  auto handshake = Handshake::passive(exporter, {});
  std::optional<udp::endpoint> peer;
  RunLimits limits;
  limits.idle_timeout = 60'000'000;
  if (!run_handshake(*socket, handshake, peer, limits).completed) return 1;
  FileBlockSink sink(fd);
  DataReceiver receiver(handshake.path(), sink, 1, ReceiverSettings{});
  const auto outcome = run_receiver(*socket, handshake.path(), receiver, peer, {}, &handshake);
  const auto& stats = receiver.stats();
  std::printf(
      "{\"role\":\"receive\",\"ok\":%s,\"code\":\"%s\",\"bytes\":%llu,\"seconds\":%.6f,"
      "\"data_packets\":%llu,\"duplicates\":%llu,\"naks\":%llu,\"host_drops\":%u}\n",
      outcome.completed ? "true" : "false", code_name(outcome.code),
      static_cast<unsigned long long>(stats.bytes_written),
      static_cast<double>(outcome.elapsed) * 1e-6,
      static_cast<unsigned long long>(stats.data_packets),
      static_cast<unsigned long long>(stats.duplicates),
      static_cast<unsigned long long>(stats.naks_sent), socket->overflow_drops());
  ::close(fd);
  return outcome.completed ? 0 : 1;
}
