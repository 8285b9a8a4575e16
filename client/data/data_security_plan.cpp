#include "client/data/data_security_plan.hpp"

namespace gridftp::client {

using security::DataProtection;

char protection_letter(DataProtection protection) {
  switch (protection) {
    case DataProtection::Clear:
      return 'C';
    case DataProtection::Safe:
      return 'S';
    case DataProtection::Private:
      return 'P';
  }
  return 'C';
}

std::vector<std::string> data_security_commands(DataSecurityState& current,
                                                const DataSecurityLevel& wanted) {
  std::vector<std::string> commands;
  if (!wanted.authenticate) {
    if (current.level.protection != DataProtection::Clear) {
      commands.emplace_back("PROT C");
      current.level.protection = DataProtection::Clear;
    }
    if (current.level.authenticate) {
      commands.emplace_back("DCAU N");
      current.level.authenticate = false;
    }
    return commands;
  }
  if (!current.level.authenticate) {
    commands.emplace_back("DCAU A");
    current.level.authenticate = true;
  }
  if (!current.buffer_size_sent) {
    commands.emplace_back(kProtectionBufferCommand);
    current.buffer_size_sent = true;
  }
  if (current.level.protection != wanted.protection) {
    commands.push_back(std::string("PROT ") + protection_letter(wanted.protection));
    current.level.protection = wanted.protection;
  }
  return commands;
}

}  // namespace gridftp::client
