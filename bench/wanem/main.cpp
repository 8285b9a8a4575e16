// wanem: a userspace WAN emulator for tests and benchmarks (this kernel has no netem). Joins two
// network namespaces through TUN devices and applies, per direction, a rate limit with a
// drop-tail queue, seeded random loss and a constant one-way delay (docs/WANEM.md).
//
//   wanem --rtt-ms 50 --loss 1 --rate-mbit 300 [--queue-kb N] [--seed S] [--stats file.csv]
//
// Prints "wanem ready" once both namespaces work, runs until SIGINT/SIGTERM, then prints each
// direction's totals and removes the namespaces it created.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>

#include <CLI/CLI.hpp>
#include <pthread.h>
#include <signal.h>

#include "bench/wanem/link_pump.hpp"
#include "bench/wanem/tun_pair.hpp"

namespace {

using gridftp::wanem::LinkPump;
using gridftp::wanem::LinkSettings;
using gridftp::wanem::PumpTotals;

struct Options {
  double rtt_ms = 50;
  double loss_percent = 0;
  double rate_mbit = 0;
  double queue_kb = 0;  // 0: one bandwidth-delay product, at least 64 KiB
  std::uint64_t seed = 1;
  int mtu = 1500;
  std::size_t slots = 65536;
  std::string stats_path;
  gridftp::wanem::EndpointSpec a{"wanemA", "tunA", "10.77.0.1"};
  gridftp::wanem::EndpointSpec b{"wanemB", "tunB", "10.77.0.2"};
};

LinkSettings direction_settings(const Options& options, std::uint64_t seed) {
  LinkSettings settings;
  settings.one_way_delay = static_cast<gridftp::wanem::Nanoseconds>(options.rtt_ms * 1e6 / 2);
  settings.rate_bits_per_second = static_cast<std::uint64_t>(options.rate_mbit * 1e6);
  settings.loss = options.loss_percent / 100.0;
  settings.seed = seed;
  const double bdp_bytes = options.rate_mbit * 1e6 / 8 * options.rtt_ms / 1000;
  const double queue_bytes =
      options.queue_kb > 0 ? options.queue_kb * 1024 : std::max(bdp_bytes, 64.0 * 1024);
  settings.queue_bytes = static_cast<std::size_t>(queue_bytes);
  return settings;
}

void print_totals(const char* direction, const PumpTotals& t) {
  std::printf(
      "%s packets_in=%llu bytes_in=%llu packets_out=%llu bytes_out=%llu random_drops=%llu "
      "queue_drops=%llu ring_drops=%llu write_errors=%llu\n",
      direction, static_cast<unsigned long long>(t.packets_in),
      static_cast<unsigned long long>(t.bytes_in), static_cast<unsigned long long>(t.packets_out),
      static_cast<unsigned long long>(t.bytes_out), static_cast<unsigned long long>(t.random_drops),
      static_cast<unsigned long long>(t.queue_drops), static_cast<unsigned long long>(t.ring_drops),
      static_cast<unsigned long long>(t.write_errors));
}

void write_stats_row(std::ofstream& out, const PumpTotals& t) {
  out << ',' << t.packets_in << ',' << t.bytes_in << ',' << t.packets_out << ',' << t.bytes_out
      << ',' << t.random_drops << ',' << t.queue_drops << ',' << t.ring_drops << ','
      << static_cast<double>(t.queue_delay) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app{"wanem: userspace WAN emulator between two network namespaces"};
  app.add_option("--rtt-ms", options.rtt_ms, "round-trip time added (half each way)")
      ->check(CLI::Range(0.0, 10000.0));
  app.add_option("--loss", options.loss_percent, "random loss per direction, percent")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--rate-mbit", options.rate_mbit, "bottleneck rate per direction (0: none)")
      ->check(CLI::Range(0.0, 100000.0));
  app.add_option("--queue-kb", options.queue_kb, "bottleneck queue (default: one BDP)");
  app.add_option("--seed", options.seed, "loss seed (the reverse direction uses seed+1)");
  app.add_option("--mtu", options.mtu, "TUN MTU")->check(CLI::Range(576, 1500));
  app.add_option("--stats", options.stats_path, "CSV of counters every 100 ms");
  app.add_option("--ns-a", options.a.netns, "namespace of end A");
  app.add_option("--ns-b", options.b.netns, "namespace of end B");
  app.add_option("--addr-a", options.a.address, "IPv4 address of end A");
  app.add_option("--addr-b", options.b.address, "IPv4 address of end B");
  // Several links may share one namespace (a client reaching many movers, each over its own
  // shaped link): each then needs its own device name there.
  app.add_option("--dev-a", options.a.device, "TUN device name of end A");
  app.add_option("--dev-b", options.b.device, "TUN device name of end B");
  CLI11_PARSE(app, argc, argv);

  // Signals wait for sigwait() in this thread; the pump threads inherit the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  try {
    gridftp::wanem::TunPair tuns(options.a, options.b, options.mtu);
    const auto forward = direction_settings(options, options.seed);
    const auto reverse = direction_settings(options, options.seed + 1);
    LinkPump a_to_b(tuns.fd_a(), tuns.fd_b(), forward, options.slots);
    LinkPump b_to_a(tuns.fd_b(), tuns.fd_a(), reverse, options.slots);
    a_to_b.start();
    b_to_a.start();

    std::atomic<bool> done{false};
    std::thread stats;
    if (!options.stats_path.empty()) {
      stats = std::thread([&] {
        std::ofstream out(options.stats_path);
        out << "seconds";
        for (const char* d : {"ab", "ba"})
          for (const char* f : {"packets_in", "bytes_in", "packets_out", "bytes_out",
                                "random_drops", "queue_drops", "ring_drops", "queue_ms"})
            out << ',' << d << '_' << f;
        out << '\n';
        const auto start = std::chrono::steady_clock::now();
        while (!done.load()) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
          const double seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          out << seconds;
          write_stats_row(out, a_to_b.totals());
          write_stats_row(out, b_to_a.totals());
          out << '\n' << std::flush;
        }
      });
    }
    std::printf(
        "wanem ready: %s(%s) <-> %s(%s) rtt_ms=%g loss_percent=%g rate_mbit=%g queue_bytes=%zu "
        "seed=%llu\n",
        options.a.netns.c_str(), options.a.address.c_str(), options.b.netns.c_str(),
        options.b.address.c_str(), options.rtt_ms, options.loss_percent, options.rate_mbit,
        forward.queue_bytes, static_cast<unsigned long long>(options.seed));
    std::fflush(stdout);

    int received = 0;
    sigwait(&stop_signals, &received);
    done.store(true);
    if (stats.joinable()) stats.join();
    a_to_b.stop();
    b_to_a.stop();
    print_totals("a_to_b", a_to_b.totals());
    print_totals("b_to_a", b_to_a.totals());
    std::fflush(stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wanem: %s\n", e.what());
    return 1;
  }
  return 0;
}
