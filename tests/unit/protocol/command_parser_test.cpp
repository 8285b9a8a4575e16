#include "protocol/control/command_parser.hpp"

#include <string>
#include <string_view>

#include <catch2/catch.hpp>

#include "protocol/control/command.hpp"
#include "protocol/core/errors.hpp"

using gridftp::protocol::Errc;
using gridftp::protocol::control::find_verb;
using gridftp::protocol::control::parse_command;
using gridftp::protocol::control::Verb;
using gridftp::protocol::control::verb_name;

namespace {

// Every enumerator, first to last (command.hpp).
constexpr Verb kAllVerbs[] = {
    Verb::User, Verb::Pass, Verb::Acct, Verb::Quit, Verb::Noop, Verb::Syst, Verb::Feat, Verb::Opts,
    Verb::Help, Verb::Stat, Verb::Type, Verb::Mode, Verb::Stru, Verb::Pasv, Verb::Epsv, Verb::Port,
    Verb::Eprt, Verb::Spas, Verb::Spor, Verb::Retr, Verb::Stor, Verb::Appe, Verb::Eret, Verb::Esto,
    Verb::Rest, Verb::Abor, Verb::Allo, Verb::Size, Verb::Mdtm, Verb::Mfmt, Verb::Mlst, Verb::Mlsd,
    Verb::List, Verb::Nlst, Verb::Cwd,  Verb::Cdup, Verb::Pwd,  Verb::Mkd,  Verb::Rmd,  Verb::Dele,
    Verb::Rnfr, Verb::Rnto, Verb::Site, Verb::Auth, Verb::Adat, Verb::Pbsz, Verb::Prot, Verb::Dcau,
    Verb::Sbuf, Verb::Cksm, Verb::Trev, Verb::Lang,
};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

TEST_CASE("parse_command splits verb and argument", "[control][command_parser]") {
  const auto command = parse_command("RETR file.txt");
  REQUIRE(command.has_value());
  CHECK(command->verb == Verb::Retr);
  CHECK(command->argument == "file.txt");
}

TEST_CASE("parse_command verb without argument gives an empty argument",
          "[control][command_parser]") {
  const auto command = parse_command("PWD");
  REQUIRE(command.has_value());
  CHECK(command->verb == Verb::Pwd);
  CHECK(command->argument.empty());
}

TEST_CASE("parse_command matches verbs case-insensitively", "[control][command_parser]") {
  const std::string spelling = GENERATE("noop", "NOOP", "Noop", "nOoP");
  const auto command = parse_command(spelling);
  REQUIRE(command.has_value());
  CHECK(command->verb == Verb::Noop);
}

TEST_CASE("parse_command keeps argument spaces exactly", "[control][command_parser]") {
  const std::string argument =
      GENERATE(std::string("my file.txt"), std::string("  two leading"), std::string("trailing  "),
               std::string(" "), std::string("a\tb"), std::string("x  y   z"));
  const auto command = parse_command("STOR " + argument);
  REQUIRE(command.has_value());
  CHECK(command->verb == Verb::Stor);
  CHECK(command->argument == argument);
}

TEST_CASE("parse_command: verb followed by one space has an empty argument",
          "[control][command_parser]") {
  const auto command = parse_command("LIST ");
  REQUIRE(command.has_value());
  CHECK(command->verb == Verb::List);
  CHECK(command->argument.empty());
}

TEST_CASE("parse_command tolerates leading spaces before the verb", "[control][command_parser]") {
  const auto command = parse_command("   CWD dir");
  REQUIRE(command.has_value());
  CHECK(command->verb == Verb::Cwd);
  CHECK(command->argument == "dir");
}

TEST_CASE("parse_command rejects an empty or blank line", "[control][command_parser]") {
  const std::string line = GENERATE(std::string(""), std::string(" "), std::string("     "));
  const auto command = parse_command(line);
  REQUIRE_FALSE(command.has_value());
  CHECK(command.error() == Errc::EmptyCommand);
  CHECK(command.error() == gridftp::Condition::UnknownCommand);
}

TEST_CASE("parse_command rejects unknown verbs", "[control][command_parser]") {
  const std::string line =
      GENERATE(std::string("FOO"), std::string("RETRX a"), std::string("RET a"), std::string("R"),
               std::string("\x01\x02"), std::string("XYZW"), std::string("RETR\tfile"),
               std::string("USER\xFF"));
  const auto command = parse_command(line);
  REQUIRE_FALSE(command.has_value());
  CHECK(command.error() == Errc::UnknownVerb);
  CHECK(command.error() == gridftp::Condition::UnknownCommand);
}

TEST_CASE("parse_command does not accept a verb that differs only by a trailing NUL",
          "[control][command_parser]") {
  const auto command = parse_command(std::string_view("USER\0", 5));
  CHECK_FALSE(command.has_value());
}

TEST_CASE("every verb name round-trips through verb_name and find_verb",
          "[control][command_parser]") {
  for (const Verb verb : kAllVerbs) {
    const auto name = verb_name(verb);
    INFO("verb " << static_cast<int>(verb) << " name " << name);
    CHECK(name != "?");
    CHECK(name.size() >= 3);
    CHECK(name.size() <= 4);
    const auto found = find_verb(name);
    REQUIRE(found.has_value());
    CHECK(*found == verb);
    const auto lowered = find_verb(lower(name));
    REQUIRE(lowered.has_value());
    CHECK(*lowered == verb);
    const auto parsed = parse_command(std::string(name) + " arg");
    REQUIRE(parsed.has_value());
    CHECK(parsed->verb == verb);
    CHECK(parsed->argument == "arg");
  }
}

TEST_CASE("verb names are distinct", "[control][command_parser]") {
  for (const Verb a : kAllVerbs) {
    for (const Verb b : kAllVerbs) {
      if (a != b) CHECK(verb_name(a) != verb_name(b));
    }
  }
}

TEST_CASE("RFC 775 X-aliases map to their verbs and verb_name gives the standard name",
          "[control][command_parser]") {
  auto [alias, verb, standard] = GENERATE(table<std::string, Verb, std::string>({
      {"XPWD", Verb::Pwd, "PWD"},
      {"xpwd", Verb::Pwd, "PWD"},
      {"XCWD", Verb::Cwd, "CWD"},
      {"XCUP", Verb::Cdup, "CDUP"},
      {"XMKD", Verb::Mkd, "MKD"},
      {"XRMD", Verb::Rmd, "RMD"},
  }));
  const auto found = find_verb(alias);
  REQUIRE(found.has_value());
  CHECK(*found == verb);
  CHECK(verb_name(verb) == standard);
  const auto parsed = parse_command(alias);
  REQUIRE(parsed.has_value());
  CHECK(parsed->verb == verb);
}

TEST_CASE("find_verb returns nullopt for unknown, empty and prefix names",
          "[control][command_parser]") {
  const std::string name = GENERATE(std::string(""), std::string("US"), std::string("USERS"),
                                    std::string("XPW"), std::string(" USER"));
  CHECK_FALSE(find_verb(name).has_value());
}
