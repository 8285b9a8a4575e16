#include "security/handshake.hpp"

namespace gridftp::security {

Result<std::string> TlsHandshake::step(std::span<const char> input) {
  if (auto fed = engine_.feed(input); !fed) return make_error(fed.error());
  auto progress = engine_.handshake();
  // Whatever TLS queued goes out even on failure: an alert tells the peer why.
  auto out = engine_.take_output();
  if (!progress) return make_error(progress.error());
  complete_ = *progress == TlsEngine::Progress::Done;
  return out;
}

}  // namespace gridftp::security
