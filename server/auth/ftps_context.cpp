#include "server/auth/ftps_context.hpp"

#include "security/credential.hpp"
#include "security/tls_contexts.hpp"

namespace gridftp::server::auth {

Result<security::SslCtxPtr> load_ftps_context(const TlsConfig& config, const std::string& host_name,
                                              std::string& message) {
  Result<security::Credential> credential =
      config.cert.empty() ? security::make_self_signed(host_name, 365)
                          : security::load_credential(config.cert, config.key);
  if (!credential) {
    message = "tls.cert/tls.key (" + config.cert.string() + "): " + credential.error().message();
    return make_error(credential.error());
  }
  auto context = security::make_ftps_server_context(*credential);
  if (!context) message = "tls: cannot set up the FTPS context: " + context.error().message();
  return context;
}

}  // namespace gridftp::server::auth
