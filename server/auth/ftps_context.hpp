// The FTPS (RFC 4217) server context, made once at start-up: from tls.cert/tls.key, or a fresh
// self-signed certificate when none is configured (the demo's case; clients must not verify it).
#pragma once

#include <string>

#include "protocol/core/result.hpp"
#include "security/openssl_ptr.hpp"
#include "server/config/server_config.hpp"

namespace gridftp::server::auth {

// Errors carry a message naming the file that failed.
Result<security::SslCtxPtr> load_ftps_context(const TlsConfig& config, const std::string& host_name,
                                              std::string& message);

}  // namespace gridftp::server::auth
