#include "server/session/protection_commands.hpp"

#include <algorithm>

#include "protocol/control/reply_codes.hpp"
#include "protocol/core/base64.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/core/text_case.hpp"
#include "security/credential.hpp"
#include "security/key_pool.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;

}  // namespace

ProtectionCommands::ProtectionCommands(ControlSecurity& security, StreamCache& cached_streams,
                                       SessionReplies& replies)
    : security_(security), cached_streams_(cached_streams), replies_(replies) {}

transport::awaitable<void> ProtectionCommands::on_pbsz(const std::string& argument) {
  // Echoed as Globus does; TLS caps records at 16 KiB whatever the client asks (docs/WIRE.md §5.6).
  replies_.send(rc::kCommandOk, "PBSZ=" + argument.substr(0, 16));
  co_return;
}

transport::awaitable<void> ProtectionCommands::on_prot(const std::string& argument) {
  const auto level = protocol::ascii_upper(argument);
  auto protection = security::DataProtection::Clear;
  if (level == "C") {
    protection = security::DataProtection::Clear;
  } else if (level == "P" && security_.ftps) {
    protection = security::DataProtection::Private;
  } else if ((level == "S" || level == "P") &&
             (security_.gsi_protected || !security_.frontend.empty())) {
    protection = level == "S" ? security::DataProtection::Safe : security::DataProtection::Private;
  } else if (level == "S" || level == "P") {
    replies_.send_error(Condition::ProtectionRequired);  // no security exchange, no keys
    co_return;
  } else {
    replies_.send_error(Condition::ProtectionRequired,
                        "Protection level " + level.substr(0, 8) + " not supported.");
    co_return;
  }
  cached_streams_.drop();  // cached connections were set up at the old level
  security_.set_protection(protection);
  replies_.send(rc::kCommandOk, "Protection level set to " + level + ".");
}

transport::awaitable<void> ProtectionCommands::on_dcau(const std::string& argument) {
  // GFD.20: "N", "A" or "S <subject>"; a word that merely starts with one of them is not one.
  const auto mode = protocol::ascii_upper(argument.substr(0, argument.find(' ')));
  std::string subject;
  if ((mode == "N" || mode == "A") && argument.size() > 1) {
    replies_.send_error(Condition::BadSyntax, "DCAU " + mode + " takes no argument.");
    co_return;
  }
  if (mode == "N") {
    // Clear data channels: no identity to check.
  } else if ((mode == "A" || mode == "S") &&
             (security_.gsi_protected || !security_.frontend.empty())) {
    if (mode == "S") subject = argument.substr(std::min<std::size_t>(argument.size(), 2));
    if (mode == "S" && subject.empty()) {
      replies_.send_error(Condition::BadSyntax, "DCAU S needs a subject.");
      co_return;
    }
  } else if (mode == "A" || mode == "S") {
    replies_.send_error(Condition::ParameterNotImplemented,
                        "DCAU " + mode + " needs a GSI session.");
    co_return;
  } else {
    replies_.send_error(Condition::BadSyntax, "Bad DCAU mode.");
    co_return;
  }
  cached_streams_.drop();  // cached connections authenticated under the old mode
  security_.set_dcau(mode[0], std::move(subject));
  replies_.send(rc::kCommandOk, "DCAU " + mode + ".");
}

void ProtectionCommands::on_site_stripe_cred(const std::string& argument) {
  if (security_.frontend.empty()) {
    replies_.send_error(Condition::UnknownCommand, "Command not supported.");
    return;
  }
  if (argument != "END") {
    // The PEM comes in pieces, each within the command line limit.
    if (pending_credential_.size() + argument.size() > kMaxCredentialText) {
      security::wipe_secret(pending_credential_);
      pending_credential_.clear();
      replies_.send_error(Condition::BadSyntax, "Credential too long.");
      return;
    }
    pending_credential_ += argument;
    replies_.send(rc::kCommandOk, "Credential part taken.");
    return;
  }
  auto pem = protocol::decode_base64(pending_credential_);
  security::wipe_secret(pending_credential_);
  pending_credential_.clear();
  auto credential = pem ? security::credential_from_pem(std::string_view(
                              reinterpret_cast<const char*>(pem->data()), pem->size()))
                        : Result<security::Credential>(make_error(pem.error()));
  if (pem) security::wipe_secret(*pem);
  if (!credential) {
    replies_.send_error(Condition::BadSyntax,
                        "Credential not readable: " + credential.error().message() + ".");
    return;
  }
  security_.delegated = std::move(*credential);
  security_.data_security.reset();
  cached_streams_.drop();
  replies_.send(rc::kCommandOk, "Credential taken.");
}

}  // namespace gridftp::server
