#include "transport/protected_lines.hpp"

#include "protocol/control/reply_codes.hpp"
#include "protocol/core/base64.hpp"
#include "security/gsi_handshake.hpp"

namespace gridftp::transport {

namespace rc = protocol::control::reply_code;

Result<std::string> protect_command(security::TlsEngine& engine, std::string_view line) {
  auto token = security::wrap_record(engine, line);
  if (!token) return make_error(token.error());
  // MIC only with a NULL cipher; the Globus server unwraps either (docs/WIRE.md §5.3).
  return std::string(engine.encrypts() ? "ENC " : "MIC ") + protocol::encode_base64(*token);
}

Result<std::string> protect_reply(security::TlsEngine& engine, std::string_view formatted) {
  const std::string code = std::to_string(engine.encrypts() ? rc::kPrivateReply : rc::kSafeReply);
  std::string out;
  std::string_view rest(formatted);
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    const auto line = rest.substr(0, end == std::string_view::npos ? rest.size() : end + 1);
    rest.remove_prefix(line.size());
    auto token = security::wrap_record(engine, line);
    if (!token) return make_error(token.error());
    out += code + (rest.empty() ? " " : "-") + protocol::encode_base64(*token) + "\r\n";
  }
  return out;
}

Result<std::string> unprotect_token(security::TlsEngine& engine, std::span<const char> token) {
  return security::unwrap_records(engine, token);
}

}  // namespace gridftp::transport
