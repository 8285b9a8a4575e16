// The server-wide UDPX cap ([udpx] aggregate_rate_bps, docs/UDPX.md §8): each running UDPX
// transfer of this server gets an equal share of the cap, re-read as transfers start and end.
// The running transfers are slots in one shared page: a memfd the listener makes and each
// session process maps (it is handed over like the session socket), so sessions in separate
// processes see one another, and threads of one process share the same mapping. A slot holds
// its process's pid, so one left by a process that died mid-transfer is found and freed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "protocol/core/result.hpp"
#include "server/process/shared_page.hpp"
#include "transport/udpx/endpoint_runner.hpp"

namespace gridftp::server {

class UdpxRatePool {
 public:
  // A new pool of `aggregate_bps` bits/s. Errors: errno from memfd_create, ftruncate or mmap.
  static Result<std::shared_ptr<UdpxRatePool>> create(std::uint64_t aggregate_bps);
  // The pool whose page a parent handed over on `fd` (taken over: closed with the pool).
  static Result<std::shared_ptr<UdpxRatePool>> attach(int fd, std::uint64_t aggregate_bps);

  UdpxRatePool(const UdpxRatePool&) = delete;
  UdpxRatePool& operator=(const UdpxRatePool&) = delete;
  ~UdpxRatePool() = default;

  int fd() const { return shared_.fd(); }
  // Transfers running now, in every process; frees the slots of processes that are gone.
  std::uint32_t running() const;

  // One running transfer's place in the pool, for as long as it lives: its ceiling is the cap
  // divided among all transfers running now.
  class Share final : public transport::udpx::RateCeiling {
   public:
    explicit Share(std::shared_ptr<UdpxRatePool> pool);
    ~Share() override;
    Share(const Share&) = delete;
    Share& operator=(const Share&) = delete;
    double bytes_per_second() const override;  // polled each turn: recounts every 100 ms

   private:
    std::shared_ptr<UdpxRatePool> pool_;
    std::size_t slot_ = kSlots;  // kSlots: the page was full; counted as running anyway
    mutable double share_ = 0;
    mutable std::int64_t counted_at_ = -1;
  };
  static std::shared_ptr<Share> join(std::shared_ptr<UdpxRatePool> pool);

 private:
  static constexpr std::size_t kSlots = 512;
  struct Page {
    std::atomic<std::int32_t> pid[kSlots];  // 0: free
  };
  static_assert(std::atomic<std::int32_t>::is_always_lock_free,
                "slots are shared between processes");

  UdpxRatePool(SharedPage shared, std::uint64_t aggregate_bps)
      : shared_(std::move(shared)),
        page_(static_cast<Page*>(shared_.data())),
        aggregate_bytes_(static_cast<double>(aggregate_bps) / 8) {}

  SharedPage shared_;
  Page* page_;
  double aggregate_bytes_;
};

}  // namespace gridftp::server
