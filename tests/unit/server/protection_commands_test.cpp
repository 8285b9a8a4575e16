// ProtectionCommands without a session: PBSZ PROT DCAU on a ControlSecurity of their own, as a
// clear session, a GSI one and an FTPS one would leave it, replies recorded, with at least one
// bad input per verb (RFC 2228 §3, RFC 4217 §9, GFD.20 §3.6). A refused command leaves the
// data-channel settings as they were.
#include "server/session/protection_commands.hpp"

#include <string>

#include <catch2/catch.hpp>

#include "tests/unit/server/part_test_support.hpp"

namespace gridftp::server::testing {
namespace {

using P = ProtectionCommands;
using security::DataProtection;

struct Protection {
  enum class Exchange { None, Gsi, Ftps };
  explicit Protection(Exchange exchange = Exchange::None) {
    security.gsi_protected = exchange == Exchange::Gsi;
    security.ftps = exchange == Exchange::Ftps;
    if (security.gsi_protected) security.dcau = 'A';  // what finish_gsi() leaves (GFD.20)
  }

  protocol::control::Reply run(transport::awaitable<void> (P::*handler)(const std::string&),
                               const std::string& argument = "") {
    run_handler((commands.*handler)(argument));
    return replies.take();
  }

  ControlSecurity security;
  StreamCache cached_streams;
  RecordingReplies replies;
  ProtectionCommands commands{security, cached_streams, replies};
};

TEST_CASE("ProtectionCommands PBSZ echoes the size asked for", "[session][protection]") {
  Protection protection;
  const auto reply = protection.run(&P::on_pbsz, "16384");
  CHECK(reply.code == 200);
  CHECK(reply.lines.front() == "PBSZ=16384");
  // An absurd size is not a reason to refuse: TLS bounds its records anyway. The echo is cut.
  CHECK(protection.run(&P::on_pbsz, std::string(100, '9')).lines.front() ==
        "PBSZ=" + std::string(16, '9'));
}

TEST_CASE("ProtectionCommands PROT C is all a session without security gets",
          "[session][protection]") {
  Protection protection;
  CHECK(protection.run(&P::on_prot, "C").code == 200);
  for (const char* level : {"S", "P"}) {
    INFO(level);
    CHECK(protection.run(&P::on_prot, level).code == 536);
  }
  const auto unknown = protection.run(&P::on_prot, "E");
  CHECK(unknown.code == 536);
  CHECK(unknown.lines.front() == "Protection level E not supported.");
  CHECK(protection.security.protection == DataProtection::Clear);
}

TEST_CASE("ProtectionCommands PROT S and P after GSI set the data channels' level",
          "[session][protection]") {
  Protection protection(Protection::Exchange::Gsi);
  const auto safe = protection.run(&P::on_prot, "s");
  CHECK(safe.code == 200);
  CHECK(safe.lines.front() == "Protection level set to S.");
  CHECK(protection.security.protection == DataProtection::Safe);
  CHECK(protection.run(&P::on_prot, "P").code == 200);
  CHECK(protection.security.protection == DataProtection::Private);
  CHECK(protection.security.label() == "dcau=A prot=P");
  CHECK(protection.run(&P::on_prot, "X").code == 536);  // bad level: unchanged
  CHECK(protection.security.protection == DataProtection::Private);
  CHECK(protection.run(&P::on_prot, "C").code == 200);
  CHECK(protection.security.protection == DataProtection::Clear);
}

TEST_CASE("ProtectionCommands PROT after AUTH TLS takes P but not S", "[session][protection]") {
  Protection protection(Protection::Exchange::Ftps);
  CHECK(protection.run(&P::on_prot, "P").code == 200);
  CHECK(protection.security.label() == "ftps prot=P");
  CHECK(protection.run(&P::on_prot, "S").code == 536);  // RFC 4217 §9: no integrity-only level
  CHECK(protection.security.protection == DataProtection::Private);
}

TEST_CASE("ProtectionCommands DCAU after GSI takes N, A and S with a subject",
          "[session][protection]") {
  Protection protection(Protection::Exchange::Gsi);
  const auto none = protection.run(&P::on_dcau, "N");
  CHECK(none.code == 200);
  CHECK(none.lines.front() == "DCAU N.");
  CHECK(protection.security.dcau == 'N');
  CHECK(protection.run(&P::on_dcau, "a").code == 200);
  CHECK(protection.security.dcau == 'A');
  CHECK(protection.run(&P::on_dcau, "S /O=Grid/CN=peer").code == 200);
  CHECK(protection.security.dcau == 'S');
  CHECK(protection.security.dcau_subject == "/O=Grid/CN=peer");
}

TEST_CASE("ProtectionCommands DCAU refuses bad modes, stray arguments and a missing subject",
          "[session][protection]") {
  Protection protection(Protection::Exchange::Gsi);
  const auto stray = protection.run(&P::on_dcau, "N please");
  CHECK(stray.code == 501);
  CHECK(stray.lines.front() == "DCAU N takes no argument.");
  const auto no_subject = protection.run(&P::on_dcau, "S");
  CHECK(no_subject.code == 501);
  CHECK(no_subject.lines.front() == "DCAU S needs a subject.");
  CHECK(protection.run(&P::on_dcau, "NONE").lines.front() == "Bad DCAU mode.");
  CHECK(protection.run(&P::on_dcau, "").code == 501);
  CHECK(protection.security.dcau == 'A');  // unchanged
}

TEST_CASE("ProtectionCommands DCAU A and S need a GSI session", "[session][protection]") {
  Protection protection;
  const auto reply = protection.run(&P::on_dcau, "A");
  CHECK(reply.code == 504);
  CHECK(reply.lines.front() == "DCAU A needs a GSI session.");
  CHECK(protection.run(&P::on_dcau, "S /CN=x").code == 504);
  CHECK(protection.run(&P::on_dcau, "N").code == 200);  // clear is always allowed
  CHECK(protection.security.label() == "none");
}

}  // namespace
}  // namespace gridftp::server::testing
