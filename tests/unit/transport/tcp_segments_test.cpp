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

#include "server/storage/unique_fd.hpp"

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

TEST_CASE("The data segment counter counts what a socket sent", "[transport][tcp_segments]") {
  using gridftp::server::storage::UniqueFd;
  const UniqueFd listener(::socket(AF_INET, SOCK_STREAM, 0));
  REQUIRE(listener.valid());
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  REQUIRE(::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), length) == 0);
  REQUIRE(::listen(listener.get(), 1) == 0);
  REQUIRE(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length) == 0);
  const UniqueFd sender(::socket(AF_INET, SOCK_STREAM, 0));
  REQUIRE(sender.valid());
  REQUIRE(::connect(sender.get(), reinterpret_cast<sockaddr*>(&address), length) == 0);
  const UniqueFd receiver(::accept(listener.get(), nullptr, nullptr));
  REQUIRE(receiver.valid());
  const int no_delay = 1;
  REQUIRE(::setsockopt(sender.get(), IPPROTO_TCP, TCP_NODELAY, &no_delay, sizeof no_delay) == 0);

  const auto before = gridftp::testing::tcp_segments(sender.get());
  REQUIRE(before);
  CHECK(before->send_mss > 0);
  // Without Nagle, and with the peer's window open, each small send leaves as one segment.
  const char byte = 'x';
  for (int i = 0; i < 5; ++i) {
    REQUIRE(::send(sender.get(), &byte, 1, 0) == 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const auto after = gridftp::testing::tcp_segments(sender.get());
  REQUIRE(after);
  CHECK(after->data_segments_sent - before->data_segments_sent == 5);
}
