#include "security/handshake.hpp"

namespace gridftp::security {

Result<std::string> TlsHandshake::step(std::span<const char> input) {
  if (auto fed = engine_.feed(input); !fed) return make_error(fed.error());
  auto progress = engine_.handshake();
  // On failure the alert TLS queued stays in the engine for the caller to send.
  if (!progress) return make_error(progress.error());
  complete_ = *progress == TlsEngine::Progress::Done;
  return engine_.take_output();
}

}  // namespace gridftp::security
