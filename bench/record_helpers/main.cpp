// record_helpers_bench: how fast one TLS 1.3 record layer (security/tls13_record_layer) seals
// with 0..N record helpers (transport/worker_pool), while the other cores are idle or each runs
// a thread that only spins. It writes in 128 KiB pieces through a 256 KiB ring, as the MODE E
// sender does, and drops what it sealed instead of sending it, so the figure is sealing and
// hand-off alone (bench/README.md, "Sealing one stream on several cores").
//   record_helpers_bench [--helpers 0,1,3] [--spinners 1] [--gib 2]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <span>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "security/tls13_record_layer.hpp"
#include "transport/worker_pool.hpp"

namespace {

using gridftp::security::Tls13RecordLayer;
using gridftp::security::Tls13Suite;

// Seals `bytes` through one layer with `helpers` helpers; bytes per second, or a negative value
// when the layer failed.
double seal_rate(std::size_t helpers, std::uint64_t bytes) {
  constexpr std::size_t kPieceBytes = 128 * 1024;
  constexpr std::size_t kRingBytes = 256 * 1024;
  const std::vector<std::uint8_t> secret(32, 0x5a);
  gridftp::transport::WorkerPool pool(helpers);
  auto layer = Tls13RecordLayer::create(Tls13Suite::Aes128GcmSha256, secret, secret, kRingBytes);
  if (!layer) return -1;
  layer->use_workers(&pool);
  const std::vector<char> piece(kPieceBytes, 'x');
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t done = 0; done < bytes; done += piece.size()) {
    for (std::span<const char> rest(piece); !rest.empty();) {
      auto taken = layer->write(rest);
      if (!taken) return -1;
      if (*taken == 0) layer->consume_output(layer->pending_output().size());  // "sent"
      rest = rest.subspan(*taken);
    }
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return static_cast<double>(bytes) / elapsed.count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Sealing rate of one TLS 1.3 record layer with record helpers"};
  std::vector<std::size_t> helper_counts{0, 1};
  std::size_t spinners = 0;
  double gib = 2;
  app.add_option("--helpers", helper_counts, "helper counts to measure")->delimiter(',');
  app.add_option("--spinners", spinners, "threads that only spin, standing for other work");
  app.add_option("--gib", gib, "GiB sealed per measurement")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  std::atomic<bool> stop{false};
  std::vector<std::thread> spinning;
  for (std::size_t i = 0; i < spinners; ++i) {
    spinning.emplace_back([&stop] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  }
  const auto bytes = static_cast<std::uint64_t>(gib * (1ULL << 30U));
  int status = 0;
  for (const auto helpers : helper_counts) {
    const double rate = seal_rate(helpers, bytes);
    if (rate < 0) {
      std::fprintf(stderr, "sealing failed with %zu helpers\n", helpers);
      status = 1;
      continue;
    }
    std::printf("helpers %zu, spinning threads %zu, %u cores: %.2f GB/s\n", helpers, spinners,
                std::thread::hardware_concurrency(), rate / 1e9);
  }
  stop = true;
  for (auto& thread : spinning) thread.join();
  return status;
}
