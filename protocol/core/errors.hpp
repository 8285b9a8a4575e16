// Error codes of the protocol layer and the conditions every layer maps onto. The conditions are
// what reply_for_error() turns into FTP replies; errno values compare equal to them too, so storage
// errors need no wrapping.
#pragma once

#include <system_error>

namespace gridftp {

// What went wrong, as far as the FTP reply is concerned.
enum class Condition {
  NotLoggedIn = 1,
  BadSequence,
  BadSyntax,
  UnknownCommand,
  NotImplemented,
  ParameterNotImplemented,
  NotFound,
  PermissionDenied,
  AlreadyExists,
  DirectoryNotEmpty,
  NotADirectory,
  IsADirectory,
  NoSpace,
  FileBusy,
  DataConnection,
  UnexpectedDataPeer,
  UnexpectedDataIdentity,  // DCAU A/S: the data connection authenticated as someone else
  TransferAborted,
  ProtectionRequired,
  LineTooLong,
  TooManySessions,
  LoginFailed,
  BadAddress,
  UnsupportedNetworkProtocol,
  FileNameNotAllowed,
  TransferFailed,
  DiskStalled,           // a disk write outlasted the data timeout (the data connection was closed)
  ServiceClosing,        // the server ends the session itself (shutdown, idle, failed logins)
  ProtectionDenied,      // RFC 2228: a cleartext command once the control channel is protected
  IntegrityCheckFailed,  // RFC 2228: a protected command whose token does not verify
  NotRegularFile,        // a file that is not a plain file where one is needed (SIZE, MODE E)
  LocalError,            // the last enumerator: reply_for_error's fallback
};

const std::error_category& condition_category();
std::error_condition make_error_condition(Condition c);
// An error code that is exactly a condition, for failures with no more specific cause.
std::error_code error_code_for(Condition c);

namespace protocol {

// Errors raised by the pure parsers and state machines.
enum class Errc {
  LineTooLong = 1,
  EmptyCommand,
  UnknownVerb,
  MissingArgument,
  UnexpectedArgument,
  BadArgument,
  BadHostPort,
  UnsupportedAddressFamily,
  BadSequence,
  NotLoggedIn,
  BadReply,
  PathEscapesRoot,
};

const std::error_category& protocol_category();
std::error_code make_error_code(Errc e);

}  // namespace protocol
}  // namespace gridftp

template <>
struct std::is_error_condition_enum<gridftp::Condition> : std::true_type {};
template <>
struct std::is_error_code_enum<gridftp::protocol::Errc> : std::true_type {};
