#include "security/udpx/key_schedule.hpp"

#include <string>
#include <vector>

#include <openssl/core_names.h>
#include <openssl/rand.h>

#include "security/openssl_error.hpp"
#include "security/openssl_ptr.hpp"
#include "security/ossl_param.hpp"
#include "security/security_errors.hpp"

namespace gridftp::security::udpx {
namespace {

enum class HkdfStep { Extract, Expand };

// One HKDF step through OpenSSL's KDF. `salt_or_info` is the salt for Extract, the info for
// Expand; `key` is the IKM for Extract, the PRK for Expand.
Result<void> hkdf(HkdfStep step, std::span<const std::uint8_t> key,
                  std::span<const std::uint8_t> salt_or_info, std::span<std::uint8_t> out) {
  const EvpKdfPtr kdf(EVP_KDF_fetch(nullptr, "HKDF", nullptr));
  const EvpKdfCtxPtr context(kdf ? EVP_KDF_CTX_new(kdf.get()) : nullptr);
  if (!context) {
    return make_error(openssl_error());
  }
  char digest[] = "SHA256";
  int mode =
      step == HkdfStep::Extract ? EVP_KDF_HKDF_MODE_EXTRACT_ONLY : EVP_KDF_HKDF_MODE_EXPAND_ONLY;
  // A zero-length salt pointer would be ignored by OpenSSL; HKDF's default salt is HashLen zeros.
  static constexpr std::array<std::uint8_t, kSecretBytes> kZeroSalt{};
  const auto salt = salt_or_info.empty() ? std::span<const std::uint8_t>(kZeroSalt) : salt_or_info;
  std::vector<OSSL_PARAM> params = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
      octet_param(OSSL_KDF_PARAM_KEY, key.data(), key.size())};
  if (step == HkdfStep::Extract) {
    params.push_back(octet_param(OSSL_KDF_PARAM_SALT, salt.data(), salt.size()));
  } else {
    params.push_back(octet_param(OSSL_KDF_PARAM_INFO, salt_or_info.data(), salt_or_info.size()));
  }
  params.push_back(OSSL_PARAM_construct_end());
  if (EVP_KDF_derive(context.get(), out.data(), out.size(), params.data()) != 1) {
    OPENSSL_cleanse(out.data(), out.size());
    return make_error(openssl_error());
  }
  return {};
}

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
  if (auto done = hkdf(HkdfStep::Extract, ikm, salt, out); !done) {
    return make_error(done.error());
  }
  return out;
}

Result<void> hkdf_expand_label(std::span<const std::uint8_t> secret, std::string_view label,
                               std::span<const std::uint8_t> context, std::span<std::uint8_t> out) {
  // struct { uint16 length; opaque label<7..255>; opaque context<0..255>; } HkdfLabel;
  if (out.size() > 255 || label.size() > 255 || context.size() > 255) {
    return make_error(Errc::CryptoFailure);
  }
  std::vector<std::uint8_t> info;
  info.reserve(4 + label.size() + context.size());
  info.push_back(static_cast<std::uint8_t>(out.size() >> 8U));
  info.push_back(static_cast<std::uint8_t>(out.size() & 0xFFU));
  info.push_back(static_cast<std::uint8_t>(label.size()));
  info.insert(info.end(), label.begin(), label.end());
  info.push_back(static_cast<std::uint8_t>(context.size()));
  info.insert(info.end(), context.begin(), context.end());
  return hkdf(HkdfStep::Expand, secret, info, out);
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
