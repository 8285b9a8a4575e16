// Verb → handler, one row per verb (style: commands are data, not an if/else chain). A row names
// a handler of the part that owns the command (LoginCommands for USER, PASS, ACCT and QUIT,
// NamespaceCommands for CWD and its kin,
// DataSetupCommands for PASV and its kin, TransferParameterCommands for TYPE and its kin,
// ProtectionCommands for DCAU, PROT and PBSZ, DiscoveryCommands for FEAT and its kin,
// ChecksumCommands for CKSM, TransferCommands for RETR and its kin), or a ControlSession member for
// the control channel's own commands (AUTH, ADAT) and STAT and SITE.
#pragma once

#include <string>
#include <type_traits>

#include "protocol/control/command.hpp"
#include "server/session/control_session.hpp"

namespace gridftp::server {

// Runs one command's handler on `session` or on one of its parts.
using CommandHandler = transport::awaitable<void> (*)(ControlSession& session,
                                                      const std::string& argument);

// The part of a session that the handlers of `Part` run on.
inline ControlSession& part_of(ControlSession& session, std::type_identity<ControlSession>) {
  return session;
}
inline LoginCommands& part_of(ControlSession& session, std::type_identity<LoginCommands>) {
  return session.login_commands();
}
inline NamespaceCommands& part_of(ControlSession& session, std::type_identity<NamespaceCommands>) {
  return session.namespace_commands();
}
inline DataSetupCommands& part_of(ControlSession& session, std::type_identity<DataSetupCommands>) {
  return session.data_setup_commands();
}
inline TransferParameterCommands& part_of(ControlSession& session,
                                          std::type_identity<TransferParameterCommands>) {
  return session.transfer_parameters();
}
inline ProtectionCommands& part_of(ControlSession& session,
                                   std::type_identity<ProtectionCommands>) {
  return session.protection_commands();
}
inline TransferCommands& part_of(ControlSession& session, std::type_identity<TransferCommands>) {
  return session.transfer_commands();
}
inline ChecksumCommands& part_of(ControlSession& session, std::type_identity<ChecksumCommands>) {
  return session.checksum_commands();
}
inline DiscoveryCommands& part_of(ControlSession& session, std::type_identity<DiscoveryCommands>) {
  return session.discovery_commands();
}

template <typename Method>
struct HandlerPart;
template <typename Part>
struct HandlerPart<transport::awaitable<void> (Part::*)(const std::string&)> {
  using type = Part;
};

// The CommandHandler for `Method`, a handler member of ControlSession or of one of its parts:
// `handled_by<&NamespaceCommands::on_cwd>`.
template <auto Method>
transport::awaitable<void> handled_by(ControlSession& session, const std::string& argument) {
  using Part = typename HandlerPart<decltype(Method)>::type;
  return (part_of(session, std::type_identity<Part>{}).*Method)(argument);
}

// Null when the verb is known but not served by this server.
CommandHandler handler_for(protocol::control::Verb verb);

}  // namespace gridftp::server
