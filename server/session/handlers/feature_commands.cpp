// STAT and SITE (RFC 959 §4.1.3; SITE forms as globus-url-copy sends them).
#include <algorithm>
#include <cctype>

#include <spdlog/spdlog.h>

#include "protocol/control/feat.hpp"
#include "protocol/control/net_stack.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/core/text_case.hpp"
#include "server/session/control_session.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;

}  // namespace

transport::awaitable<void> ControlSession::on_stat(const std::string& argument) {
  if (!argument.empty()) {
    // RFC 959 §4.1.3: STAT with a path is LIST over the control connection.
    if (!namespace_commands_.check_storage_or_reply()) co_return;
    auto listing = transfer_commands_.build_listing(argument, protocol::control::Verb::List);
    if (!listing) co_return;
    std::vector<std::string> lines{"Status of " + argument + ":"};
    std::size_t start = 0;
    while (start < listing->size()) {
      const auto end = listing->find("\r\n", start);
      lines.push_back(" " + listing->substr(start, end - start));
      start = end + 2;
    }
    lines.emplace_back("End of status.");
    send(protocol::control::Reply{rc::kFileStatus, std::move(lines)});
    co_return;
  }
  std::vector<std::string> lines{"GridFTP server status."};
  lines.push_back(" Logged in as " +
                  (login().user() ? login().user()->name : std::string("(nobody)")));
  lines.push_back(std::string(" TYPE: ") + settings().type_name() +
                  ", STRUcture: File, Mode: Stream");
  if (transfer_commands_.running().is_active()) {
    lines.push_back(" Transfer in progress: " +
                    std::to_string(transfer_commands_.running().progress().bytes) + " bytes moved");
  } else {
    lines.push_back(" No data connection");
  }
  lines.emplace_back("End of status.");
  send(protocol::control::Reply{rc::kSystemStatus, std::move(lines)});
  co_return;
}

transport::awaitable<void> ControlSession::on_site(const std::string& argument) {
  const auto space = argument.find(' ');
  const auto name = protocol::ascii_upper(argument.substr(0, space));
  if (name == "HELP") {
    send(protocol::control::site_help_reply());
  } else if (name == "CLIENTINFO") {
    send(rc::kFileActionOk, "OK.");
  } else if (name == "WHOAMI" && login().user()) {
    send(rc::kCommandOk, login().user()->name);
  } else if (name == "UDPX") {
    transfer_commands_.on_site_udpx(space == std::string::npos ? std::string()
                                                               : argument.substr(space + 1));
  } else if (name == "STRIPE" && login().storage()) {
    const auto rest = space == std::string::npos ? std::string() : argument.substr(space + 1);
    if (rest.starts_with("CRED ")) {
      protection_commands_.on_site_stripe_cred(rest.substr(5));
    } else {
      transfer_commands_.on_site_stripe(rest);
    }
  } else if (name == "SETNETSTACK") {
    on_set_net_stack(space == std::string::npos ? std::string() : argument.substr(space + 1));
  } else if (name == "DURABLE" && login().storage()) {
    on_site_durable(space == std::string::npos ? std::string() : argument.substr(space + 1));
  } else if (name == "PARTIALS" && login().storage()) {
    on_site_partials(space == std::string::npos ? std::string() : argument.substr(space + 1));
  } else {
    send_error(Condition::UnknownCommand, "Command not supported.");
  }
  co_return;
}

// SITE DURABLE ON|OFF: this session's next uploads commit durably or not, whatever
// [storage] durable says (docs/STORAGE.md). Without an argument: which it is now.
void ControlSession::on_site_durable(const std::string& argument) {
  const auto word = protocol::ascii_upper(argument);
  if (word == "ON" || word == "OFF") {
    login().storage()->set_durable_uploads(word == "ON");
  } else if (!word.empty()) {
    send_error(Condition::BadSyntax, "SITE DURABLE ON or SITE DURABLE OFF.");
    return;
  }
  send(rc::kCommandOk, login().storage()->durable_uploads()
                           ? "Durable: the final reply of an upload waits for stable storage."
                           : "Not durable: uploads are answered once written to the page cache.");
}

// SITE PARTIALS [dir]: the partial uploads kept for a restart in a directory (the current one
// by default), so their owner can see what holds space and until when.
void ControlSession::on_site_partials(const std::string& argument) {
  const auto path = namespace_commands_.resolve_or_reply(
      argument.empty() ? namespace_commands_.working_directory() : argument);
  if (!path) return;
  auto partials = login().storage()->partial_uploads(*path);
  if (!partials) {
    send_error(partials.error());
    return;
  }
  const auto expiry = login().storage()->partial_expiry().count();
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  std::vector<std::string> lines{
      "Partial uploads in " + *path + ": " + std::to_string(partials->size()) +
      (expiry > 0 ? ", each removed " + std::to_string(expiry) + " s after its last write"
                  : ", kept until restarted or removed")};
  for (const auto& partial : *partials) {
    std::string line = " " + partial.target + " bytes=" + std::to_string(partial.bytes) + " idle=" +
                       std::to_string(std::max<std::int64_t>(0, now - partial.modified_unix)) + "s";
    if (partial.in_use) line += " (being written)";
    lines.push_back(std::move(line));
  }
  lines.emplace_back("End.");
  send(protocol::control::Reply{rc::kCommandOk, std::move(lines)});
}

// docs/UDPX.md §7. A new stack applies to the next PASV/PORT: an address given before it was
// for the other kind of data channel, so it is forgotten.
void ControlSession::on_set_net_stack(const std::string& stack) {
  namespace control = protocol::control;
  const auto parsed = control::parse_net_stack(stack);
  if (const auto* chosen = std::get_if<control::NetStack>(&parsed)) {
    stream_cache_.drop();
    data_channel_.cancel();
    if (chosen->kind == control::NetStackKind::Tcp) {
      udpx_.disable();
      send(rc::kCommandOk, "Data channel network stack set to TCP.");
      return;
    }
    const auto rate = services_.config.udpx.effective_rate(chosen->rate_bps);
    const auto minimum = std::min(chosen->min_bps.value_or(0), rate);
    const auto policy = chosen->policy.value_or(control::Policy::Fair);
    udpx_.disable();
    udpx_.enable(*chosen);
    send(rc::kCommandOk, "Data channel network stack set to UDPX " +
                             control::describe_udpx(rate, minimum, policy) + ".");
    return;
  }
  const auto& error = std::get<control::NetStackError>(parsed);
  switch (error.kind) {
    case control::NetStackError::Kind::UdtRefused:
      send_error(Condition::ParameterNotImplemented,
                 "UDT is not supported: gridftpd's UDP data channel is UDPX; use -dcstack udpx "
                 "instead of -udt.");
      break;
    case control::NetStackError::Kind::UnknownDriver:
      send_error(Condition::ParameterNotImplemented,
                 "Unknown network stack driver '" + error.detail.substr(0, 32) + "'.");
      break;
    case control::NetStackError::Kind::BadOption:
      send_error(Condition::BadSyntax, "Bad udpx option '" + error.detail.substr(0, 32) + "'.");
      break;
  }
}

}  // namespace gridftp::server
