#include "client/data/data_security_plan.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

using gridftp::client::data_security_commands;
using gridftp::client::DataSecurityLevel;
using gridftp::client::DataSecurityState;
using gridftp::security::DataProtection;
using Commands = std::vector<std::string>;

TEST_CASE("gsiftp defaults send only PBSZ, once", "[gsi]") {
  // docs/WIRE.md §1.5: on gsiftp defaults only PBSZ 1048576; DCAU A and PROT C are in force.
  DataSecurityState state;
  CHECK(data_security_commands(state, DataSecurityLevel{}) == Commands{"PBSZ 1048576"});
  CHECK(data_security_commands(state, DataSecurityLevel{}).empty());
}

TEST_CASE("The -nodcau flag sends DCAU N and nothing else", "[gsi]") {
  DataSecurityState state;
  CHECK(data_security_commands(state, {false, DataProtection::Clear}) == Commands{"DCAU N"});
  CHECK_FALSE(state.level.authenticate);
  CHECK(data_security_commands(state, {false, DataProtection::Clear}).empty());
}

TEST_CASE("The -dcsafe and -dcpriv flags send PBSZ then PROT", "[gsi]") {
  DataSecurityState state;
  CHECK(data_security_commands(state, {true, DataProtection::Safe}) ==
        Commands{"PBSZ 1048576", "PROT S"});
  CHECK(data_security_commands(state, {true, DataProtection::Private}) == Commands{"PROT P"});
  CHECK(data_security_commands(state, {true, DataProtection::Private}).empty());
  CHECK(data_security_commands(state, {true, DataProtection::Clear}) == Commands{"PROT C"});
}

TEST_CASE("Leaving PROT P for DCAU N clears protection first, and DCAU A comes back", "[gsi]") {
  DataSecurityState state;
  (void)data_security_commands(state, {true, DataProtection::Private});
  CHECK(data_security_commands(state, {false, DataProtection::Clear}) ==
        Commands{"PROT C", "DCAU N"});
  CHECK(data_security_commands(state, {true, DataProtection::Clear}) == Commands{"DCAU A"});
}
