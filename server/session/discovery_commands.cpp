#include "server/session/discovery_commands.hpp"

#include "protocol/control/feat.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/core/text_case.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;

}  // namespace

DiscoveryCommands::DiscoveryCommands(OfferedFeatures offered, SessionReplies& replies)
    : offered_(offered), replies_(replies) {}

transport::awaitable<void> DiscoveryCommands::on_noop(const std::string&) {
  replies_.send(rc::kCommandOk, "NOOP command successful.");
  co_return;
}

transport::awaitable<void> DiscoveryCommands::on_syst(const std::string&) {
  replies_.send(rc::kSystemType, "UNIX Type: L8");
  co_return;
}

transport::awaitable<void> DiscoveryCommands::on_feat(const std::string&) {
  replies_.send(protocol::control::feat_reply(offered_.gsi, offered_.tls, offered_.udpx));
  co_return;
}

transport::awaitable<void> DiscoveryCommands::on_help(const std::string&) {
  replies_.send(protocol::control::help_reply());
  co_return;
}

transport::awaitable<void> DiscoveryCommands::on_lang(const std::string& argument) {
  if (argument.empty() || protocol::ascii_upper(argument) == "EN") {
    replies_.send(rc::kCommandOk, "Language set to EN.");
  } else {
    replies_.send_error(Condition::ParameterNotImplemented, "Only EN is supported.");
  }
  co_return;
}

}  // namespace gridftp::server
