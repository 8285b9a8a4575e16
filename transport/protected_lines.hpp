// RFC 2228 protected control lines over a GSI TLS engine (docs/WIRE.md §5.3): each command and
// each reply line is one TLS application record, base64 in an ENC/MIC command or a 631/632 reply
// line. The control channel's end of the byte-stream seam for GSI (docs/ARCHITECTURE.md, "The
// byte-stream seam"): gridftpd's session and gridcp's GsiControlChannel both protect and
// unprotect lines here, and nothing outside transport/ touches the TLS records themselves.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "protocol/core/result.hpp"
#include "security/tls_engine.hpp"

namespace gridftp::transport {

// Client: one command `line` (with its CRLF) as "ENC <token>" (or "MIC <token>" with a NULL
// cipher), without a line ending.
Result<std::string> protect_command(security::TlsEngine& engine, std::string_view line);

// Server: a formatted reply (one or more CRLF-terminated lines) as 631 (integrity only) or 632
// lines, one token per line, "63x-" on all but the last, each ending in CRLF.
Result<std::string> protect_reply(security::TlsEngine& engine, std::string_view formatted);

// Either side: the plaintext of one decoded token (the base64 of an ENC/MIC command or a
// 631/632/633 line, already decoded). Errors: the engine's (a bad MAC, replay, truncation).
Result<std::string> unprotect_token(security::TlsEngine& engine, std::span<const char> token);

}  // namespace gridftp::transport
