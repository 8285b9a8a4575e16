// transport::DataLink over a real loopback TCP connection after the TLS 1.3 handshake of a PROT P
// data connection (our own record layer then carries the data): how much one read hands the
// caller, that sealed records leave in full-size segments, and that every byte comes through, in
// order, up to the clean end.
#include "transport/data_link.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "security/handshake.hpp"
#include "security/tls13_record_cipher.hpp"
#include "security/tls_contexts.hpp"
#include "security/tls_engine.hpp"
#include "tests/unit/security/test_pki.hpp"
#include "tests/unit/transport/tcp_segments.hpp"

namespace {

namespace asio = gridftp::transport::asio;
namespace security = gridftp::security;
using gridftp::security::testing::test_pki;
using gridftp::transport::awaitable;
using gridftp::transport::DataLink;
using gridftp::transport::tcp;
using gridftp::transport::use_awaitable;

// A small TLS input ring, so that what a case writes is several rings' worth yet fits the
// default socket buffers of any host.
constexpr std::size_t kRingBytes = 32 * 1024;
constexpr int kSocketBufferBytes = 1 << 20;  // the kernel may grant less (net.core.rmem_max)

// The TLS handshake gridftpd's PROT P data connections make, on an engine with a `ring`-byte ring.
std::unique_ptr<security::Handshake> private_handshake(security::TlsRole role, std::size_t ring) {
  auto context = security::make_gsi_data_context(test_pki().user_proxy(), test_pki().trust_store(),
                                                 role, security::DataProtection::Private, false);
  REQUIRE(context);
  const auto engine_role = role == security::TlsRole::Client ? security::TlsEngine::Role::Client
                                                             : security::TlsEngine::Role::Server;
  // The engine's SSL object keeps its own reference to the context.
  auto engine = security::TlsEngine::create(context->get(), engine_role, ring);
  REQUIRE(engine);
  return std::make_unique<security::TlsHandshake>(std::move(*engine));
}

// Two ends of one loopback TCP connection, each with its DataLink after the PROT P handshake.
struct PrivateLink {
  asio::io_context io;
  tcp::socket writer_socket{io};
  tcp::socket reader_socket{io};
  DataLink writer;
  DataLink reader;
  std::size_t ring_bytes;

  explicit PrivateLink(std::size_t ring = kRingBytes) : ring_bytes(ring) {
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    writer_socket.connect(acceptor.local_endpoint());
    acceptor.accept(reader_socket);
    writer_socket.set_option(asio::socket_base::send_buffer_size(kSocketBufferBytes));
    reader_socket.set_option(asio::socket_base::receive_buffer_size(kSocketBufferBytes));
    bool writer_ready = false;
    bool reader_ready = false;
    asio::co_spawn(
        io, shake(writer, writer_socket, security::TlsRole::Client, ring_bytes, &writer_ready),
        asio::detached);
    asio::co_spawn(
        io, shake(reader, reader_socket, security::TlsRole::Server, ring_bytes, &reader_ready),
        asio::detached);
    io.run();
    io.restart();
    REQUIRE(writer_ready);
    REQUIRE(reader_ready);
    REQUIRE(reader.describe().find("TLSv1.3") != std::string::npos);
    REQUIRE(reader.describe().find("own-record-layer") != std::string::npos);
  }

  static awaitable<void> shake(DataLink& link, tcp::socket& socket, security::TlsRole role,
                               std::size_t ring, bool* ready) {
    auto done = co_await link.handshake(socket, private_handshake(role, ring),
                                        role == security::TlsRole::Client, true);
    *ready = static_cast<bool>(done);
  }

  // Runs the loop until `writer` has handed all of `bytes` to the socket (and, with `finish`,
  // sent close_notify and closed).
  void write(const std::string& bytes, bool finish) {
    boost::system::error_code ec;
    asio::co_spawn(
        io,
        [&]() -> awaitable<void> {
          co_await writer.write_all(writer_socket, {bytes.data(), bytes.size()}, ec);
          if (!ec && finish) {
            co_await writer.finish(writer_socket, ec);
            writer_socket.close();
          }
        },
        asio::detached);
    io.run();
    io.restart();
    REQUIRE_FALSE(ec);
  }

  std::size_t read_once(std::span<char> out, boost::system::error_code& ec) {
    std::size_t got = 0;
    asio::co_spawn(
        io, [&]() -> awaitable<void> { got = co_await reader.read_some(reader_socket, out, ec); },
        asio::detached);
    io.run();
    io.restart();
    return got;
  }
};

std::string pattern(std::size_t bytes) {
  std::string out(bytes, '\0');
  std::uint32_t x = 2463534242U;
  for (auto& c : out) {
    x ^= x << 13U;
    x ^= x >> 17U;
    x ^= x << 5U;
    c = static_cast<char>(x);
  }
  return out;
}

// Waits (a few seconds at most) until `bytes` have arrived in `socket`'s receive queue.
bool arrived(tcp::socket& socket, std::size_t bytes) {
  for (int i = 0; i < 500; ++i) {
    if (socket.available() >= bytes) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

TEST_CASE("A TLS link's read hands out every record already arrived, not one input ring's worth",
          "[transport][data_link]") {
  PrivateLink link;
  // Four times the input ring, in full records.
  const std::string data = pattern(4 * kRingBytes);
  link.write(data, false);
  const std::size_t records = data.size() / security::kTls13MaxPlaintextBytes;
  REQUIRE(arrived(link.reader_socket, data.size() + records * security::tls13_record_bytes(0)));

  std::vector<char> out(2 * data.size());
  boost::system::error_code ec;
  const auto got = link.read_once(out, ec);
  REQUIRE_FALSE(ec);
  CHECK(got == data.size());
  CHECK(std::string(out.data(), got) == data);
}

TEST_CASE("A TLS link's reads bring a long stream through whole, then the clean end",
          "[transport][data_link]") {
  PrivateLink link;
  // Not a whole number of records, and several times the reader's buffer.
  const std::string data = pattern(5 * (1 << 20) + 12345);
  std::string received;
  boost::system::error_code read_error;
  std::vector<std::size_t> pieces;
  asio::co_spawn(
      link.io,
      [&]() -> awaitable<void> {
        std::vector<char> out(1 << 20);
        for (;;) {
          const auto got = co_await link.reader.read_some(link.reader_socket, out, read_error);
          if (read_error) co_return;
          pieces.push_back(got);
          received.append(out.data(), got);
        }
      },
      asio::detached);
  link.write(data, true);
  CHECK(read_error == asio::error::eof);
  CHECK(received.size() == data.size());
  CHECK(received == data);
  for (const auto piece : pieces) CHECK(piece > 0);
}

TEST_CASE("A TLS link sends the records it sealed in full-size segments",
          "[transport][data_link]") {
  // The default ring: one write of this size seals a ring's worth, sends it, then seals the rest.
  PrivateLink link(security::TlsEngine::kDefaultRingBytes);
  const std::string data = pattern(400000);
  const auto before = gridftp::testing::tcp_segments(link.writer_socket.native_handle());
  REQUIRE(before);
  link.write(data, false);
  const std::size_t records =
      (data.size() + security::kTls13MaxPlaintextBytes - 1) / security::kTls13MaxPlaintextBytes;
  const std::size_t wire = data.size() + records * security::tls13_record_bytes(0);
  // It fits the reader's window unread, so the writer's sends alone decide the segments.
  REQUIRE(arrived(link.reader_socket, wire));
  const auto after = gridftp::testing::tcp_segments(link.writer_socket.native_handle());
  REQUIRE(after);
  const std::size_t segments = after->data_segments_sent - before->data_segments_sent;
  CAPTURE(wire, segments, after->send_mss);
  // Sent in 64 KiB pieces, each piece ends in a short segment when the MSS is under 64 KiB (as on
  // loopback), which about doubles the count.
  CHECK(segments * after->send_mss * 2 <= wire * 3);  // on average at least 2/3 of the MSS

  std::vector<char> out(wire);
  std::string received;
  boost::system::error_code ec;
  while (received.size() < data.size() && !ec) {
    const auto got = link.read_once(out, ec);
    received.append(out.data(), got);
  }
  CHECK_FALSE(ec);
  CHECK(received == data);
}
