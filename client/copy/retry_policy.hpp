// -rst, -rst-retries, -rst-interval, -rst-timeout: when a failed file is tried again, with
// globus-url-copy's meanings (guc -help, GCT 6.2): retries 0 means no limit (default 5),
// interval 0 means exponential back-off (the default), timeout 0 means none. Also which failures
// are worth another try. Pure: time comes in as arguments.
#pragma once

#include <chrono>
#include <optional>
#include <system_error>

#include "client/clock.hpp"

namespace gridftp::client {

struct RetryPolicy {
  bool enabled = false;        // -rst
  unsigned max_retries = 5;    // -rst-retries; 0: no limit
  Clock::duration interval{};  // -rst-interval; zero: exponential back-off
  Clock::duration timeout{};   // -rst-timeout; zero: keep trying while retries remain
};

// The first exponential delay and its ceiling (guc leaves the curve to its restart plugin; these
// keep a run against a restarting server short without hammering it).
inline constexpr Clock::duration kFirstBackoff = std::chrono::seconds(1);
inline constexpr Clock::duration kMaxBackoff = std::chrono::seconds(60);

// How long to wait before attempt number `failures + 1`, after `failures` failed attempts
// (>= 1), the first of which was `since_first_failure` ago; nullopt: give up.
std::optional<Clock::duration> next_retry_delay(const RetryPolicy& policy, unsigned failures,
                                                Clock::duration since_first_failure);

// False for failures another attempt cannot fix: a permanent (5xx) server refusal, a local file
// that is missing or forbidden, a bad argument, a refused login. Connection and data errors,
// timeouts and 4xx replies are worth retrying. `reply_code` is the refusing reply's code, when
// the failure was a refusal.
bool is_worth_retrying(std::error_code error, std::optional<int> reply_code);

// The failed attempts of one file (or one batch) under `policy`: the two rules above together,
// with the count and the time of the first failure kept here.
class RetryCounter {
 public:
  explicit RetryCounter(RetryPolicy policy) : policy_(policy) {}
  // Counts a failed attempt that ended at `now` with `error` (`reply_code` as for
  // is_worth_retrying); returns the wait before the next attempt, or nullopt to give up.
  std::optional<Clock::duration> failed(std::error_code error, std::optional<int> reply_code,
                                        Clock::time_point now);

 private:
  RetryPolicy policy_;
  unsigned failures_ = 0;
  Clock::time_point first_failure_{};
};

}  // namespace gridftp::client
