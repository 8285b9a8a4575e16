// AUTH, ADAT, ENC/MIC, PBSZ, PROT, DCAU: the control channel's security (RFC 2228 with Globus's
// GSI mechanism, docs/WIRE.md §5) and the data channels' protection settings.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/core/base64.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/core/text_case.hpp"
#include "server/process/session_process.hpp"
#include "server/session/control_session.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;
using protocol::control::LoginPhase;

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
  return (services_.gsi != nullptr && !services_.config.anonymous.enabled) ||
         services_.config.tls.required;
}

Result<std::string> ControlSession::ftps_decrypt(std::span<const char> received) {
  auto plain = security::unwrap_records(*ftps_, received);
  queue_raw(ftps_->take_output());  // handshake flights (TLS 1.3 answers them inside read)
  return plain;
}

transport::awaitable<void> ControlSession::on_auth(const std::string& argument) {
  const auto mechanism = protocol::ascii_upper(argument);
  if (protected_ || gsi_ || ftps_) {
    send(rc::kBadSequence, "Security exchange already done or in progress.");
    co_return;
  }
  if ((mechanism == "TLS" || mechanism == "SSL" || mechanism == "TLS-C") &&
      services_.ftps != nullptr) {
    auto engine = security::TlsEngine::create(services_.ftps, security::TlsEngine::Role::Server);
    if (!engine) {
      send_error(engine.error());
      co_return;
    }
    send(rc::kSecurityExchangeDone, "Using authentication type TLS; begin the TLS handshake.");
    ftps_.emplace(std::move(*engine));  // after the 234 is queued: it goes out in the clear
    co_return;
  }
  if (mechanism != "GSSAPI" || services_.gsi == nullptr) {
    send(rc::kParameterNotImplemented, "Unknown authentication type.");
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
  gsi_.emplace(std::move(*handshake));
  send(rc::kSecurityDataNeeded, "Using authentication type; ADAT must follow.");
}

void ControlSession::fail_authentication(const std::error_code& ec, std::string detail) {
  log_->warn("{} GSI authentication failed: {}{}{}", tag(), ec.message(),
             detail.empty() ? "" : ": ", detail);
  gsi_.reset();
  protocol::control::Reply reply{rc::kNotLoggedIn,
                                 {"Authentication failed: " + ec.message() + "."}};
  if (!detail.empty()) reply.lines.push_back(detail);
  reply.lines.emplace_back("End.");
  send(std::move(reply));
}

transport::awaitable<void> ControlSession::on_adat(const std::string& argument) {
  if (protected_) {
    send(rc::kBadSequence, "Security exchange already done.");
    co_return;
  }
  if (!gsi_ || argument.empty()) {  // as Globus answers both
    gsi_.reset();
    send(rc::kNotLoggedIn, "Must perform GSSAPI authentication.");
    co_return;
  }
  auto token = protocol::decode_base64(argument);
  if (!token) {
    fail_authentication(token.error(), "ADAT argument is not base64");
    co_return;
  }
  const auto step = co_await asio::co_spawn(
      services_.blocking_pool, step_handshake(&*gsi_, std::move(*token)), transport::use_awaitable);
  if (step.error) {
    fail_authentication(step.error, gsi_->engine().last_error());
    co_return;
  }
  const std::string* reply = &step.token;
  if (!gsi_->complete()) {
    // An empty token means a record is still incomplete: Globus answers the same way.
    send(rc::kSecurityDataContinue, "ADAT=" + protocol::encode_base64(*reply));
    co_return;
  }
  peer_dn_ = gsi_->peer_identity();
  delegated_ = gsi_->take_delegated_credential();
  dcau_ = 'A';  // GFD.20: the default once the session is authenticated
  log_->info("{} GSI authenticated dn=\"{}\" delegated={} tls={} cipher={}", tag(), peer_dn_,
             delegated_ ? "yes" : "no", gsi_->engine().protocol_version(),
             gsi_->engine().cipher_name());
  if (reply->empty()) {
    send(rc::kSecurityExchangeComplete, "GSSAPI Authentication successful.");
  } else {
    send(rc::kSecurityExchangeComplete, "ADAT=" + protocol::encode_base64(*reply));
  }
  protected_ = true;  // after the 235 is queued: it goes out in the clear
}

transport::awaitable<void> ControlSession::execute_protected(
    const protocol::control::Command& command) {
  auto token = protocol::decode_base64(command.argument);
  if (!token) {
    send(rc::kParameterSyntaxError, "Protected command is not base64.");
    co_return;
  }
  auto plain = security::unwrap_records(
      gsi_->engine(), {reinterpret_cast<const char*>(token->data()), token->size()});
  if (!plain) {
    // The TLS stream is broken (bad MAC, replay, truncation): nothing after it can be trusted.
    log_->warn("{} protected command failed verification: {}", tag(), gsi_->engine().last_error());
    protected_ = false;  // the reply cannot be wrapped any more
    send(rc::kIntegrityCheckFailed, "Failed to verify protected command; closing.");
    close_after_replies();
    co_return;
  }
  // One token may carry several CRLF-terminated commands; an unterminated tail is one too.
  std::string_view rest(*plain);
  while (!rest.empty() && !close_when_drained_) {
    const auto end = rest.find('\n');
    std::string line(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    co_await execute_plain(line);
  }
}

std::string ControlSession::protect_reply(const std::string& formatted) {
  const bool encrypts = gsi_->engine().encrypts();
  const std::string code = std::to_string(encrypts ? rc::kPrivateReply : rc::kSafeReply);
  std::string out;
  std::string_view rest(formatted);
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    const auto line = rest.substr(0, end == std::string_view::npos ? rest.size() : end + 1);
    rest.remove_prefix(line.size());
    auto token = security::wrap_record(gsi_->engine(), line);
    if (!token) {
      log_->error("{} cannot wrap reply: {}", tag(), token.error().message());
      close_after_replies();
      break;
    }
    out += code + (rest.empty() ? " " : "-") + protocol::encode_base64(*token) + "\r\n";
  }
  return out;
}

transport::awaitable<void> ControlSession::gsi_login(const std::string&) {
  const std::string user = pending_user_;
  phase_ = LoginPhase::AwaitingUser;
  auto context = auth::map_gsi_user(*services_.gsi, peer_dn_, user);
  if (!context) {
    log_->warn("{} gridmap has no mapping dn=\"{}\" user={}", tag(), peer_dn_, user);
    send(protocol::control::Reply{
        rc::kNotLoggedIn,
        {"Login incorrect. : Gridmap lookup failure: Could not map " + peer_dn_, "End."}});
    co_return;
  }
  if (services_.config.gsi.process_per_session && ::geteuid() == 0) {
    // This is a session process (see server/process): from here on we are the user.
    if (auto became = become_account(context->name); !became) {
      log_->error("{} cannot become account {}: {}", tag(), context->name,
                  became.error().message());
      send(rc::kNotLoggedIn, "Login failed: cannot switch to the mapped account.");
      co_return;
    }
  }
  auto storage = storage::PosixStorage::open(context->root, context->writable_areas);
  if (!storage) {
    log_->error("{} cannot open root {} for user={}: {}", tag(), context->root.string(),
                context->name, storage.error().message());
    send(rc::kNotLoggedIn, "Login failed: home directory unavailable.");
    co_return;
  }
  if (!services_.registry.try_login(context->name)) {
    send(rc::kNotLoggedIn, "Too many sessions for this user.");
    co_return;
  }
  counted_login_ = true;
  storage_.emplace(std::move(*storage));
  user_ = std::move(*context);
  phase_ = LoginPhase::LoggedIn;
  touch_idle();
  log_->info("{} login user={} dn=\"{}\"", tag(), user_->name, peer_dn_);
  send(rc::kLoggedIn, "User " + user_->name + " logged in.");
}

Result<std::shared_ptr<const DataSecurity>> ControlSession::data_security() {
  if (ftps_) {
    if (protection_ == security::DataProtection::Clear)
      return std::shared_ptr<const DataSecurity>{};
    if (!data_security_) data_security_ = make_ftps_data_security(services_.ftps);
    return data_security_;
  }
  if (dcau_ == 'N') {
    if (protection_ != security::DataProtection::Clear)
      return make_error(error_code_for(Condition::ProtectionRequired));
    return std::shared_ptr<const DataSecurity>{};
  }
  if (data_security_) return data_security_;
  if (!delegated_ || services_.gsi == nullptr) {
    // Globus fails the same way: DCAU A/S authenticate with the credential the client delegated.
    log_->warn("{} DCAU {} needs a delegated credential; the client did not delegate", tag(),
               dcau_);
    return make_error(error_code_for(Condition::DataConnection));
  }
  auto made = make_data_security(*delegated_, services_.gsi->trust.get(), protection_,
                                 services_.gsi->config.integrity_only_safe,
                                 dcau_ == 'A' ? security::identity(*delegated_) : dcau_subject_);
  if (!made) return make_error(made.error());
  data_security_ = *made;
  return data_security_;
}

std::string ControlSession::security_label() const {
  const char* prot = protection_ == security::DataProtection::Private ? "P"
                     : protection_ == security::DataProtection::Safe  ? "S"
                                                                      : "C";
  if (ftps_) return std::string("ftps prot=") + prot;
  if (!protected_) return "none";
  return std::string("dcau=") + dcau_ + " prot=" + prot;
}

transport::awaitable<void> ControlSession::on_pbsz(const std::string& argument) {
  // Echoed as Globus does; TLS caps records at 16 KiB whatever the client asks (docs/WIRE.md §5.6).
  send(rc::kCommandOk, "PBSZ=" + argument.substr(0, 16));
  co_return;
}

transport::awaitable<void> ControlSession::on_prot(const std::string& argument) {
  const auto level = protocol::ascii_upper(argument);
  if (level == "C") {
    protection_ = security::DataProtection::Clear;
  } else if (level == "P" && ftps_) {
    protection_ = security::DataProtection::Private;
  } else if ((level == "S" || level == "P") && protected_) {
    protection_ = level == "S" ? security::DataProtection::Safe : security::DataProtection::Private;
  } else if (level == "S" || level == "P") {
    send_error(error_code_for(Condition::ProtectionRequired));  // no security exchange, no keys
    co_return;
  } else {
    send(rc::kProtectionLevelDenied, "Protection level " + level.substr(0, 8) + " not supported.");
    co_return;
  }
  drop_cached_streams();  // cached connections were set up at the old level
  data_security_.reset();
  send(rc::kCommandOk, "Protection level set to " + level + ".");
}

transport::awaitable<void> ControlSession::on_dcau(const std::string& argument) {
  const auto mode = protocol::ascii_upper(argument.substr(0, 1));
  if (mode == "N") {
    dcau_ = 'N';
  } else if ((mode == "A" || mode == "S") && protected_) {
    std::string subject =
        mode == "S" ? argument.substr(std::min<std::size_t>(argument.size(), 2)) : "";
    if (mode == "S" && subject.empty()) {
      send(rc::kParameterSyntaxError, "DCAU S needs a subject.");
      co_return;
    }
    dcau_ = mode[0];
    dcau_subject_ = std::move(subject);
  } else if (mode == "A" || mode == "S") {
    send(rc::kParameterNotImplemented, "DCAU " + mode + " needs a GSI session.");
    co_return;
  } else {
    send(rc::kParameterSyntaxError, "Bad DCAU mode.");
    co_return;
  }
  drop_cached_streams();
  data_security_.reset();
  send(rc::kCommandOk, "DCAU " + mode + ".");
}

}  // namespace gridftp::server
