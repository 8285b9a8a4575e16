#include "client/data/data_socket.hpp"

#include "client/client_errors.hpp"
#include "client/data/timed_io.hpp"
#include "security/gsi_handshake.hpp"
#include "security/x509_identity.hpp"
#include "transport/error_conversion.hpp"
#include "transport/file_send.hpp"

namespace gridftp::client {
namespace {

namespace asio = transport::asio;

// FTPS (RFC 4217): plain TLS with us as the TLS client, also on a connection the server opened
// (a MODE E get): FTPS servers are TLS servers on every data connection. The server is named by
// the URL's host, and the control connection's session is offered for resumption.
Result<std::unique_ptr<security::Handshake>> make_ftps_handshake(const FtpsDataTls& ftps) {
  auto engine = security::TlsEngine::create(ftps.context.get(), security::TlsEngine::Role::Client);
  if (!engine) return make_error(engine.error());
  if (ftps.check_host) {
    if (auto named = engine->expect_host(ftps.host); !named) return make_error(named.error());
  }
  if (ftps.control_session) {
    if (auto resumed = engine->resume(ftps.control_session.get()); !resumed) {
      return make_error(resumed.error());
    }
  }
  return std::unique_ptr<security::Handshake>(
      std::make_unique<security::TlsHandshake>(std::move(*engine)));
}

// GSI DCAU: the side that connected is the initiator; both present our credential.
Result<std::unique_ptr<security::Handshake>> make_gsi_handshake(const DataChannelSecurity& security,
                                                                security::TlsRole role) {
  security::GsiOptions options;
  // PROT S/P: plain TLS; PROT C: GSI sync and flag bytes, then no TLS (docs/WIRE.md §5.7).
  options.ssl_compatible = security.protection != security::DataProtection::Clear;
  auto handshake = security::GsiHandshake::create(
      security.credentials->data_context(role, security.protection).get(),
      role == security::TlsRole::Client ? security::TlsEngine::Role::Client
                                        : security::TlsEngine::Role::Server,
      options);
  if (!handshake) return make_error(handshake.error());
  return std::unique_ptr<security::Handshake>(
      std::make_unique<security::GsiHandshake>(std::move(*handshake)));
}

}  // namespace

DataSocket::DataSocket(asio::io_context& io) : io_(io), socket_(io), stream_(socket_, link_) {}

Result<void> DataSocket::secure(const DataChannelSecurity& security, security::TlsRole role,
                                Clock::duration timeout) {
  if (!security.is_enabled()) return {};
  auto handshake =
      security.ftps ? make_ftps_handshake(*security.ftps) : make_gsi_handshake(security, role);
  if (!handshake) return make_error(handshake.error());
  const bool keep_tls = security.ftps || security.protection != security::DataProtection::Clear;
  const bool initiator = security.ftps || role == security::TlsRole::Client;
  auto done = run_with_timeout(
      io_, socket_, link_.handshake(socket_, std::move(*handshake), initiator, keep_tls), timeout);
  if (!done) {
    failure_detail_ = link_.failure_detail();
    return done;
  }
  if (security.ftps) {
    sends_close_notify_ = true;
    return {};
  }
  // DCAU A: the peer must hold our identity (GFD.20; the server uses the proxy we delegated).
  if (!security::same_identity(link_.peer_identity(), security.credentials->identity())) {
    failure_detail_ = "data connection peer is " + link_.peer_identity() + ", expected " +
                      security.credentials->identity();
    return make_error(make_error_code(ClientErrc::DataPeerMismatch));
  }
  return {};
}

transport::awaitable<Result<std::size_t>> DataSocket::read_once(std::span<char> buffer) {
  std::error_code ec;
  const auto count = co_await stream_.read_some(buffer, ec);
  // FIN or close_notify: the end of the stream (Globus sends no close_notify, docs/WIRE.md §5.7).
  if (ec == transport::TransportErrc::EndOfStream) co_return std::size_t{0};
  if (ec) co_return make_error(ec);
  co_return count;
}

transport::awaitable<Result<void>> DataSocket::write_once(std::string_view bytes) {
  std::error_code ec;
  co_await stream_.write_all({bytes.data(), bytes.size()}, ec);
  if (ec) co_return make_error(ec);
  co_return Result<void>{};
}

transport::awaitable<Result<std::size_t>> DataSocket::send_file_once(std::span<const char> header,
                                                                     int fd, std::uint64_t offset,
                                                                     std::size_t count) {
  // The header through the stream, with `more` so it shares its segment with the payload; the
  // payload from the file straight into the clear socket beneath it.
  std::error_code header_ec;
  co_await stream_.write_all(header, header_ec, true);
  if (header_ec) co_return make_error(header_ec);
  auto* const clear = stream_.clear_socket();
  if (clear == nullptr)
    co_return make_error(std::make_error_code(std::errc::operation_not_supported));
  boost::system::error_code ec;
  const auto sent = co_await transport::async_send_file(*clear, fd, offset, count, ec);
  if (sent == 0 && transport::is_sendfile_unsupported(ec))
    co_return make_error(std::make_error_code(std::errc::operation_not_supported));
  if (ec) co_return make_error(transport::to_error_code(ec));
  co_return sent;
}

transport::awaitable<Result<void>> DataSocket::finish_tls() {
  std::error_code ec;
  co_await stream_.finish(ec);
  if (ec) co_return make_error(ec);
  co_return Result<void>{};
}

Result<std::size_t> DataSocket::read_some(std::span<char> buffer, Clock::duration timeout) {
  return run_with_timeout(io_, socket_, read_once(buffer), timeout);
}

Result<void> DataSocket::write_all(std::string_view bytes, Clock::duration timeout) {
  return run_with_timeout(io_, socket_, write_once(bytes), timeout);
}

Result<std::size_t> DataSocket::send_file_range(std::span<const char> header, int fd,
                                                std::uint64_t offset, std::size_t count,
                                                Clock::duration timeout) {
  return run_with_timeout(io_, socket_, send_file_once(header, fd, offset, count), timeout);
}

Result<void> DataSocket::end_sending(Clock::duration timeout) {
  if (sends_close_notify_) {
    if (auto sent = run_with_timeout(io_, socket_, finish_tls(), timeout); !sent) return sent;
  }
  boost::system::error_code ec;
  socket_.shutdown(transport::tcp::socket::shutdown_send, ec);
  if (ec) return make_error(transport::to_error_code(ec));
  return {};
}

}  // namespace gridftp::client
