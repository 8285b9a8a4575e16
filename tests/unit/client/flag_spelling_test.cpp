#include "client/flag_spelling.hpp"

#include <catch2/catch.hpp>

using gridftp::client::classify_flag_word;
using gridftp::client::FlagKind;
using gridftp::client::spell_flags;

namespace {
std::vector<std::string> spelled(const std::vector<std::string_view>& words) {
  auto out = spell_flags(words);
  REQUIRE(out.error.empty());
  return out.arguments;
}
std::string refusal(const std::vector<std::string_view>& words) {
  auto out = spell_flags(words);
  CHECK(out.arguments.empty());
  return out.error;
}
}  // namespace

TEST_CASE("spell_flags doubles the dash of multi-letter flags", "[client][cli]") {
  const auto out =
      spelled({"gridcp", "-vb", "-dbg", "-tcp-bs", "1048576", "-p", "4", "ftp://h/a", "/tmp/b"});
  const std::vector<std::string> expected{"gridcp", "--vb", "--dbg",     "--tcp-bs", "1048576",
                                          "-p",     "4",    "ftp://h/a", "/tmp/b"};
  CHECK(out == expected);
}

TEST_CASE("spell_flags keeps an attached value", "[client][cli]") {
  CHECK(spelled({"-bs=65536"}) == std::vector<std::string>{"--bs=65536"});
  CHECK(spelled({"-p=4"}) == std::vector<std::string>{"-p", "4"});
}

TEST_CASE("spell_flags passes values, '-', two-dash words and everything after --",
          "[client][cli]") {
  CHECK(spelled({"-q", "-v", "--vb", "-", "vb", "-f", "-list.txt"}) ==
        std::vector<std::string>{"-q", "-v", "--vb", "-", "vb", "-f", "-list.txt"});
  CHECK(spelled({"-vb", "--", "-vb", "-rp"}) ==
        std::vector<std::string>{"--vb", "--", "-vb", "-rp"});
  CHECK(spelled({"-ss", "/O=Grid/CN=host/a", "--bogus"}) ==
        std::vector<std::string>{"--ss", "/O=Grid/CN=host/a", "--bogus"});
}

TEST_CASE("spell_flags refuses an unknown one-dash word whole", "[client][cli]") {
  // CLI11 alone would read "-rx" as "-r -x" and "-vr" as "-v -r".
  CHECK(refusal({"-xyz", "a", "b"}) == "unknown option -xyz (gridcp --help lists the options)");
  CHECK(refusal({"-vr"}).starts_with("unknown option -vr "));
  CHECK(refusal({"-vb", "-foo=1"}).starts_with("unknown option -foo "));
  CHECK(refusal({"-p4"}).starts_with("unknown option -p4 "));
}

TEST_CASE("spell_flags refuses globus-url-copy flags gridcp lacks, by name, with the reason",
          "[client][cli]") {
  CHECK(refusal({"-rp"}) ==
        "option -rp is not supported: URL paths are always taken from the server's root");
  CHECK(refusal({"-udt"}).starts_with("option -udt is not supported: no UDT"));
  CHECK(refusal({"-mn", "posix"}).starts_with("option -mn is not supported: "));
  CHECK(refusal({"-DP", "cat"}).starts_with("option -DP is not supported: "));
  CHECK(refusal({"--udt"}).starts_with("option --udt is not supported: "));
}

TEST_CASE("spell_flags takes globus-url-copy's striping flags", "[client][cli][stripe]") {
  CHECK(spelled({"-stripe", "-sbs", "0", "a", "b"}) ==
        std::vector<std::string>{"--stripe", "--sbs", "0", "a", "b"});
  CHECK(spelled({"-striped-block-size", "256K"}) ==
        std::vector<std::string>{"--striped-block-size", "256K"});
}

TEST_CASE("spell_flags catches a missing or unwanted value", "[client][cli]") {
  CHECK(refusal({"a", "b", "-tcp-bs"}) == "option -tcp-bs needs a value");
  CHECK(refusal({"-vb=1"}) == "option -vb takes no value");
}

TEST_CASE("classify_flag_word knows globus-url-copy's flags and gridcp's own", "[client][cli]") {
  CHECK(classify_flag_word("tcp-bs").kind == FlagKind::Accepted);
  CHECK(classify_flag_word("tcp-bs").takes_value);
  CHECK(classify_flag_word("ss").kind == FlagKind::Accepted);
  CHECK(classify_flag_word("ipv6").kind == FlagKind::Accepted);
  CHECK_FALSE(classify_flag_word("ipv6").takes_value);
  CHECK(classify_flag_word("json").kind == FlagKind::Accepted);
  CHECK(classify_flag_word("dp").kind == FlagKind::Accepted);
  CHECK(classify_flag_word("DP").kind == FlagKind::Refused);  // -dst-pipe, not -dp
  CHECK_FALSE(classify_flag_word("udt").reason.empty());
  CHECK(classify_flag_word("rp").kind == FlagKind::Refused);
  CHECK(classify_flag_word("").kind == FlagKind::Unknown);
  CHECK(classify_flag_word("Vb").kind == FlagKind::Unknown);
}
