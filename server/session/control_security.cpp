#include "server/session/control_security.hpp"

#include <utility>

namespace gridftp::server {

void ControlSecurity::finish_gsi() {
  peer_dn = gsi->peer_identity();
  delegated = gsi->take_delegated_credential();
  dcau = 'A';
}

void ControlSecurity::set_protection(security::DataProtection level) {
  protection = level;
  data_security.reset();
}

void ControlSecurity::set_dcau(char mode, std::string subject) {
  dcau = mode;
  dcau_subject = std::move(subject);
  data_security.reset();
}

const char* ControlSecurity::prot_letter() const {
  switch (protection) {
    case security::DataProtection::Private:
      return "P";
    case security::DataProtection::Safe:
      return "S";
    case security::DataProtection::Clear:
      break;
  }
  return "C";
}

std::string ControlSecurity::label() const {
  const char* prot = prot_letter();
  if (ftps) return std::string("ftps prot=") + prot;
  if (!gsi_protected && frontend.empty()) return "none";
  return std::string("dcau=") + dcau + " prot=" + prot;
}

}  // namespace gridftp::server
