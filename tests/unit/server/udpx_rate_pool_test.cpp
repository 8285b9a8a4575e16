// The server-wide UDPX cap's pool (server/data/udpx_rate_pool): the cap is divided evenly among
// the transfers running, a second mapping of the same page (a session process) counts with the
// first, and a slot left by a process that died is freed.
#include "server/data/udpx_rate_pool.hpp"

#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>

using gridftp::server::UdpxRatePool;

TEST_CASE("The UDPX rate pool divides its cap among the transfers running", "[udpx]") {
  auto pool = UdpxRatePool::create(80'000'000);
  REQUIRE(pool);
  REQUIRE((*pool)->running() == 0);
  auto first = UdpxRatePool::join(*pool);
  REQUIRE(first->bytes_per_second() == Approx(10e6));  // 80 Mb/s alone
  {
    // A second transfer in another process maps the same page through the handed descriptor.
    auto other = UdpxRatePool::attach(::dup((*pool)->fd()), 80'000'000);
    REQUIRE(other);
    auto second = UdpxRatePool::join(*other);
    REQUIRE((*pool)->running() == 2);
    REQUIRE(second->bytes_per_second() == Approx(5e6));
  }
  REQUIRE((*pool)->running() == 1);
}

TEST_CASE("A UDPX rate pool slot left by a dead process is freed", "[udpx]") {
  auto pool = UdpxRatePool::create(80'000'000);
  REQUIRE(pool);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Joins and dies without leaving: the slot keeps its pid.
    new UdpxRatePool::Share(*pool);
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  auto share = UdpxRatePool::join(*pool);
  REQUIRE((*pool)->running() == 1);  // the dead child's slot no longer counts
  REQUIRE(share->bytes_per_second() == Approx(10e6));
}
