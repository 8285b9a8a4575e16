#include "client/auth/gsi_authentication.hpp"

#include "client/auth/server_identity.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/core/base64.hpp"
#include "security/gsi_handshake.hpp"

namespace gridftp::client {

namespace rc = protocol::control::reply_code;
namespace {

// TLS 1.3 with delegation takes four rounds (docs/WIRE.md §5.1); anything far beyond is a loop.
constexpr int kMaxRounds = 16;
constexpr std::string_view kTokenTag = "ADAT=";

class GsiLoginCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "gridcp-gsi"; }
  std::string message(int value) const override {
    switch (static_cast<GsiLoginErrc>(value)) {
      case GsiLoginErrc::WrongHost:
        return "the server's certificate does not name the host in the URL";
      case GsiLoginErrc::WrongSubject:
        return "the server's certificate is not the subject given with -ss, -ds or -s";
      case GsiLoginErrc::TooManyTokens:
        return "the GSI exchange did not finish";
      case GsiLoginErrc::MissingToken:
        return "the server's ADAT reply carries no token";
      case GsiLoginErrc::Unfinished:
        return "the server ended the GSI exchange before it was complete";
    }
    return "unknown GSI login error";
  }
};

// The token of "335 ADAT=<b64>" / "235 ADAT=<b64>": empty when absent, nullopt when malformed.
std::optional<std::string> reply_token(const ParsedReply& reply) {
  const auto text = reply.first_text();
  const auto at = text.find(kTokenTag);
  if (at == std::string_view::npos) {
    return std::string();
  }
  auto encoded = text.substr(at + kTokenTag.size());
  encoded = encoded.substr(0, encoded.find_first_of(" \r\n"));
  auto decoded = protocol::decode_base64(encoded);
  if (!decoded || decoded->empty()) {
    return std::nullopt;
  }
  return std::string(decoded->begin(), decoded->end());
}

// Once the server's chain is known, before anything is delegated to it: is it the server meant?
Result<void> check_server_host(const security::GsiHandshake& handshake,
                               const ExpectedServer& server, bool& checked, std::string& detail) {
  if (checked || handshake.peer_identity().empty()) {
    return {};
  }
  checked = true;
  if (!server_identity_matches(handshake.peer_identity(), server)) {
    detail = server_identity_mismatch(handshake.peer_identity(), server);
    return make_error(make_error_code(server.subject.empty() ? GsiLoginErrc::WrongHost
                                                             : GsiLoginErrc::WrongSubject));
  }
  return {};
}

// AUTH GSSAPI and the first token go before the greeting is read (docs/WIRE.md §1.7); then the
// greeting and AUTH's 334. Errors: the greeting's, AUTH's refusal, the connection's.
Result<void> open_exchange(ControlConnection& control, const std::string& first_token,
                           const std::function<Result<void>()>& read_greeting) {
  for (const auto& command : {std::string("AUTH GSSAPI"), first_token}) {
    if (auto sent = control.send_ahead(command); !sent) {
      return make_error(sent.error());
    }
  }
  if (auto greeted = read_greeting(); !greeted) {
    return make_error(greeted.error());
  }
  auto auth = control.command("AUTH GSSAPI");
  if (!auth) {
    return make_error(auth.error());
  }
  if (auth->code != rc::kSecurityDataNeeded) {
    control.note_failure("AUTH GSSAPI", *auth);
    return make_error(rejected_reply_error());
  }
  return {};
}

// Our last token: nothing more can come for the engine (no tickets, docs/WIRE.md §5.1), and the
// server can only answer a bare 235. That reply is judged when the session next reads one, so
// the login commands and the session's next flight go with the token.
Result<void> send_last_token(ControlConnection& control, const std::string& adat) {
  return control.send_unanswered(adat, [&control](const ParsedReply& reply) -> Result<void> {
    const auto last = reply_token(reply);
    if (reply.code == rc::kSecurityExchangeComplete && last && last->empty()) {
      return {};
    }
    control.note_failure("ADAT", reply);
    return make_error(reply.code == rc::kSecurityExchangeComplete
                          ? make_error_code(GsiLoginErrc::Unfinished)
                          : rejected_reply_error());
  });
}

}  // namespace

const std::error_category& gsi_login_category() {
  static const GsiLoginCategory category;
  return category;
}

std::error_code make_error_code(GsiLoginErrc e) {
  return {static_cast<int>(e), gsi_login_category()};
}

Result<void> authenticate_gsi(ControlConnection& control, const GsiCredentials& credentials,
                              const ExpectedServer& server, std::string& detail,
                              const std::function<Result<void>()>& read_greeting,
                              const std::function<Result<void>(security::TlsEngine)>& on_complete) {
  security::GsiOptions options;
  options.delegate_from = &credentials.credential();
  auto handshake = security::GsiHandshake::create(credentials.control_context().get(),
                                                  security::GsiHandshake::Role::Client, options);
  if (!handshake) {
    return make_error(handshake.error());
  }
  bool handed_over = false;
  bool host_checked = false;
  const auto fail = [&](std::error_code error) -> Result<void> {
    if (detail.empty() && !handed_over && !handshake->engine().last_error().empty()) {
      detail = handshake->engine().last_error();
    }
    return make_error(error);
  };
  // Our side is done: the server's identity is checked once more and the engine goes to the
  // session, whose first commands may then leave before the 235 comes.
  const auto hand_over = [&]() -> Result<void> {
    if (auto named = check_server_host(*handshake, server, host_checked, detail); !named) {
      return fail(named.error());
    }
    handed_over = true;
    return on_complete(std::move(handshake->engine()));
  };
  auto token = handshake->step({});
  if (!token) {
    return fail(token.error());
  }
  if (auto opened =
          open_exchange(control, "ADAT " + protocol::encode_base64(*token), read_greeting);
      !opened) {
    return opened;
  }
  for (int round = 0; round < kMaxRounds; ++round) {
    if (!token) {
      return fail(token.error());
    }
    if (auto named = check_server_host(*handshake, server, host_checked, detail); !named) {
      return fail(named.error());
    }
    if (token->empty() && handshake->complete()) {
      return fail(make_error_code(GsiLoginErrc::Unfinished));  // we are done, the server not
    }
    const std::string adat = "ADAT " + protocol::encode_base64(*token);
    if (round > 0 && handshake->complete()) {
      if (auto sent = send_last_token(control, adat); !sent) {
        return fail(sent.error());
      }
      return hand_over();
    }
    auto reply = control.command(adat);
    if (!reply) {
      return fail(reply.error());
    }
    if (reply->code != rc::kSecurityDataContinue && reply->code != rc::kSecurityExchangeComplete) {
      control.note_failure("ADAT", *reply);
      return fail(rejected_reply_error());
    }
    const auto received = reply_token(*reply);
    if (!received || (reply->code == rc::kSecurityDataContinue && received->empty())) {
      control.note_failure("ADAT", *reply);
      return fail(make_error_code(GsiLoginErrc::MissingToken));
    }
    token = received->empty() ? Result<std::string>(std::string()) : handshake->step(*received);
    if (reply->code == rc::kSecurityExchangeComplete) {
      if (!token || !handshake->complete() || !token->empty()) {
        return fail(token ? make_error_code(GsiLoginErrc::Unfinished) : token.error());
      }
      return hand_over();
    }
  }
  return fail(make_error_code(GsiLoginErrc::TooManyTokens));
}

}  // namespace gridftp::client
