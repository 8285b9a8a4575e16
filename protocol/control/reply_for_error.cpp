#include "protocol/control/reply_for_error.hpp"

#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::protocol::control {

Reply reply_for_error(std::error_code ec) {
  using C = Condition;
  namespace rc = reply_code;
  if (ec == C::NotLoggedIn) return make_reply(rc::kNotLoggedIn, "Please login with USER and PASS.");
  if (ec == C::LoginFailed) return make_reply(rc::kNotLoggedIn, "Login incorrect.");
  if (ec == C::BadSequence) return make_reply(rc::kBadSequence, "Bad sequence of commands.");
  if (ec == C::BadSyntax)
    return make_reply(rc::kParameterSyntaxError, "Syntax error in parameters or arguments.");
  if (ec == C::UnknownCommand) return make_reply(rc::kSyntaxError, "Unknown command.");
  if (ec == C::LineTooLong) return make_reply(rc::kSyntaxError, "Command line too long.");
  if (ec == C::NotImplemented) return make_reply(rc::kNotImplemented, "Command not implemented.");
  if (ec == C::ParameterNotImplemented) {
    return make_reply(rc::kParameterNotImplemented, "Command not implemented for that parameter.");
  }
  if (ec == C::NotFound) return make_reply(rc::kFileUnavailable, "No such file or directory.");
  if (ec == C::PermissionDenied) return make_reply(rc::kFileUnavailable, "Permission denied.");
  if (ec == C::AlreadyExists) return make_reply(rc::kFileNameNotAllowed, "File exists.");
  if (ec == C::DirectoryNotEmpty) return make_reply(rc::kFileUnavailable, "Directory not empty.");
  if (ec == C::NotADirectory) return make_reply(rc::kFileUnavailable, "Not a directory.");
  if (ec == C::IsADirectory) return make_reply(rc::kFileUnavailable, "Is a directory.");
  if (ec == C::FileNameNotAllowed)
    return make_reply(rc::kFileNameNotAllowed, "File name not allowed.");
  if (ec == C::NoSpace) return make_reply(rc::kInsufficientStorage, "Insufficient storage space.");
  if (ec == C::FileBusy)
    return make_reply(rc::kFileUnavailableBusy, "File busy: another transfer is writing it.");
  if (ec == C::DataConnection)
    return make_reply(rc::kCannotOpenData, "Can't open data connection.");
  if (ec == C::UnexpectedDataPeer) {
    return make_reply(rc::kCannotOpenData, "Data connection from an unexpected address refused.");
  }
  if (ec == C::UnexpectedDataIdentity) {
    return make_reply(rc::kCannotOpenData,
                      "Data connection authenticated as another identity; refused.");
  }
  if (ec == C::TransferAborted)
    return make_reply(rc::kTransferAborted, "Connection closed; transfer aborted.");
  if (ec == C::TransferFailed) return make_reply(rc::kLocalError, "Transfer failed.");
  if (ec == C::DiskStalled) {
    return make_reply(rc::kLocalError,
                      "Local error: a disk write stalled past the data timeout; transfer aborted.");
  }
  if (ec == C::ProtectionRequired) {
    return make_reply(rc::kProtectionLevelDenied, "Requested protection level not supported.");
  }
  if (ec == C::TooManySessions)
    return make_reply(rc::kServiceNotAvailable, "Too many sessions; try later.");
  if (ec == C::BadAddress) return make_reply(rc::kParameterSyntaxError, "Illegal PORT command.");
  if (ec == C::UnsupportedNetworkProtocol) {
    return make_reply(rc::kNetworkProtocolNotSupported,
                      "Network protocol not supported, use (1,2).");
  }
  if (ec == C::ServiceClosing) {
    return make_reply(rc::kServiceNotAvailable,
                      "Service not available, closing control connection.");
  }
  if (ec == C::ProtectionDenied) {
    return make_reply(rc::kProtectionDenied,
                      "Command protection level denied for cleartext; use ENC.");
  }
  if (ec == C::IntegrityCheckFailed)
    return make_reply(rc::kIntegrityCheckFailed, "Failed to verify protected command.");
  if (ec == C::NotRegularFile) return make_reply(rc::kFileUnavailable, "Not a plain file.");
  return make_reply(rc::kLocalError, "Local error in processing.");
}

Reply reply_for_error(std::error_code ec, std::string text) {
  return Reply{reply_for_error(ec).code, {std::move(text)}};
}

Reply reply_for_error(std::error_code ec, std::vector<std::string> lines) {
  return Reply{reply_for_error(ec).code, std::move(lines)};
}

}  // namespace gridftp::protocol::control
