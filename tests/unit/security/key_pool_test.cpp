#include "security/key_pool.hpp"

#include <chrono>
#include <thread>

#include <catch2/catch.hpp>
#include <openssl/x509.h>

#include "security/delegation.hpp"

namespace gridftp::security {
namespace {

EvpPkeyPtr rsa_key(int bits) { return EvpPkeyPtr(EVP_RSA_gen(static_cast<unsigned int>(bits))); }

}  // namespace

TEST_CASE("a pool without a maker hands out exactly the keys put into it, once each",
          "[security][key_pool]") {
  KeyPool pool(DelegationKeyType::Rsa, 2048, 0);
  CHECK(pool.take() == nullptr);
  auto key = rsa_key(2048);
  EVP_PKEY* raw = key.get();
  pool.put(std::move(key));
  pool.put(EvpPkeyPtr{});  // ignored
  auto taken = pool.take();
  CHECK(taken.get() == raw);
  CHECK(pool.take() == nullptr);
}

TEST_CASE("a pool with a maker fills itself with keys of its size", "[security][key_pool]") {
  KeyPool pool(DelegationKeyType::Rsa, 2048, 1);
  EvpPkeyPtr key;
  // Key generation takes a fraction of a second of CPU, but the maker runs at nice 19 (spare
  // cycles only): beside other suites on both cores it once waited over 30 s for them. Poll;
  // the bound (10 minutes) is a hang guard, not a time asserted.
  for (int i = 0; i < 12000 && !key; ++i) {
    key = pool.take();
    if (!key) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(key);
  CHECK(EVP_PKEY_get_base_id(key.get()) == EVP_PKEY_RSA);
  CHECK(EVP_PKEY_get_bits(key.get()) == 2048);
}

TEST_CASE("a private key survives the PEM hand-over to a session process", "[security][key_pool]") {
  auto key = rsa_key(2048);
  auto pem = private_key_pem(key.get());
  REQUIRE(pem.has_value());
  auto back = parse_private_key_pem(*pem);
  REQUIRE(back.has_value());
  CHECK(EVP_PKEY_eq(back->get(), key.get()) == 1);
  CHECK_FALSE(parse_private_key_pem("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n")
                  .has_value());
}

TEST_CASE("a delegation request uses a ready key only when it has the size wanted",
          "[security][key_pool]") {
  auto ready = rsa_key(2048);
  EVP_PKEY* raw = ready.get();
  auto request = make_delegation_request(nullptr, std::move(ready));
  REQUIRE(request.has_value());
  CHECK(request->key.get() == raw);

  auto peer = rsa_key(3072);
  auto small = rsa_key(2048);
  EVP_PKEY* small_raw = small.get();
  auto sized = make_delegation_request(peer.get(), std::move(small));
  REQUIRE(sized.has_value());
  CHECK(sized->key.get() != small_raw);
  CHECK(EVP_PKEY_get_bits(sized->key.get()) == 3072);
}

TEST_CASE("a P-256 pool and request make and take P-256 keys, and an RSA key is not taken",
          "[security][key_pool]") {
  KeyPool pool(DelegationKeyType::EcP256, kDefaultDelegationKeyBits, 1);
  EvpPkeyPtr key;
  for (int i = 0; i < 600 && !key; ++i) {
    key = pool.take();
    if (!key) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(key);
  CHECK(EVP_PKEY_get_base_id(key.get()) == EVP_PKEY_EC);
  EVP_PKEY* raw = key.get();
  auto peer = rsa_key(2048);
  auto request = make_delegation_request(peer.get(), std::move(key), DelegationKeyType::EcP256);
  REQUIRE(request.has_value());
  CHECK(request->key.get() == raw);

  auto rsa = rsa_key(2048);
  EVP_PKEY* rsa_raw = rsa.get();
  auto made = make_delegation_request(peer.get(), std::move(rsa), DelegationKeyType::EcP256);
  REQUIRE(made.has_value());
  CHECK(made->key.get() != rsa_raw);
  CHECK(EVP_PKEY_get_base_id(made->key.get()) == EVP_PKEY_EC);
  CHECK(EVP_PKEY_get_bits(made->key.get()) == 256);
}

}  // namespace gridftp::security
