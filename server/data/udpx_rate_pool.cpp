#include "server/data/udpx_rate_pool.hpp"

#include <cerrno>
#include <chrono>
#include <system_error>

#include <signal.h>
#include <unistd.h>

namespace gridftp::server {
Result<std::shared_ptr<UdpxRatePool>> UdpxRatePool::create(std::uint64_t aggregate_bps) {
  auto shared = SharedPage::create("gridftpd-udpx-rate-pool", sizeof(Page));
  if (!shared) return make_error(shared.error());
  return std::shared_ptr<UdpxRatePool>(new UdpxRatePool(std::move(*shared), aggregate_bps));
}

Result<std::shared_ptr<UdpxRatePool>> UdpxRatePool::attach(int fd, std::uint64_t aggregate_bps) {
  auto shared = SharedPage::attach(fd, sizeof(Page));
  if (!shared) return make_error(shared.error());
  // A fresh page reads as zeros: every slot free.
  return std::shared_ptr<UdpxRatePool>(new UdpxRatePool(std::move(*shared), aggregate_bps));
}

std::shared_ptr<UdpxRatePool::Share> UdpxRatePool::join(std::shared_ptr<UdpxRatePool> pool) {
  return std::make_shared<Share>(std::move(pool));
}

std::uint32_t UdpxRatePool::running() const {
  std::uint32_t count = 0;
  for (auto& slot : page_->pid) {
    auto pid = slot.load(std::memory_order_relaxed);
    if (pid == 0) continue;
    // Another account's process answers EPERM: it exists. ESRCH: it died holding the slot.
    if (::kill(pid, 0) != 0 && errno == ESRCH) {
      slot.compare_exchange_strong(pid, 0, std::memory_order_relaxed);
      continue;
    }
    ++count;
  }
  return count;
}

UdpxRatePool::Share::Share(std::shared_ptr<UdpxRatePool> pool) : pool_(std::move(pool)) {
  const auto self = static_cast<std::int32_t>(::getpid());
  for (std::size_t i = 0; i < kSlots; ++i) {
    std::int32_t free = 0;
    if (pool_->page_->pid[i].compare_exchange_strong(free, self, std::memory_order_relaxed)) {
      slot_ = i;
      break;
    }
  }
}

UdpxRatePool::Share::~Share() {
  if (slot_ < kSlots) pool_->page_->pid[slot_].store(0, std::memory_order_relaxed);
}

double UdpxRatePool::Share::bytes_per_second() const {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now().time_since_epoch())
                       .count();
  if (counted_at_ < 0 || now - counted_at_ >= 100) {
    const auto running = pool_->running() + (slot_ < kSlots ? 0 : 1);
    share_ = pool_->aggregate_bytes_ / static_cast<double>(running == 0 ? 1 : running);
    counted_at_ = now;
  }
  return share_;
}

}  // namespace gridftp::server
