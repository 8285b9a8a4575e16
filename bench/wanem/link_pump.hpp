// One direction of the emulated link at work: a reader thread takes IP packets from one TUN fd
// and asks the LinkModel their fate, a writer thread hands the survivors to the other TUN fd at
// their delivery time. Between them a fixed ring of packet slots: nothing is allocated per
// packet, and the constant delay keeps the ring in delivery order (docs/WANEM.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "bench/wanem/link_model.hpp"

namespace gridftp::wanem {

// What a direction has done so far; read by the stats thread while the pump runs.
struct PumpTotals {
  std::uint64_t packets_in = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t packets_out = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t random_drops = 0;
  std::uint64_t queue_drops = 0;
  std::uint64_t ring_drops = 0;  // the writer fell behind by a whole ring (emulator overload)
  std::uint64_t write_errors = 0;
  Nanoseconds queue_delay = 0;  // at the last packet in
};

Nanoseconds monotonic_now();

class LinkPump {
 public:
  LinkPump(int from_fd, int to_fd, const LinkSettings& settings, std::size_t slots);
  ~LinkPump();
  LinkPump(const LinkPump&) = delete;
  LinkPump& operator=(const LinkPump&) = delete;

  void start();
  void stop();  // joins both threads; packets still in flight are dropped
  PumpTotals totals() const;

 private:
  static constexpr std::size_t kSlotBytes = 2048;  // MTU 1500 plus room

  void read_loop();
  void write_loop();
  char* slot_buffer(std::uint64_t index) { return &buffers_[(index % slots_) * kSlotBytes]; }

  const int from_fd_;
  const int to_fd_;
  LinkModel model_;  // reader thread only
  const std::size_t slots_;
  std::vector<char> buffers_;
  std::vector<Nanoseconds> deliver_at_;
  std::vector<std::uint32_t> lengths_;
  std::atomic<std::uint64_t> head_{0};  // next slot the reader fills
  std::atomic<std::uint64_t> tail_{0};  // next slot the writer sends
  std::atomic<std::uint32_t> wake_{0};  // bumped on every push and on stop
  std::atomic<bool> stopping_{false};
  std::thread reader_;
  std::thread writer_;

  struct AtomicTotals {
    std::atomic<std::uint64_t> packets_in{0}, bytes_in{0}, packets_out{0}, bytes_out{0},
        random_drops{0}, queue_drops{0}, ring_drops{0}, write_errors{0};
    std::atomic<Nanoseconds> queue_delay{0};
  } totals_;
};

}  // namespace gridftp::wanem
