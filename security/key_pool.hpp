// Delegation keys made before anyone asks for them. Accepting a delegated credential needs a
// fresh key pair (delegation.hpp), and a 2048-bit RSA key takes 50-300 ms to find: made on
// demand, that wait sits inside every gsiftp login. A pool keeps a few ready, made by a thread
// of its own. (A P-256 key takes microseconds; the pool hands those out the same way.)
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "protocol/core/result.hpp"
#include "security/delegation.hpp"
#include "security/openssl_ptr.hpp"

namespace gridftp::security {

class KeyPool {
 public:
  // Keeps `depth` keys of `type` (RSA: `bits`) ready; depth 0 makes none itself (it only hands
  // out keys put()).
  KeyPool(DelegationKeyType type, int bits, std::size_t depth);
  ~KeyPool();
  KeyPool(const KeyPool&) = delete;
  KeyPool& operator=(const KeyPool&) = delete;

  // A ready key, never handed out twice; null when none is ready (the caller makes its own).
  EvpPkeyPtr take();
  // Adds a key made elsewhere (a session process gets one from its parent).
  void put(EvpPkeyPtr key);
  DelegationKeyType key_type() const { return type_; }

 private:
  void refill();

  const DelegationKeyType type_;
  const int bits_;
  const std::size_t depth_;
  std::mutex mutex_;
  std::condition_variable wanted_;
  std::deque<EvpPkeyPtr> ready_;
  bool stopping_ = false;
  std::thread maker_;
};

// The private key as PKCS#8 PEM, and back: how a parent hands a pool key to a session process.
// Errors: an OpenSSL error; parse: Errc::MalformedPem or a PEM without a key.
Result<std::string> private_key_pem(EVP_PKEY* key);
Result<EvpPkeyPtr> parse_private_key_pem(std::string_view pem);
// Overwrites a key's PEM text in place (OPENSSL_cleanse: not optimised away) once it is used.
void wipe_secret(std::string& text);
void wipe_secret(std::vector<std::uint8_t>& bytes);

}  // namespace gridftp::security
