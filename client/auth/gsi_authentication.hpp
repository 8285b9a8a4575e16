// The GSI login exchange of a gsiftp:// control connection (docs/WIRE.md §5.1, RFC 2228): AUTH
// GSSAPI, then ADAT tokens until 235, as initiator with delegation (the server needs the
// delegated proxy for DCAU A). The server's certificate must name the URL's host (§5.4), or be
// the subject the user named (server_identity.hpp). Not
// the USER/PASS that follows, nor the wrapping of later lines (gsi_control_channel).
#pragma once

#include <functional>
#include <string>

#include "client/auth/gsi_credentials.hpp"
#include "client/auth/server_identity.hpp"
#include "client/session/control_connection.hpp"
#include "security/tls_engine.hpp"

namespace gridftp::client {

enum class GsiLoginErrc {
  WrongHost = 1,  // the server's certificate does not name the host of the URL
  WrongSubject,   // the server's certificate is not the subject the user named
  TooManyTokens,  // the ADAT exchange did not end within a sane number of rounds
  MissingToken,   // a 335 reply without "ADAT=<base64>"
  Unfinished,     // 235 came while our side of the exchange was not complete
};

const std::error_category& gsi_login_category();
std::error_code make_error_code(GsiLoginErrc e);

// Runs the exchange. AUTH GSSAPI and the first ADAT (the ClientHello) go out before
// `read_greeting` reads the server's greeting, so the first token is on its way one round trip
// sooner (pipelining, docs/WIRE.md §1.7); a failed greeting is returned as it is. As soon as our
// side is complete the TLS engine that protects the rest of the session goes to `on_complete`,
// which may send the session's first commands behind our last token, and this returns: the
// server's 235 to that token is judged when the session next reads a reply (a refusal then
// fails that read, naming ADAT). An error from `on_complete` ends the exchange. `detail` explains a
// failure beyond its code (OpenSSL's reasons, the certificate's DN). Errors: rejected_reply_error()
// with the reply in control.last_failure() (504, 530, ...), GsiLoginErrc, TlsErrc/GsiErrc from the
// handshake, and the connection's errors.
Result<void> authenticate_gsi(ControlConnection& control, const GsiCredentials& credentials,
                              const ExpectedServer& server, std::string& detail,
                              const std::function<Result<void>()>& read_greeting,
                              const std::function<Result<void>(security::TlsEngine)>& on_complete);

}  // namespace gridftp::client

template <>
struct std::is_error_code_enum<gridftp::client::GsiLoginErrc> : std::true_type {};
