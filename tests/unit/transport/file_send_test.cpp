// When a file goes out with sendfile(2) (transport::sendfile_wanted, docs/STORAGE.md "Sending"):
// a connected TCP pair on loopback is a peer on this host, so "other-hosts" copies there, while
// "always" and "never" decide alone.
#include "transport/file_send.hpp"

#include <catch2/catch.hpp>

namespace {

namespace asio = gridftp::transport::asio;
using gridftp::transport::sendfile_wanted;
using gridftp::transport::SendfileUse;
using gridftp::transport::tcp;

struct LoopbackPair {
  asio::io_context io;
  tcp::socket client{io};
  tcp::socket server{io};
  explicit LoopbackPair(const asio::ip::address& address) {
    tcp::acceptor acceptor(io, tcp::endpoint(address, 0));
    client.connect(acceptor.local_endpoint());
    acceptor.accept(server);
  }
};

}  // namespace

TEST_CASE("A loopback peer gets a copying send unless sendfile is forced",
          "[transport][sendfile]") {
  const auto address = GENERATE(asio::ip::make_address("127.0.0.1"), asio::ip::make_address("::1"));
  INFO(address.to_string());
  LoopbackPair pair(address);
  CHECK_FALSE(sendfile_wanted(SendfileUse::OtherHosts, pair.server));
  CHECK_FALSE(sendfile_wanted(SendfileUse::OtherHosts, pair.client));
  CHECK(sendfile_wanted(SendfileUse::Always, pair.server));
  CHECK_FALSE(sendfile_wanted(SendfileUse::Never, pair.server));
}

TEST_CASE("A socket with no peer is left to sendfile, which reports the error",
          "[transport][sendfile]") {
  asio::io_context io;
  tcp::socket unconnected(io);
  unconnected.open(tcp::v4());
  CHECK(sendfile_wanted(SendfileUse::OtherHosts, unconnected));
  CHECK_FALSE(sendfile_wanted(SendfileUse::Never, unconnected));
}
