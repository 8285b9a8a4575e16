// The emulator's plumbing: two network namespaces, each with one TUN device whose only route
// leads to the other namespace's address, both devices held open by this process. Whatever a
// program in namespace A sends to B's address comes out of A's TUN fd as an IP packet; the
// emulator writes it into B's TUN fd after the link model is done with it (docs/WANEM.md).
#pragma once

#include <string>

namespace gridftp::wanem {

struct EndpointSpec {
  std::string netns;    // created if missing, deleted again by ~TunPair when we created it
  std::string device;   // TUN device name inside it
  std::string address;  // IPv4 address of this end (a /32)
};

class TunPair {
 public:
  // Sets both namespaces up and opens both devices. Throws std::runtime_error with the failing
  // step (needs root and /dev/net/tun).
  TunPair(const EndpointSpec& a, const EndpointSpec& b, int mtu);
  ~TunPair();
  TunPair(const TunPair&) = delete;
  TunPair& operator=(const TunPair&) = delete;

  int fd_a() const { return fd_a_; }
  int fd_b() const { return fd_b_; }

 private:
  void release();

  EndpointSpec a_, b_;
  int fd_a_ = -1;
  int fd_b_ = -1;
  bool created_a_ = false;
  bool created_b_ = false;
};

}  // namespace gridftp::wanem
