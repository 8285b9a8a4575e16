#include "server/data/data_security.hpp"

#include "protocol/core/errors.hpp"
#include "security/gsi_handshake.hpp"
#include "security/x509_identity.hpp"
#include "transport/error_conversion.hpp"

namespace gridftp::server {
namespace {

// FTPS (RFC 4217 §7): we are the TLS server whichever side connects; GSI: the side that
// connected is the TLS client (docs/WIRE.md §5.7).
bool client_side(const DataSecurity& security, bool we_connected) {
  return we_connected && !security.ftps;
}

Result<std::unique_ptr<security::Handshake>> make_data_handshake(const DataSecurity& security,
                                                                 bool we_connected) {
  const bool client = client_side(security, we_connected);
  SSL_CTX* context = client ? security.connecting.get() : security.accepting.get();
  const auto role = client ? security::TlsEngine::Role::Client : security::TlsEngine::Role::Server;
  if (security.ftps) {
    auto engine = security::TlsEngine::create(context, role);
    if (!engine) return make_error(engine.error());
    // Clients resume the control connection's session here; a ticket of the data connection's
    // own would only sit unread in an uploading client's socket, and its close would then
    // reset the connection before we read the last of the file.
    engine->issue_no_session_tickets();
    return std::unique_ptr<security::Handshake>(
        std::make_unique<security::TlsHandshake>(std::move(*engine)));
  }
  security::GsiOptions options;
  options.ssl_compatible = security.protection != security::DataProtection::Clear;
  auto gsi = security::GsiHandshake::create(context, role, options);
  if (!gsi) return make_error(gsi.error());
  return std::unique_ptr<security::Handshake>(
      std::make_unique<security::GsiHandshake>(std::move(*gsi)));
}

}  // namespace

Result<std::shared_ptr<const DataSecurity>> make_data_security(const security::Credential& own,
                                                               const security::X509StorePtr& trust,
                                                               security::DataProtection protection,
                                                               bool integrity_only,
                                                               std::string expected_peer) {
  auto connecting = security::make_gsi_data_context(own, trust.get(), security::TlsRole::Client,
                                                    protection, integrity_only);
  if (!connecting) return make_error(connecting.error());
  auto accepting = security::make_gsi_data_context(own, trust.get(), security::TlsRole::Server,
                                                   protection, integrity_only);
  if (!accepting) return make_error(accepting.error());
  auto out = std::make_shared<DataSecurity>();
  out->connecting = std::move(*connecting);
  out->accepting = std::move(*accepting);
  out->protection = protection;
  out->expected_peer = std::move(expected_peer);
  return std::shared_ptr<const DataSecurity>(std::move(out));
}

std::shared_ptr<const DataSecurity> make_ftps_data_security(
    const security::SslCtxPtr& server_context) {
  auto out = std::make_shared<DataSecurity>();
  out->accepting = security::share_context(server_context.get());
  out->protection = security::DataProtection::Private;
  out->ftps = true;
  return out;
}

transport::awaitable<Result<void>> secure_data_link(transport::DataLink& link,
                                                    transport::tcp::socket& socket,
                                                    const DataSecurity& security,
                                                    bool we_connected) {
  auto handshake = make_data_handshake(security, we_connected);
  if (!handshake) co_return make_error(handshake.error());
  // PROT S/P contexts are "SSL-compatible": no GSI bytes after the handshake (docs/WIRE.md §5.7).
  const bool keep_tls = security.ftps || security.protection != security::DataProtection::Clear;
  auto done = co_await link.handshake(socket, std::move(*handshake),
                                      client_side(security, we_connected), keep_tls);
  if (!done) {
    // A refused or broken handshake means the data connection could not be opened (425), not
    // a failed login (TLS's own mapping, right for the control channel).
    if (done.error() == Condition::DataConnection) co_return done;
    co_return make_error(make_error_code(transport::TransportErrc::HandshakeFailed));
  }
  if (!security.ftps && !security::same_identity(link.peer_identity(), security.expected_peer)) {
    co_return make_error(error_code_for(Condition::UnexpectedDataIdentity));
  }
  co_return Result<void>{};
}

}  // namespace gridftp::server
