#include "client/copy/retry_policy.hpp"

#include <algorithm>

#include "protocol/core/errors.hpp"

namespace gridftp::client {

std::optional<Clock::duration> next_retry_delay(const RetryPolicy& policy, unsigned failures,
                                                Clock::duration since_first_failure) {
  if (!policy.enabled || failures == 0) {
    return std::nullopt;
  }
  if (policy.max_retries != 0 && failures > policy.max_retries) {
    return std::nullopt;
  }
  if (policy.timeout != Clock::duration::zero() && since_first_failure >= policy.timeout) {
    return std::nullopt;
  }
  if (policy.interval != Clock::duration::zero()) {
    return policy.interval;
  }
  // 1 s, 2 s, 4 s, ... capped; the shift is bounded so it cannot overflow.
  const unsigned doublings = std::min(failures - 1, 16U);
  return std::min<Clock::duration>(kFirstBackoff * (1LL << doublings), kMaxBackoff);
}

bool is_worth_retrying(std::error_code error, std::optional<int> reply_code) {
  if (reply_code) {
    return *reply_code < 500;
  }
  if (error == protocol::Errc::BadArgument || error == protocol::Errc::NotLoggedIn) {
    return false;
  }
  if (error.category() == std::generic_category() || error.category() == std::system_category()) {
    const auto condition = error.default_error_condition();
    for (const auto permanent :
         {std::errc::no_such_file_or_directory, std::errc::permission_denied,
          std::errc::is_a_directory, std::errc::not_a_directory, std::errc::read_only_file_system,
          std::errc::operation_not_permitted, std::errc::invalid_argument}) {
      if (condition == permanent) {
        return false;
      }
    }
  }
  return true;
}

std::optional<Clock::duration> RetryCounter::failed(std::error_code error,
                                                    std::optional<int> reply_code,
                                                    Clock::time_point now) {
  if (++failures_ == 1) first_failure_ = now;
  if (!is_worth_retrying(error, reply_code)) return std::nullopt;
  return next_retry_delay(policy_, failures_, now - first_failure_);
}

}  // namespace gridftp::client
