#include "client/copy/retry_policy.hpp"

#include <catch2/catch.hpp>

#include "client/session/control_connection.hpp"
#include "protocol/core/errors.hpp"

using gridftp::client::is_worth_retrying;
using gridftp::client::next_retry_delay;
using gridftp::client::RetryPolicy;
using std::chrono::seconds;

TEST_CASE("next_retry_delay gives up without -rst", "[client][restart]") {
  CHECK_FALSE(next_retry_delay(RetryPolicy{}, 1, seconds(0)));
}

TEST_CASE("next_retry_delay honours -rst-retries", "[client][restart]") {
  RetryPolicy policy{true, 2, seconds(3), {}};
  CHECK(next_retry_delay(policy, 1, seconds(0)) == seconds(3));
  CHECK(next_retry_delay(policy, 2, seconds(0)) == seconds(3));
  CHECK_FALSE(next_retry_delay(policy, 3, seconds(0)));
}

TEST_CASE("next_retry_delay with -rst-retries 0 never runs out", "[client][restart]") {
  RetryPolicy policy{true, 0, seconds(1), {}};
  CHECK(next_retry_delay(policy, 1000, seconds(0)) == seconds(1));
}

TEST_CASE("next_retry_delay backs off exponentially with -rst-interval 0", "[client][restart]") {
  RetryPolicy policy{true, 0, {}, {}};
  CHECK(next_retry_delay(policy, 1, seconds(0)) == seconds(1));
  CHECK(next_retry_delay(policy, 2, seconds(0)) == seconds(2));
  CHECK(next_retry_delay(policy, 3, seconds(0)) == seconds(4));
  CHECK(next_retry_delay(policy, 8, seconds(0)) == seconds(60));
  CHECK(next_retry_delay(policy, 4000000000U, seconds(0)) == seconds(60));
}

TEST_CASE("next_retry_delay stops after -rst-timeout", "[client][restart]") {
  RetryPolicy policy{true, 0, seconds(1), seconds(10)};
  CHECK(next_retry_delay(policy, 3, seconds(9)) == seconds(1));
  CHECK_FALSE(next_retry_delay(policy, 3, seconds(10)));
}

TEST_CASE("is_worth_retrying separates permanent failures from passing ones", "[client][restart]") {
  const auto refused = gridftp::client::rejected_reply_error();
  CHECK_FALSE(is_worth_retrying(refused, 550));
  CHECK_FALSE(is_worth_retrying(refused, 553));
  CHECK(is_worth_retrying(refused, 451));
  CHECK(is_worth_retrying(refused, 421));
  CHECK(is_worth_retrying(make_error_code(std::errc::connection_refused), std::nullopt));
  CHECK(is_worth_retrying(make_error_code(std::errc::connection_reset), std::nullopt));
  CHECK(is_worth_retrying(make_error_code(std::errc::timed_out), std::nullopt));
  CHECK_FALSE(
      is_worth_retrying(make_error_code(std::errc::no_such_file_or_directory), std::nullopt));
  CHECK_FALSE(is_worth_retrying(std::error_code(EACCES, std::system_category()), std::nullopt));
  CHECK_FALSE(
      is_worth_retrying(make_error_code(gridftp::protocol::Errc::BadArgument), std::nullopt));
}

TEST_CASE("RetryCounter counts failures from the first one's time", "[client][restart]") {
  const RetryPolicy policy{true, 3, {}, seconds(10)};
  gridftp::client::RetryCounter retries(policy);
  const gridftp::client::Clock::time_point start{};
  const auto broken = make_error_code(std::errc::connection_reset);
  CHECK(retries.failed(broken, std::nullopt, start) == seconds(1));
  CHECK(retries.failed(broken, std::nullopt, start + seconds(2)) == seconds(2));
  // -rst-timeout counts from the first failure, not from the last.
  CHECK_FALSE(retries.failed(broken, std::nullopt, start + seconds(10)));

  gridftp::client::RetryCounter refused(policy);
  CHECK_FALSE(refused.failed(gridftp::client::rejected_reply_error(), 550, start));
  gridftp::client::RetryCounter off(RetryPolicy{});
  CHECK_FALSE(off.failed(broken, std::nullopt, start));
}
