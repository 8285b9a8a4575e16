#include "server/auth/gsi_context.hpp"

#include "protocol/core/errors.hpp"
#include "security/tls_contexts.hpp"
#include "security/trust_store.hpp"

namespace gridftp::server::auth {

Result<std::shared_ptr<const GsiContext>> load_gsi_context(const GsiConfig& config,
                                                           std::string& message) {
  auto context = std::make_shared<GsiContext>();
  context->config = config;
  auto host = security::load_credential(config.host_cert, config.host_key);
  if (!host) {
    message =
        "gsi.host_cert/host_key (" + config.host_cert.string() + "): " + host.error().message();
    return make_error(host.error());
  }
  context->host = std::move(*host);
  std::string why;
  auto trust = security::load_trust_store(config.cert_dir, why);
  if (!trust) {
    message = "gsi.cert_dir (" + config.cert_dir.string() +
              "): " + (why.empty() ? trust.error().message() : why);
    return make_error(trust.error());
  }
  context->trust = std::move(*trust);
  auto gridmap = security::load_gridmap(config.gridmap, why);
  if (!gridmap) {
    message = "gsi.gridmap (" + config.gridmap.string() +
              "): " + (why.empty() ? gridmap.error().message() : why);
    return make_error(gridmap.error());
  }
  context->gridmap.store(std::make_shared<const security::Gridmap>(std::move(*gridmap)));
  auto control = security::make_gsi_control_context(context->host, context->trust.get(),
                                                    security::TlsRole::Server);
  if (!control) {
    message = "gsi: cannot set up TLS with the host credential: " + control.error().message();
    return make_error(control.error());
  }
  context->control = std::move(*control);
  return std::shared_ptr<const GsiContext>(std::move(context));
}

Result<UserContext> map_gsi_user(const GsiContext& gsi, const std::string& dn,
                                 const std::string& requested) {
  std::optional<std::string> account;
  const auto gridmap = gsi.gridmap.load();
  if (requested.empty() || requested == ":globus-mapping:") {
    account = gridmap->default_account(dn);
  } else if (gridmap->allows(dn, requested)) {
    account = requested;
  }
  if (!account) return make_error(error_code_for(Condition::LoginFailed));
  // No root configured: the real "/", so URLs name the same files as on a Globus server.
  std::string root = gsi.config.root.empty() ? std::string("/") : gsi.config.root.string();
  for (auto at = root.find("%u"); at != std::string::npos;
       at = root.find("%u", at + account->size())) {
    root.replace(at, 2, *account);
  }
  return UserContext{*account, root, {"/"}, false};
}

}  // namespace gridftp::server::auth
