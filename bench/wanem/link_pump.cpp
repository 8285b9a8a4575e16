#include "bench/wanem/link_pump.hpp"

#include <array>
#include <cerrno>

#include <poll.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

namespace gridftp::wanem {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;
// Packets due this close to now go out in the same wake-up: the writer sleeps, it does not
// spin, so a 2-core machine keeps its cycles for the programs under test.
constexpr Nanoseconds kSendEarly = 20'000;
constexpr int kPollMilliseconds = 100;  // how soon a reader notices stop()

void sleep_until(Nanoseconds when) {
  timespec at{};
  at.tv_sec = static_cast<time_t>(when / 1'000'000'000);
  at.tv_nsec = static_cast<long>(when % 1'000'000'000);
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) == EINTR) {
  }
}

}  // namespace

Nanoseconds monotonic_now() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<Nanoseconds>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

LinkPump::LinkPump(int from_fd, int to_fd, const LinkSettings& settings, std::size_t slots)
    : from_fd_(from_fd),
      to_fd_(to_fd),
      model_(settings),
      slots_(slots),
      buffers_(slots * kSlotBytes),
      deliver_at_(slots),
      lengths_(slots) {}

LinkPump::~LinkPump() { stop(); }

void LinkPump::start() {
  reader_ = std::thread([this] { read_loop(); });
  writer_ = std::thread([this] { write_loop(); });
}

void LinkPump::stop() {
  stopping_.store(true);
  wake_.fetch_add(1);
  wake_.notify_all();
  if (reader_.joinable()) reader_.join();
  if (writer_.joinable()) writer_.join();
}

PumpTotals LinkPump::totals() const {
  PumpTotals out;
  out.packets_in = totals_.packets_in.load(kRelaxed);
  out.bytes_in = totals_.bytes_in.load(kRelaxed);
  out.packets_out = totals_.packets_out.load(kRelaxed);
  out.bytes_out = totals_.bytes_out.load(kRelaxed);
  out.random_drops = totals_.random_drops.load(kRelaxed);
  out.queue_drops = totals_.queue_drops.load(kRelaxed);
  out.ring_drops = totals_.ring_drops.load(kRelaxed);
  out.write_errors = totals_.write_errors.load(kRelaxed);
  out.queue_delay = totals_.queue_delay.load(kRelaxed);
  return out;
}

void LinkPump::read_loop() {
  std::array<char, kSlotBytes> overflow{};
  pollfd watch{from_fd_, POLLIN, 0};
  while (!stopping_.load(kRelaxed)) {
    if (::poll(&watch, 1, kPollMilliseconds) <= 0) continue;
    const auto head = head_.load(kRelaxed);
    const bool ring_full = head - tail_.load(std::memory_order_acquire) == slots_;
    char* into = ring_full ? overflow.data() : slot_buffer(head);
    const auto got = ::read(from_fd_, into, kSlotBytes);
    if (got <= 0) continue;
    const auto now = monotonic_now();
    const auto deliver = model_.admit(now, static_cast<std::size_t>(got));
    const auto& counters = model_.counters();
    totals_.packets_in.store(counters.packets_in, kRelaxed);
    totals_.bytes_in.store(counters.bytes_in, kRelaxed);
    totals_.random_drops.store(counters.random_drops, kRelaxed);
    totals_.queue_drops.store(counters.queue_drops, kRelaxed);
    totals_.queue_delay.store(model_.queue_delay(now), kRelaxed);
    if (!deliver) continue;
    if (ring_full) {
      totals_.ring_drops.fetch_add(1, kRelaxed);
      continue;
    }
    const auto slot = head % slots_;
    deliver_at_[slot] = *deliver;
    lengths_[slot] = static_cast<std::uint32_t>(got);
    head_.store(head + 1, std::memory_order_release);
    wake_.fetch_add(1, std::memory_order_release);
    wake_.notify_one();
  }
}

void LinkPump::write_loop() {
  // Sleep to the nanosecond asked for, not to the default 50 µs slack.
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  while (!stopping_.load(kRelaxed)) {
    const auto seen = wake_.load(std::memory_order_acquire);
    const auto tail = tail_.load(kRelaxed);
    if (head_.load(std::memory_order_acquire) == tail) {
      wake_.wait(seen);
      continue;
    }
    const auto slot = tail % slots_;
    const auto due = deliver_at_[slot];
    if (due - monotonic_now() > kSendEarly) sleep_until(due - kSendEarly);
    const auto sent = ::write(to_fd_, slot_buffer(tail), lengths_[slot]);
    if (sent < 0) {
      totals_.write_errors.fetch_add(1, kRelaxed);
    } else {
      totals_.packets_out.fetch_add(1, kRelaxed);
      totals_.bytes_out.fetch_add(lengths_[slot], kRelaxed);
    }
    tail_.store(tail + 1, std::memory_order_release);
  }
}

}  // namespace gridftp::wanem
