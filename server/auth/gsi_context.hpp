// What every GSI session shares, loaded once at start-up so a broken host credential, CA
// directory or gridmap stops the server with a message instead of failing each login: the host
// credential, the trust store, the control channel's TLS context and the gridmap.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "protocol/core/result.hpp"
#include "security/credential.hpp"
#include "security/gridmap.hpp"
#include "security/openssl_ptr.hpp"
#include "server/auth/authenticator.hpp"
#include "server/config/server_config.hpp"

namespace gridftp::server::auth {

struct GsiContext {
  GsiConfig config;
  security::Credential host;
  security::X509StorePtr trust;
  security::SslCtxPtr control;  // acceptor side of AUTH GSSAPI
  // Replaced when SIGHUP re-reads the gridmap, while sessions share this context; a mapping
  // being made finishes against the gridmap it loaded.
  mutable std::atomic<std::shared_ptr<const security::Gridmap>> gridmap;
};

// Errors carry a message naming the file that failed.
Result<std::shared_ptr<const GsiContext>> load_gsi_context(const GsiConfig& config,
                                                           std::string& message);

// USER after AUTH GSSAPI: ":globus-mapping:" (or empty) takes the DN's default account, any
// other name must be allowed for the DN. The session's root is gsi.root with %u = account.
// Errors: Condition::LoginFailed when the gridmap has no such mapping.
Result<UserContext> map_gsi_user(const GsiContext& gsi, const std::string& dn,
                                 const std::string& requested);

}  // namespace gridftp::server::auth
