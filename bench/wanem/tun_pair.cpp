#include "bench/wanem/tun_pair.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gridftp::wanem {
namespace {

[[noreturn]] void fail(const std::string& step) {
  throw std::runtime_error(step + ": " + std::strerror(errno));
}

void run(const std::string& command) {
  // `ip` is the one tool that sets namespaces, addresses and routes up; its own message goes
  // to stderr, ours says which step it was.
  if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
}

bool netns_exists(const std::string& name) {
  struct stat info {};
  return ::stat(("/var/run/netns/" + name).c_str(), &info) == 0;
}

// Opens the TUN device `device` inside namespace `netns`: setns() for this thread only, then
// back. The fd keeps working from any namespace.
int open_tun_in(const std::string& netns, const std::string& device) {
  const int home = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (home < 0) fail("open /proc/self/ns/net");
  const int target = ::open(("/var/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC);
  if (target < 0) fail("open netns " + netns);
  if (::setns(target, CLONE_NEWNET) != 0) fail("setns " + netns);
  const int fd = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (fd < 0) fail("open /dev/net/tun");
  ifreq request{};
  request.ifr_flags = IFF_TUN | IFF_NO_PI;
  std::strncpy(request.ifr_name, device.c_str(), IFNAMSIZ - 1);
  if (::ioctl(fd, TUNSETIFF, &request) != 0) fail("TUNSETIFF " + device);
  if (::setns(home, CLONE_NEWNET) != 0) fail("setns back");
  ::close(target);
  ::close(home);
  return fd;
}

void configure(const EndpointSpec& self, const EndpointSpec& peer, int mtu) {
  const auto in = "ip -n " + self.netns + " ";
  run(in + "link set lo up");
  run(in + "addr add " + self.address + "/32 dev " + self.device);
  run(in + "link set " + self.device + " mtu " + std::to_string(mtu) + " up");
  run(in + "route add " + peer.address + "/32 dev " + self.device);
}

}  // namespace

TunPair::TunPair(const EndpointSpec& a, const EndpointSpec& b, int mtu) : a_(a), b_(b) {
  try {
    if (!netns_exists(a_.netns)) {
      run("ip netns add " + a_.netns);
      created_a_ = true;
    }
    if (!netns_exists(b_.netns)) {
      run("ip netns add " + b_.netns);
      created_b_ = true;
    }
    fd_a_ = open_tun_in(a_.netns, a_.device);
    fd_b_ = open_tun_in(b_.netns, b_.device);
    configure(a_, b_, mtu);
    configure(b_, a_, mtu);
  } catch (...) {
    release();
    throw;
  }
}

TunPair::~TunPair() { release(); }

void TunPair::release() {
  // The devices are not persistent: closing the fds removes them with their routes.
  if (fd_a_ >= 0) ::close(fd_a_);
  if (fd_b_ >= 0) ::close(fd_b_);
  fd_a_ = fd_b_ = -1;
  // Best effort on the way out: a namespace someone already removed is what we wanted anyway.
  // (A (void) cast does not silence glibc's warn_unused_result under _FORTIFY_SOURCE.)
  for (const auto* netns : {created_a_ ? &a_.netns : nullptr, created_b_ ? &b_.netns : nullptr}) {
    if (netns != nullptr && std::system(("ip netns del " + *netns).c_str()) != 0) {
      std::fprintf(stderr, "wanem: could not delete namespace %s\n", netns->c_str());
    }
  }
  created_a_ = created_b_ = false;
}

}  // namespace gridftp::wanem
