#include "protocol/mode_e/eod_tracker.hpp"

#include "protocol/mode_e/mode_e_errors.hpp"

namespace gridftp::protocol::mode_e {

Result<void> EodTracker::on_eod() {
  if (expected_ && eods_received_ >= *expected_) {
    return make_error(make_error_code(Errc::TooManyEods));
  }
  ++eods_received_;
  return {};
}

Result<void> EodTracker::on_eof(std::uint64_t expected) {
  if (expected_) {
    if (*expected_ != expected) return make_error(make_error_code(Errc::ConflictingEofCount));
    return {};
  }
  if (eods_received_ > expected) return make_error(make_error_code(Errc::TooManyEods));
  if (expected == 0 && saw_data_) return make_error(make_error_code(Errc::DataAfterLastEod));
  expected_ = expected;
  return {};
}

Result<void> EodTracker::on_data() {
  if (is_complete()) return make_error(make_error_code(Errc::DataAfterLastEod));
  saw_data_ = true;
  return {};
}

}  // namespace gridftp::protocol::mode_e
