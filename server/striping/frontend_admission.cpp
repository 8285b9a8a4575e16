#include "server/striping/frontend_admission.hpp"

#include <algorithm>

#include "security/x509_identity.hpp"

namespace gridftp::server::striping {

bool is_allowed_frontend(const std::string& peer, const std::vector<std::string>& frontends,
                         const std::string& own) {
  if (peer.empty()) return false;
  if (frontends.empty()) return !own.empty() && security::same_identity(peer, own);
  return std::any_of(frontends.begin(), frontends.end(), [&](const std::string& allowed) {
    return security::same_identity(peer, allowed);
  });
}

}  // namespace gridftp::server::striping
