#include "protocol/core/errors.hpp"

#include <cerrno>
#include <string>

namespace gridftp {
namespace {

class ConditionCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "gridftp"; }
  std::string message(int value) const override {
    switch (static_cast<Condition>(value)) {
      case Condition::NotLoggedIn:
        return "not logged in";
      case Condition::BadSequence:
        return "bad sequence of commands";
      case Condition::BadSyntax:
        return "syntax error in parameters";
      case Condition::UnknownCommand:
        return "unknown command";
      case Condition::NotImplemented:
        return "command not implemented";
      case Condition::ParameterNotImplemented:
        return "parameter not implemented";
      case Condition::NotFound:
        return "no such file or directory";
      case Condition::PermissionDenied:
        return "permission denied";
      case Condition::AlreadyExists:
        return "file exists";
      case Condition::DirectoryNotEmpty:
        return "directory not empty";
      case Condition::NotADirectory:
        return "not a directory";
      case Condition::IsADirectory:
        return "is a directory";
      case Condition::NoSpace:
        return "insufficient storage space";
      case Condition::FileBusy:
        return "file busy";
      case Condition::DataConnection:
        return "data connection failed";
      case Condition::UnexpectedDataPeer:
        return "data connection from an unexpected address";
      case Condition::UnexpectedDataIdentity:
        return "data connection authenticated as another identity";
      case Condition::TransferAborted:
        return "transfer aborted";
      case Condition::ProtectionRequired:
        return "protection required";
      case Condition::LineTooLong:
        return "command line too long";
      case Condition::TooManySessions:
        return "too many sessions";
      case Condition::LoginFailed:
        return "login incorrect";
      case Condition::BadAddress:
        return "illegal address";
      case Condition::UnsupportedNetworkProtocol:
        return "network protocol not supported";
      case Condition::FileNameNotAllowed:
        return "file name not allowed";
      case Condition::TransferFailed:
        return "transfer failed";
      case Condition::DiskStalled:
        return "a disk write stalled past the data timeout";
      case Condition::ServiceClosing:
        return "service closing the control connection";
      case Condition::ProtectionDenied:
        return "command protection level denied";
      case Condition::IntegrityCheckFailed:
        return "protected command failed verification";
      case Condition::NotRegularFile:
        return "not a plain file";
      case Condition::LocalError:
        return "local error";
    }
    return "unknown condition";
  }

  // errno values from storage compare equal to our conditions, so no wrapping is needed.
  bool equivalent(const std::error_code& code, int value) const noexcept override {
    if (code.category() == *this) return code.value() == value;
    if (code.category() == std::generic_category() || code.category() == std::system_category()) {
      switch (code.value()) {
        case ENOENT:
          return value == static_cast<int>(Condition::NotFound);
        case EACCES:
        case EPERM:
        case EROFS:
        case EXDEV:
        case ELOOP:
          return value == static_cast<int>(Condition::PermissionDenied);
        case EEXIST:
          return value == static_cast<int>(Condition::AlreadyExists);
        case ENOTEMPTY:
          return value == static_cast<int>(Condition::DirectoryNotEmpty);
        case ENOTDIR:
          return value == static_cast<int>(Condition::NotADirectory);
        case EISDIR:
          return value == static_cast<int>(Condition::IsADirectory);
        case ENOSPC:
        case EDQUOT:
        case EFBIG:
          return value == static_cast<int>(Condition::NoSpace);
        case ENAMETOOLONG:
        case EINVAL:
          return value == static_cast<int>(Condition::FileNameNotAllowed);
        case ECONNREFUSED:
        case ECONNRESET:
        case EPIPE:
        case ETIMEDOUT:
        case ENETUNREACH:
        case EHOSTUNREACH:
          return value == static_cast<int>(Condition::DataConnection);
        case ECANCELED:
          return value == static_cast<int>(Condition::TransferAborted);
        case EWOULDBLOCK:
        case EBUSY:
          return value == static_cast<int>(Condition::FileBusy);
        default:
          return false;
      }
    }
    return false;
  }
};

}  // namespace

const std::error_category& condition_category() {
  static const ConditionCategory category;
  return category;
}

std::error_condition make_error_condition(Condition c) {
  return {static_cast<int>(c), condition_category()};
}

std::error_code error_code_for(Condition c) { return {static_cast<int>(c), condition_category()}; }

namespace protocol {
namespace {

class ProtocolCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "gridftp.protocol"; }
  std::string message(int value) const override {
    switch (static_cast<Errc>(value)) {
      case Errc::LineTooLong:
        return "command line too long";
      case Errc::EmptyCommand:
        return "empty command";
      case Errc::UnknownVerb:
        return "unknown command";
      case Errc::MissingArgument:
        return "missing argument";
      case Errc::UnexpectedArgument:
        return "unexpected argument";
      case Errc::BadArgument:
        return "bad argument";
      case Errc::BadHostPort:
        return "illegal host-port";
      case Errc::UnsupportedAddressFamily:
        return "unsupported address family";
      case Errc::BadSequence:
        return "bad sequence of commands";
      case Errc::NotLoggedIn:
        return "not logged in";
      case Errc::BadReply:
        return "malformed reply";
      case Errc::PathEscapesRoot:
        return "path escapes the root";
    }
    return "unknown protocol error";
  }

  std::error_condition default_error_condition(int value) const noexcept override {
    switch (static_cast<Errc>(value)) {
      case Errc::LineTooLong:
        return Condition::LineTooLong;
      case Errc::EmptyCommand:
      case Errc::UnknownVerb:
        return Condition::UnknownCommand;
      case Errc::MissingArgument:
      case Errc::UnexpectedArgument:
      case Errc::BadArgument:
      case Errc::BadReply:
        return Condition::BadSyntax;
      case Errc::BadHostPort:
        return Condition::BadAddress;
      case Errc::UnsupportedAddressFamily:
        return Condition::UnsupportedNetworkProtocol;
      case Errc::BadSequence:
        return Condition::BadSequence;
      case Errc::NotLoggedIn:
        return Condition::NotLoggedIn;
      case Errc::PathEscapesRoot:
        return Condition::PermissionDenied;
    }
    return Condition::LocalError;
  }
};

}  // namespace

const std::error_category& protocol_category() {
  static const ProtocolCategory category;
  return category;
}

std::error_code make_error_code(Errc e) { return {static_cast<int>(e), protocol_category()}; }

}  // namespace protocol
}  // namespace gridftp
