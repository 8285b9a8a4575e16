#include "protocol/batch/batch_errors.hpp"

#include <string>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol::batch {
namespace {

class BatchCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "gridftp.batch"; }

  std::string message(int value) const override {
    switch (static_cast<Errc>(value)) {
      case Errc::BadMagic:
        return "the data is not a gridftpd batch stream";
      case Errc::UnknownRecord:
        return "unknown batch record type";
      case Errc::BadPath:
        return "batch record names a path outside the batch";
      case Errc::LengthOutOfRange:
        return "batch file length out of range";
      case Errc::ChecksumMismatch:
        return "batch file checksum mismatch";
      case Errc::DataAfterEnd:
        return "data after the end of the batch";
      case Errc::WrongCounts:
        return "the batch end record disagrees with what arrived";
      case Errc::Truncated:
        return "the batch stream ended early";
    }
    return "unknown batch error";
  }

  // A broken batch stream fails the transfer (451); a path that would leave the batch's
  // directory is refused as a file name (553).
  std::error_condition default_error_condition(int value) const noexcept override {
    switch (static_cast<Errc>(value)) {
      case Errc::BadPath:
        return Condition::FileNameNotAllowed;
      case Errc::Truncated:
        return Condition::DataConnection;
      case Errc::BadMagic:
      case Errc::UnknownRecord:
      case Errc::LengthOutOfRange:
      case Errc::ChecksumMismatch:
      case Errc::DataAfterEnd:
      case Errc::WrongCounts:
        return Condition::TransferFailed;
    }
    return Condition::TransferFailed;
  }
};

}  // namespace

const std::error_category& batch_category() {
  static const BatchCategory category;
  return category;
}

std::error_code make_error_code(Errc e) { return {static_cast<int>(e), batch_category()}; }

}  // namespace gridftp::protocol::batch
