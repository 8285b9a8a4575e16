// tests/unit/transport/tcp_segments.hpp, in a file of its own: <linux/tcp.h>, which has the
// segment counters, cannot share a file with the <netinet/tcp.h> that asio includes. The case
// below checks the counter against sends whose segments are known.
#include "tests/unit/transport/tcp_segments.hpp"

#include <chrono>
#include <cstddef>
#include <thread>

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace gridftp::testing {

std::optional<TcpSegments> tcp_segments(int fd) {
  tcp_info info{};
  socklen_t length = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0 ||
      length < offsetof(tcp_info, tcpi_data_segs_out) + sizeof info.tcpi_data_segs_out) {
    return std::nullopt;
  }
  return TcpSegments{info.tcpi_data_segs_out, info.tcpi_snd_mss};
}

}  // namespace gridftp::testing

namespace {

// A file descriptor closed at scope exit.
struct Fd {
  int fd;
  explicit Fd(int value) : fd(value) { REQUIRE(fd >= 0); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { ::close(fd); }
};

}  // namespace

TEST_CASE("The data segment counter counts what a socket sent", "[transport][tcp_segments]") {
  const Fd listener(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  REQUIRE(::bind(listener.fd, reinterpret_cast<sockaddr*>(&address), length) == 0);
  REQUIRE(::listen(listener.fd, 1) == 0);
  REQUIRE(::getsockname(listener.fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  const Fd sender(::socket(AF_INET, SOCK_STREAM, 0));
  REQUIRE(::connect(sender.fd, reinterpret_cast<sockaddr*>(&address), length) == 0);
  const Fd receiver(::accept(listener.fd, nullptr, nullptr));
  const int no_delay = 1;
  REQUIRE(::setsockopt(sender.fd, IPPROTO_TCP, TCP_NODELAY, &no_delay, sizeof no_delay) == 0);

  const auto before = gridftp::testing::tcp_segments(sender.fd);
  REQUIRE(before);
  CHECK(before->send_mss > 0);
  // Without Nagle, and with the peer's window open, each small send leaves as one segment.
  const char byte = 'x';
  for (int i = 0; i < 5; ++i) {
    REQUIRE(::send(sender.fd, &byte, 1, 0) == 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const auto after = gridftp::testing::tcp_segments(sender.fd);
  REQUIRE(after);
  CHECK(after->data_segments_sent - before->data_segments_sent == 5);
}
