// AUTH, ADAT, ENC/MIC: the control channel's security (RFC 2228 with Globus's GSI mechanism,
// RFC 4217, docs/WIRE.md §5), and the data channels' security that DCAU and PROT chose.
#include <spdlog/spdlog.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/core/base64.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/core/text_case.hpp"
#include "server/session/control_session.hpp"
#include "server/striping/frontend_admission.hpp"
#include "transport/deadline.hpp"
#include "transport/handshake_driver.hpp"
#include "transport/protected_lines.hpp"
#include "transport/tls_stream.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;

// Runs one ADAT step on the blocking pool: a delegation request means an RSA key generation,
// which must not hold an I/O thread.
// (co_spawn needs a default-constructible result, which Result is not.)
struct StepOutcome {
  std::string token;
  std::error_code error;
};

transport::awaitable<StepOutcome> step_handshake(security::GsiHandshake* handshake,
                                                 std::vector<std::uint8_t> token) {
  auto out = handshake->step({reinterpret_cast<const char*>(token.data()), token.size()});
  if (!out) co_return StepOutcome{{}, out.error()};
  co_return StepOutcome{std::move(*out), {}};
}

}  // namespace

bool ControlSession::security_required() const {
  // A mover's session is inside the TLS its frontend opened it with.
  if (!security_.frontend.empty()) return false;
  return (services_.gsi != nullptr && !services_.config.anonymous.enabled) ||
         services_.config.tls.required;
}

transport::awaitable<void> ControlSession::on_auth(const std::string& argument) {
  const auto mechanism = protocol::ascii_upper(argument);
  if (security_.has_exchange()) {
    send_error(Condition::BadSequence, "Security exchange already done or in progress.");
    co_return;
  }
  if ((mechanism == "TLS" || mechanism == "SSL" || mechanism == "TLS-C") &&
      services_.ftps != nullptr) {
    auto engine =
        security::TlsEngine::create(services_.ftps.get(), security::TlsEngine::Role::Server);
    if (!engine) {
      send_error(engine.error());
      co_return;
    }
    send(rc::kSecurityExchangeDone, "Using authentication type TLS; begin the TLS handshake.");
    // The 234 goes out in the clear, then the handshake runs through the driver every socket
    // handshake shares. The command reader waits for this handler, so nothing else reads the
    // socket meanwhile; the login timeout (watch_idle) closes a peer that stalls.
    co_await replies_.wait_until_drained(
        std::chrono::seconds(services_.config.timeouts.login_seconds));
    security::TlsHandshake handshake(std::move(*engine));
    auto leftover = co_await transport::drive_handshake(*control_, handshake, /*initiator=*/false);
    if (!leftover) {
      log_->warn("{} TLS on the control channel failed: {} {}", tag(), leftover.error().message(),
                 handshake.engine().last_error());
      close_after_replies();
      co_return;
    }
    // From here every command and reply passes through TLS inside the control stream; a
    // command the client sent right behind its Finished is in `leftover`.
    control_ = std::make_unique<transport::TlsStream>(
        std::move(control_), std::move(handshake.engine()), std::move(*leftover));
    replies_.use_stream(*control_);
    security_.ftps = true;
    co_return;
  }
  if (mechanism != "GSSAPI" || services_.gsi == nullptr) {
    send_error(Condition::ParameterNotImplemented, "Unknown authentication type.");
    co_return;
  }
  security::GsiOptions options;
  options.accept_delegation = true;
  options.delegation_keys = services_.delegation_keys;
  auto handshake = security::GsiHandshake::create(services_.gsi->control.get(),
                                                  security::GsiHandshake::Role::Server, options);
  if (!handshake) {
    log_->error("{} cannot start GSI: {}", tag(), handshake.error().message());
    send_error(handshake.error());
    co_return;
  }
  security_.gsi.emplace(std::move(*handshake));
  send(rc::kSecurityDataNeeded, "Using authentication type; ADAT must follow.");
}

transport::awaitable<bool> ControlSession::accept_frontend() {
  if (services_.gsi == nullptr) {
    log_->error("{} mover: no host credential ([gsi] enabled = false)", tag());
    co_return false;
  }
  security::GsiOptions options;
  options.ssl_compatible = true;  // plain TLS, both certificates checked
  auto handshake = security::GsiHandshake::create(services_.gsi->control.get(),
                                                  security::GsiHandshake::Role::Server, options);
  if (!handshake) {
    log_->error("{} mover: cannot start TLS: {}", tag(), handshake.error().message());
    co_return false;
  }
  // A peer that stalls in the handshake is closed by the login timeout.
  auto watch = std::make_shared<transport::Deadline>(executor_);
  watch->expires_after(std::chrono::seconds(services_.config.timeouts.login_seconds));
  transport::start_watch(watch, [stream = control_.get()] { stream->close(); });
  auto leftover = co_await transport::drive_handshake(*control_, *handshake, /*initiator=*/false);
  watch->stop();
  if (!leftover) {
    log_->warn("{} mover: TLS from {} failed: {} {}", tag(), peer_address_,
               leftover.error().message(), handshake->engine().last_error());
    co_return false;
  }
  const auto& peer = handshake->peer_identity();
  if (!striping::is_allowed_frontend(peer, services_.config.striping.frontends,
                                     security::identity(services_.gsi->host))) {
    log_->warn("{} mover: refused \"{}\" from {}: not a frontend of this mover", tag(), peer,
               peer_address_);
    co_return false;
  }
  security_.frontend = peer;
  control_ = std::make_unique<transport::TlsStream>(
      std::move(control_), std::move(handshake->engine()), std::move(*leftover));
  replies_.use_stream(*control_);
  log_->info("{} mover: frontend \"{}\"", tag(), peer);
  co_return true;
}

void ControlSession::fail_authentication(const std::error_code& ec, std::string detail) {
  log_->warn("{} GSI authentication failed: {}{}{}", tag(), ec.message(),
             detail.empty() ? "" : ": ", detail);
  security_.gsi.reset();
  std::vector<std::string> lines{"Authentication failed: " + ec.message() + "."};
  if (!detail.empty()) lines.push_back(std::move(detail));
  lines.emplace_back("End.");
  send_error(Condition::LoginFailed, std::move(lines));
}

transport::awaitable<void> ControlSession::on_adat(const std::string& argument) {
  if (security_.gsi_protected) {
    send_error(Condition::BadSequence, "Security exchange already done.");
    co_return;
  }
  if (!security_.gsi || argument.empty()) {  // as Globus answers both
    security_.gsi.reset();
    send_error(Condition::NotLoggedIn, "Must perform GSSAPI authentication.");
    co_return;
  }
  auto token = protocol::decode_base64(argument);
  if (!token) {
    fail_authentication(token.error(), "ADAT argument is not base64");
    co_return;
  }
  const auto step = co_await asio::co_spawn(services_.blocking_pool,
                                            step_handshake(&*security_.gsi, std::move(*token)),
                                            transport::use_awaitable);
  if (step.error) {
    fail_authentication(step.error, security_.gsi->engine().last_error());
    co_return;
  }
  const std::string* reply = &step.token;
  if (!security_.gsi->complete()) {
    // An empty token means a record is still incomplete: Globus answers the same way.
    send(rc::kSecurityDataContinue, "ADAT=" + protocol::encode_base64(*reply));
    co_return;
  }
  security_.finish_gsi();
  log_->info("{} GSI authenticated dn=\"{}\" delegated={} tls={} cipher={}", tag(),
             security_.peer_dn, security_.delegated ? "yes" : "no",
             security_.gsi->engine().protocol_version(), security_.gsi->engine().cipher_name());
  if (reply->empty()) {
    send(rc::kSecurityExchangeComplete, "GSSAPI Authentication successful.");
  } else {
    send(rc::kSecurityExchangeComplete, "ADAT=" + protocol::encode_base64(*reply));
  }
  security_.gsi_protected = true;  // after the 235 is queued: it goes out in the clear
}

transport::awaitable<void> ControlSession::execute_protected(
    const protocol::control::Command& command) {
  auto token = protocol::decode_base64(command.argument);
  if (!token) {
    send_error(Condition::BadSyntax, "Protected command is not base64.");
    co_return;
  }
  auto plain = transport::unprotect_token(
      security_.gsi->engine(), {reinterpret_cast<const char*>(token->data()), token->size()});
  if (!plain) {
    // The TLS stream is broken (bad MAC, replay, truncation): nothing after it can be trusted.
    log_->warn("{} protected command failed verification: {}", tag(),
               security_.gsi->engine().last_error());
    security_.gsi_protected = false;  // the reply cannot be wrapped any more
    send_error(Condition::IntegrityCheckFailed, "Failed to verify protected command; closing.");
    close_after_replies();
    co_return;
  }
  // One token may carry several CRLF-terminated commands; an unterminated tail is one too.
  std::string_view rest(*plain);
  while (!rest.empty() && !replies_.is_closing()) {
    const auto end = rest.find('\n');
    std::string line(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    co_await execute_plain(line);
  }
}

std::string ControlSession::protect_reply(const std::string& formatted) {
  auto protected_lines = transport::protect_reply(security_.gsi->engine(), formatted);
  if (!protected_lines) {
    log_->error("{} cannot wrap reply: {}", tag(), protected_lines.error().message());
    close_after_replies();
    return {};
  }
  return std::move(*protected_lines);
}

}  // namespace gridftp::server
