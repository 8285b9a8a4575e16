// Which frontends a mover serves (docs/STRIPING.md): the identities [striping] frontends lists,
// or, with none listed, the mover's own host certificate's (frontend and movers sharing one).
#pragma once

#include <string>
#include <vector>

namespace gridftp::server::striping {

// Whether `peer` (the identity the TLS handshake proved) may drive a mover whose host identity
// is `own`. Identities compare as security::same_identity does (slash DNs, case of the
// attribute names aside).
bool is_allowed_frontend(const std::string& peer, const std::vector<std::string>& frontends,
                         const std::string& own);

}  // namespace gridftp::server::striping
