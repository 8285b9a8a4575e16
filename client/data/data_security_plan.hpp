// Which DCAU, PBSZ and PROT commands a gsiftp session needs before its next data connection, as
// globus-url-copy sends them (docs/WIRE.md §1.5, §5.6): nothing for the defaults after AUTH (DCAU
// A, PROT C) except PBSZ, `DCAU N` for -nodcau, `PROT S`/`PROT P` for -dcsafe/-dcpriv; a setting
// already in force is not sent again. Pure; Session sends them.
#pragma once

#include <string>
#include <vector>

#include "security/tls_contexts.hpp"

namespace gridftp::client {

// What the user asked for with -nodcau / -dcsafe / -dcpriv.
struct DataSecurityLevel {
  bool authenticate = true;  // DCAU A; false is DCAU N
  security::DataProtection protection = security::DataProtection::Clear;
  friend bool operator==(const DataSecurityLevel&, const DataSecurityLevel&) = default;
};

// What a GSI session has in force: GFD.20 makes DCAU A and PROT C the defaults after AUTH.
struct DataSecurityState {
  DataSecurityLevel level;
  bool buffer_size_sent = false;  // PBSZ
  friend bool operator==(const DataSecurityState&, const DataSecurityState&) = default;
};

// guc sends this PBSZ on every authenticated gsiftp transfer; it does not change GSI framing.
inline constexpr const char* kProtectionBufferCommand = "PBSZ 1048576";

// The commands, in order, that take a session from `current` to `wanted`; `current` becomes
// the state after them. PROT S/P need DCAU, so leaving them for DCAU N sends PROT C first.
std::vector<std::string> data_security_commands(DataSecurityState& current,
                                                const DataSecurityLevel& wanted);

// 'C', 'S' or 'P', as PROT spells the level.
char protection_letter(security::DataProtection protection);

}  // namespace gridftp::client
