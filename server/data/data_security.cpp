#include "server/data/data_security.hpp"

#include "protocol/core/errors.hpp"
#include "security/x509_identity.hpp"

namespace gridftp::server {

Result<std::shared_ptr<const DataSecurity>> make_data_security(const security::Credential& own,
                                                               X509_STORE* trust,
                                                               security::DataProtection protection,
                                                               bool integrity_only,
                                                               std::string expected_peer) {
  auto connecting = security::make_gsi_data_context(own, trust, security::TlsRole::Client,
                                                    protection, integrity_only);
  if (!connecting) return make_error(connecting.error());
  auto accepting = security::make_gsi_data_context(own, trust, security::TlsRole::Server,
                                                   protection, integrity_only);
  if (!accepting) return make_error(accepting.error());
  auto out = std::make_shared<DataSecurity>();
  out->connecting = std::move(*connecting);
  out->accepting = std::move(*accepting);
  out->protection = protection;
  out->expected_peer = std::move(expected_peer);
  return std::shared_ptr<const DataSecurity>(std::move(out));
}

std::shared_ptr<const DataSecurity> make_ftps_data_security(SSL_CTX* server_context) {
  auto out = std::make_shared<DataSecurity>();
  out->accepting = security::share_context(server_context);
  out->protection = security::DataProtection::Private;
  out->ftps = true;
  return out;
}

transport::awaitable<Result<void>> secure_data_link(transport::DataLink& link,
                                                    transport::tcp::socket& socket,
                                                    const DataSecurity& security,
                                                    bool we_connected) {
  security::GsiOptions options;
  // PROT S/P contexts are "SSL-compatible": no GSI bytes after the handshake (docs/WIRE.md §5.7).
  options.ssl_compatible = security.protection != security::DataProtection::Clear;
  options.require_peer_certificate = !security.ftps;
  const bool client = we_connected && !security.ftps;
  auto gsi = security::GsiHandshake::create(
      client ? security.connecting.get() : security.accepting.get(),
      client ? security::GsiHandshake::Role::Client : security::GsiHandshake::Role::Server,
      options);
  if (!gsi) co_return make_error(gsi.error());
  auto done = co_await link.handshake(
      socket, std::make_unique<security::GsiHandshake>(std::move(*gsi)), options.ssl_compatible);
  if (!done) co_return done;
  if (!security.ftps && !security::same_identity(link.peer_identity(), security.expected_peer)) {
    co_return make_error(error_code_for(Condition::UnexpectedDataIdentity));
  }
  co_return Result<void>{};
}

}  // namespace gridftp::server
