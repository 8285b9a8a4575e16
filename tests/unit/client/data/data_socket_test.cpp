// DataSocket's GSI data-channel handshake between two of our own ends over loopback TCP, one
// thread each (docs/WIRE.md §5.7): PROT C drops TLS after the flag and the bytes right behind it
// survive; PROT S/P carry the bytes in TLS; DCAU A refuses a peer with another identity.
#include "client/data/data_socket.hpp"

#include <future>
#include <string>

#include <catch2/catch.hpp>
#include <openssl/x509.h>

#include "client/auth/gsi_credentials.hpp"
#include "client/client_errors.hpp"
#include "client/data/timed_io.hpp"
#include "tests/unit/security/test_pki.hpp"

using gridftp::client::ClientErrc;
using gridftp::client::DataChannelSecurity;
using gridftp::client::DataSocket;
using gridftp::client::GsiCredentials;
using gridftp::security::DataProtection;
using gridftp::security::TlsRole;
using gridftp::security::testing::test_pki;
namespace asio = gridftp::transport::asio;
using gridftp::transport::tcp;

namespace {

constexpr auto kTimeout = std::chrono::seconds(10);

std::shared_ptr<const GsiCredentials> credentials(gridftp::security::Credential credential) {
  X509_STORE_up_ref(test_pki().trust_store());
  std::string detail;
  auto loaded = GsiCredentials::from_credential(
      std::move(credential), gridftp::security::X509StorePtr(test_pki().trust_store()), detail);
  REQUIRE(loaded);
  return *loaded;
}

// Reads until `want` bytes or the end of the stream.
std::string read_exactly(DataSocket& socket, std::size_t want) {
  std::string out;
  std::array<char, 4096> buffer{};
  while (out.size() < want) {
    auto got = socket.read_some(buffer, kTimeout);
    REQUIRE(got);
    if (*got == 0) {
      break;
    }
    out.append(buffer.data(), *got);
  }
  return out;
}

struct Outcome {
  gridftp::Result<void> client = {};
  gridftp::Result<void> server = {};
  std::string server_received;
  std::string client_received;
};

// Connects a client DataSocket to a server DataSocket, secures both at once, then the client
// sends `upload` and the server `download`, each right after its handshake.
Outcome exchange(const DataChannelSecurity& client_security,
                 const DataChannelSecurity& server_security, const std::string& upload,
                 const std::string& download) {
  asio::io_context accept_io;
  tcp::acceptor acceptor(accept_io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const auto port = acceptor.local_endpoint().port();
  Outcome outcome;
  auto server_side = std::async(std::launch::async, [&] {
    asio::io_context io;
    DataSocket server(io);
    REQUIRE(gridftp::client::accept_with_deadline(accept_io, acceptor, server.socket(), kTimeout));
    outcome.server = server.secure(server_security, TlsRole::Server, kTimeout);
    if (outcome.server) {
      REQUIRE(server.write_all(download, kTimeout));
      outcome.server_received = read_exactly(server, upload.size());
    }
  });
  asio::io_context io;
  DataSocket client(io);
  REQUIRE(gridftp::client::connect_with_deadline(io, client.socket(), "127.0.0.1", port, kTimeout));
  outcome.client = client.secure(client_security, TlsRole::Client, kTimeout);
  if (outcome.client) {
    REQUIRE(client.write_all(upload, kTimeout));
    outcome.client_received = read_exactly(client, download.size());
  } else {
    client.socket().close();
  }
  server_side.get();
  return outcome;
}

std::string pattern(std::size_t bytes) {
  std::string out(bytes, '\0');
  for (std::size_t i = 0; i < bytes; ++i) {
    out[i] = static_cast<char>((i * 7 + 3) & 0xff);
  }
  return out;
}

}  // namespace

TEST_CASE("GSI data handshake, then bytes both ways, at each protection level", "[gsi][data]") {
  static const auto user = credentials(test_pki().user_proxy());
  const auto protection =
      GENERATE(DataProtection::Clear, DataProtection::Safe, DataProtection::Private);
  const DataChannelSecurity security{user, protection, nullptr};
  // MODE E headers start with 0x00: under PROT C they must not be taken for a TLS record.
  const auto upload = std::string("\x00\x00\x00", 3) + pattern(300'000);
  const auto download = std::string("\x08", 1) + pattern(70'000);
  const auto outcome = exchange(security, security, upload, download);
  REQUIRE(outcome.client);
  REQUIRE(outcome.server);
  CHECK(outcome.server_received == upload);
  CHECK(outcome.client_received == download);
}

TEST_CASE("DCAU A refuses a data peer with another identity", "[gsi][data]") {
  static const auto user = credentials(test_pki().user_proxy());
  static const auto someone_else = credentials(test_pki().revoked_user());  // no CRL loaded
  const DataChannelSecurity ours{user, DataProtection::Clear, nullptr};
  const DataChannelSecurity theirs{someone_else, DataProtection::Clear, nullptr};
  const auto outcome = exchange(ours, theirs, "x", "y");
  REQUIRE_FALSE(outcome.client);
  CHECK(outcome.client.error() == ClientErrc::DataPeerMismatch);
}

TEST_CASE("Without DCAU secure() leaves the socket raw", "[gsi][data]") {
  const DataChannelSecurity none{};
  const auto outcome = exchange(none, none, "abc", "defg");
  REQUIRE(outcome.client);
  REQUIRE(outcome.server);
  CHECK(outcome.server_received == "abc");
  CHECK(outcome.client_received == "defg");
}
