#include "server/session/control_security.hpp"

#include <catch2/catch.hpp>

namespace gridftp::server {
namespace {

using security::DataProtection;

TEST_CASE("ControlSecurity starts clear: DCAU N, PROT C, no exchange", "[session][security]") {
  const ControlSecurity state;
  CHECK(state.dcau == 'N');
  CHECK(state.protection == DataProtection::Clear);
  CHECK_FALSE(state.has_exchange());
  CHECK(state.label() == "none");
}

TEST_CASE("A protected control channel counts as an exchange done", "[session][security]") {
  ControlSecurity state;
  state.gsi_protected = true;
  CHECK(state.has_exchange());
}

TEST_CASE("ControlSecurity labels a GSI session by DCAU and PROT", "[session][security]") {
  const auto [protection, prot] =
      GENERATE(std::pair{DataProtection::Clear, "C"}, std::pair{DataProtection::Safe, "S"},
               std::pair{DataProtection::Private, "P"});
  ControlSecurity state;
  state.gsi_protected = true;
  state.dcau = 'A';
  state.protection = protection;
  CHECK(state.label() == std::string("dcau=A prot=") + prot);
}

TEST_CASE("Without a protected control channel the label is none", "[session][security]") {
  ControlSecurity state;
  state.dcau = 'S';  // not reachable without GSI, but the label follows the channel
  CHECK(state.label() == "none");
}

TEST_CASE("PROT forgets the data security built for the old level", "[session][security]") {
  ControlSecurity state;
  state.data_security = std::make_shared<const DataSecurity>();
  state.set_protection(DataProtection::Private);
  CHECK(state.protection == DataProtection::Private);
  CHECK_FALSE(state.data_security);
}

TEST_CASE("DCAU forgets the data security built for the old mode", "[session][security]") {
  ControlSecurity state;
  state.data_security = std::make_shared<const DataSecurity>();
  state.set_dcau('S', "/O=Grid/CN=peer");
  CHECK(state.dcau == 'S');
  CHECK(state.dcau_subject == "/O=Grid/CN=peer");
  CHECK_FALSE(state.data_security);

  state.data_security = std::make_shared<const DataSecurity>();
  state.set_dcau('N', {});
  CHECK(state.dcau == 'N');
  CHECK(state.dcau_subject.empty());
  CHECK_FALSE(state.data_security);
}

}  // namespace
}  // namespace gridftp::server
