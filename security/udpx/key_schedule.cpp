#include "security/udpx/key_schedule.hpp"

#include <string>
#include <vector>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "security/hkdf.hpp"
#include "security/openssl_error.hpp"
#include "security/security_errors.hpp"

namespace gridftp::security::udpx {
namespace {

constexpr const char* kDigest = "SHA256";

Result<Secret> expand_secret(const Secret& secret, std::string_view label) {
  Secret out{};
  const std::string full = std::string(kLabelPrefix) + std::string(label);
  if (auto done = hkdf_expand_label(secret, full, {}, out); !done) {
    return make_error(done.error());
  }
  return out;
}

}  // namespace

Result<Secret> hkdf_extract(std::span<const std::uint8_t> salt, std::span<const std::uint8_t> ikm) {
  Secret out{};
  if (auto done = security::hkdf_extract(kDigest, salt, ikm, out); !done) {
    return make_error(done.error());
  }
  return out;
}

Result<void> hkdf_expand_label(std::span<const std::uint8_t> secret, std::string_view label,
                               std::span<const std::uint8_t> context, std::span<std::uint8_t> out) {
  return security::hkdf_expand_label(kDigest, secret, label, context, out);
}

Result<HandshakeSecrets> derive_handshake_secrets(const Secret& connection_secret) {
  auto handshake = expand_secret(connection_secret, "hs");
  if (!handshake) return make_error(handshake.error());
  auto a2p = expand_secret(*handshake, "a2p");
  auto p2a = expand_secret(*handshake, "p2a");
  OPENSSL_cleanse(handshake->data(), handshake->size());
  if (!a2p || !p2a) return make_error(!a2p ? a2p.error() : p2a.error());
  return HandshakeSecrets{*a2p, *p2a};
}

Result<TrafficSecrets> derive_traffic_secrets(const Secret& connection_secret,
                                              std::span<const std::uint8_t> random_active,
                                              std::span<const std::uint8_t> random_passive) {
  // The traffic secrets also depend on both randoms, so a replayed HELLO_ACK cannot bring back
  // keys of an earlier connection.
  std::vector<std::uint8_t> salt(random_active.begin(), random_active.end());
  salt.insert(salt.end(), random_passive.begin(), random_passive.end());
  auto traffic = hkdf_extract(salt, connection_secret);
  if (!traffic) return make_error(traffic.error());
  auto a2p = expand_secret(*traffic, "tr a2p");
  auto p2a = expand_secret(*traffic, "tr p2a");
  OPENSSL_cleanse(traffic->data(), traffic->size());
  if (!a2p || !p2a) return make_error(!a2p ? a2p.error() : p2a.error());
  return TrafficSecrets{*a2p, *p2a};
}

Result<void> fill_random(std::span<std::uint8_t> out) {
  if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) {
    return make_error(openssl_error());
  }
  return {};
}

Result<ConnectionSecrets> derive_connection_secrets(const Secret& connection_secret,
                                                    std::span<const std::uint8_t> random_active,
                                                    std::span<const std::uint8_t> random_passive) {
  auto handshake = derive_handshake_secrets(connection_secret);
  if (!handshake) return make_error(handshake.error());
  auto traffic = derive_traffic_secrets(connection_secret, random_active, random_passive);
  if (!traffic) return make_error(traffic.error());
  return ConnectionSecrets{handshake->a2p, handshake->p2a, traffic->a2p, traffic->p2a};
}

Result<PacketKeys> derive_packet_keys(const Secret& secret) {
  PacketKeys keys;
  const std::string key_label = std::string(kLabelPrefix) + "key";
  const std::string iv_label = std::string(kLabelPrefix) + "iv";
  if (auto done = hkdf_expand_label(secret, key_label, {}, keys.key); !done) {
    return make_error(done.error());
  }
  if (auto done = hkdf_expand_label(secret, iv_label, {}, keys.iv); !done) {
    return make_error(done.error());
  }
  return keys;
}

Result<Secret> next_traffic_secret(const Secret& current) { return expand_secret(current, "ku"); }

}  // namespace gridftp::security::udpx
