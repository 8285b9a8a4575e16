#include "protocol/mode_e/mode_e_errors.hpp"

#include <string>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol::mode_e {
namespace {

class ModeECategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "gridftp.mode_e"; }

  std::string message(int value) const override {
    switch (static_cast<Errc>(value)) {
      case Errc::UnknownDescriptor:
        return "unknown MODE E descriptor bits";
      case Errc::SuspectData:
        return "MODE E block marked suspect by the sender";
      case Errc::RestartBlock:
        return "MODE E restart-marker block is not allowed";
      case Errc::OffsetOutOfRange:
        return "MODE E block offset out of range";
      case Errc::DataAfterClose:
        return "data after MODE E CLOSE";
      case Errc::ConflictingEofCount:
        return "conflicting MODE E EOF counts";
      case Errc::TooManyEods:
        return "more MODE E EODs than the EOF count";
      case Errc::DataAfterLastEod:
        return "MODE E data after the last EOD";
      case Errc::BadBlockSize:
        return "MODE E block size must be positive";
      case Errc::TooManyConnections:
        return "the sender opened too many data connections";
      case Errc::IncompleteTransfer:
        return "a data connection ended before all data arrived";
    }
    return "unknown MODE E error";
  }

  // The peer broke the data stream: the transfer fails (451), the control session goes on.
  // BadBlockSize is ours or the client's OPTS value, so it reads as a syntax problem.
  std::error_condition default_error_condition(int value) const noexcept override {
    switch (static_cast<Errc>(value)) {
      case Errc::UnknownDescriptor:
      case Errc::SuspectData:
      case Errc::RestartBlock:
      case Errc::OffsetOutOfRange:
      case Errc::DataAfterClose:
      case Errc::ConflictingEofCount:
      case Errc::TooManyEods:
      case Errc::DataAfterLastEod:
        return Condition::TransferFailed;
      case Errc::BadBlockSize:
        return Condition::BadSyntax;
      case Errc::TooManyConnections:
      case Errc::IncompleteTransfer:
        return Condition::DataConnection;
    }
    return Condition::LocalError;
  }
};

}  // namespace

const std::error_category& mode_e_category() {
  static const ModeECategory category;
  return category;
}

std::error_code make_error_code(Errc e) { return {static_cast<int>(e), mode_e_category()}; }

}  // namespace gridftp::protocol::mode_e
