#include "client/flag_spelling.hpp"

#include <catch2/catch.hpp>

using gridftp::client::is_single_dash_long_flag;
using gridftp::client::normalize_flag_spelling;

TEST_CASE("normalize_flag_spelling doubles the dash of known long flags", "[client][cli]") {
  const auto out = normalize_flag_spelling(
      {"gridcp", "-vb", "-dbg", "-tcp-bs", "1048576", "-p", "4", "ftp://h/a", "/tmp/b"});
  const std::vector<std::string> expected{"gridcp", "--vb", "--dbg",     "--tcp-bs", "1048576",
                                          "-p",     "4",    "ftp://h/a", "/tmp/b"};
  CHECK(out == expected);
}

TEST_CASE("normalize_flag_spelling keeps an attached value", "[client][cli]") {
  CHECK(normalize_flag_spelling({"-bs=65536"}) == std::vector<std::string>{"--bs=65536"});
}

TEST_CASE("normalize_flag_spelling leaves unknown and short words alone", "[client][cli]") {
  const auto out = normalize_flag_spelling({"-q", "-v", "-xyz", "--vb", "-", "vb", "-f"});
  CHECK(out == std::vector<std::string>{"-q", "-v", "-xyz", "--vb", "-", "vb", "-f"});
}

TEST_CASE("normalize_flag_spelling stops at --", "[client][cli]") {
  const auto out = normalize_flag_spelling({"-vb", "--", "-vb"});
  CHECK(out == std::vector<std::string>{"--vb", "--", "-vb"});
}

TEST_CASE("is_single_dash_long_flag knows the table", "[client][cli]") {
  CHECK(is_single_dash_long_flag("list"));
  CHECK(is_single_dash_long_flag("tcp-bs"));
  CHECK_FALSE(is_single_dash_long_flag("p"));
  CHECK_FALSE(is_single_dash_long_flag(""));
}

TEST_CASE("normalize_flag_spelling knows the gsiftp data-channel flags", "[client][cli]") {
  // globus-url-copy -help: -nodcau | -no-data-channel-authentication, -dcsafe |
  // -data-channel-safe, -dcpriv | -data-channel-private.
  const auto out =
      normalize_flag_spelling({"-nodcau", "-dcsafe", "-dcpriv", "-no-data-channel-authentication",
                               "-data-channel-safe", "-data-channel-private"});
  CHECK(out == std::vector<std::string>{"--nodcau", "--dcsafe", "--dcpriv",
                                        "--no-data-channel-authentication", "--data-channel-safe",
                                        "--data-channel-private"});
}

TEST_CASE("normalize_flag_spelling takes gridcp's own flags with one dash too", "[client][cli]") {
  CHECK(normalize_flag_spelling({"-json", "-no-progress"}) ==
        std::vector<std::string>{"--json", "--no-progress"});
}
