#include "protocol/control/session_rules.hpp"

#include <catch2/catch.hpp>

#include "protocol/control/command.hpp"
#include "protocol/core/errors.hpp"

using gridftp::protocol::Errc;
using gridftp::protocol::control::check_allowed;
using gridftp::protocol::control::LoginPhase;
using gridftp::protocol::control::runs_during_transfer;
using gridftp::protocol::control::Verb;

namespace {

constexpr Verb kAllVerbs[] = {
    Verb::User, Verb::Pass, Verb::Acct, Verb::Quit, Verb::Noop, Verb::Syst, Verb::Feat, Verb::Opts,
    Verb::Help, Verb::Stat, Verb::Type, Verb::Mode, Verb::Stru, Verb::Pasv, Verb::Epsv, Verb::Port,
    Verb::Eprt, Verb::Spas, Verb::Spor, Verb::Retr, Verb::Stor, Verb::Appe, Verb::Eret, Verb::Esto,
    Verb::Rest, Verb::Abor, Verb::Allo, Verb::Size, Verb::Mdtm, Verb::Mfmt, Verb::Mlst, Verb::Mlsd,
    Verb::List, Verb::Nlst, Verb::Cwd,  Verb::Cdup, Verb::Pwd,  Verb::Mkd,  Verb::Rmd,  Verb::Dele,
    Verb::Rnfr, Verb::Rnto, Verb::Site, Verb::Auth, Verb::Adat, Verb::Pbsz, Verb::Prot, Verb::Dcau,
    Verb::Sbuf, Verb::Cksm, Verb::Trev, Verb::Lang,
};

bool is_pre_login_verb(Verb verb) {
  switch (verb) {
    case Verb::User:
    case Verb::Pass:
    case Verb::Quit:
    case Verb::Feat:
    case Verb::Syst:
    case Verb::Help:
    case Verb::Noop:
    case Verb::Opts:
    case Verb::Auth:
    case Verb::Adat:
    case Verb::Pbsz:
    case Verb::Prot:
    case Verb::Lang:
      return true;
    default:
      return false;
  }
}

}  // namespace

TEST_CASE("check_allowed lets every verb run once logged in", "[control][session_rules]") {
  for (const Verb verb : kAllVerbs) {
    INFO("verb " << static_cast<int>(verb));
    CHECK(check_allowed(verb, LoginPhase::LoggedIn).has_value());
  }
}

TEST_CASE("check_allowed refuses file and data commands before login with NotLoggedIn",
          "[control][session_rules]") {
  const Verb verb =
      GENERATE(Verb::Retr, Verb::Stor, Verb::List, Verb::Nlst, Verb::Mlsd, Verb::Cwd, Verb::Pwd,
               Verb::Dele, Verb::Mkd, Verb::Rnfr, Verb::Pasv, Verb::Port, Verb::Eprt, Verb::Epsv,
               Verb::Site, Verb::Size, Verb::Eret, Verb::Esto, Verb::Spas, Verb::Spor, Verb::Cksm,
               Verb::Type, Verb::Stat, Verb::Abor);
  const LoginPhase phase = GENERATE(LoginPhase::AwaitingUser, LoginPhase::AwaitingPassword);
  const auto allowed = check_allowed(verb, phase);
  REQUIRE_FALSE(allowed.has_value());
  CHECK(allowed.error() == Errc::NotLoggedIn);
  CHECK(allowed.error() == gridftp::Condition::NotLoggedIn);
}

TEST_CASE("check_allowed lets login, security and discovery verbs run before login",
          "[control][session_rules]") {
  const Verb verb =
      GENERATE(Verb::User, Verb::Quit, Verb::Feat, Verb::Syst, Verb::Help, Verb::Noop, Verb::Opts,
               Verb::Auth, Verb::Adat, Verb::Pbsz, Verb::Prot, Verb::Lang);
  const LoginPhase phase = GENERATE(LoginPhase::AwaitingUser, LoginPhase::AwaitingPassword);
  CHECK(check_allowed(verb, phase).has_value());
}

TEST_CASE("check_allowed: PASS before USER is a bad sequence", "[control][session_rules]") {
  const auto allowed = check_allowed(Verb::Pass, LoginPhase::AwaitingUser);
  REQUIRE_FALSE(allowed.has_value());
  CHECK(allowed.error() == Errc::BadSequence);
  CHECK(allowed.error() == gridftp::Condition::BadSequence);
}

TEST_CASE("check_allowed: PASS after USER is allowed", "[control][session_rules]") {
  CHECK(check_allowed(Verb::Pass, LoginPhase::AwaitingPassword).has_value());
}

TEST_CASE("check_allowed table: every verb in every pre-login phase", "[control][session_rules]") {
  for (const Verb verb : kAllVerbs) {
    for (const LoginPhase phase : {LoginPhase::AwaitingUser, LoginPhase::AwaitingPassword}) {
      INFO("verb " << static_cast<int>(verb) << " phase " << static_cast<int>(phase));
      const auto allowed = check_allowed(verb, phase);
      if (verb == Verb::Pass && phase == LoginPhase::AwaitingUser) {
        CHECK(allowed.error() == Errc::BadSequence);
      } else if (is_pre_login_verb(verb)) {
        CHECK(allowed.has_value());
      } else {
        CHECK(allowed.error() == Errc::NotLoggedIn);
      }
    }
  }
}

TEST_CASE("SITE UDPX runs during a transfer, other SITE commands wait",
          "[control][session_rules]") {
  using gridftp::protocol::control::Command;
  using gridftp::protocol::control::Verb;
  CHECK(runs_during_transfer(Command{Verb::Site, "UDPX RATE 100M"}));
  CHECK(runs_during_transfer(Command{Verb::Site, "udpx STAT"}));
  CHECK_FALSE(runs_during_transfer(Command{Verb::Site, "UDPXRATE"}));
  CHECK_FALSE(runs_during_transfer(Command{Verb::Site, "SETNETSTACK udpx"}));
  CHECK_FALSE(runs_during_transfer(Command{Verb::Retr, "UDPX x"}));
  CHECK(runs_during_transfer(Command{Verb::Abor, ""}));
}

TEST_CASE("runs_during_transfer is true only for ABOR, STAT and NOOP", "[control][session_rules]") {
  for (const Verb verb : kAllVerbs) {
    INFO("verb " << static_cast<int>(verb));
    const bool expected = verb == Verb::Abor || verb == Verb::Stat || verb == Verb::Noop;
    CHECK(runs_during_transfer(verb) == expected);
  }
}
