// GSI delegation (docs/WIRE.md §5.2): the acceptor sends a certificate request for a fresh key, the
// initiator answers with an RFC 3820 proxy it signs over that key, and the acceptor assembles the
// delegated credential. Pure message building and checking; the TLS stream is the caller's.
#pragma once

#include <span>
#include <vector>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "protocol/core/result.hpp"
#include "security/credential.hpp"
#include "security/der_length.hpp"
#include "security/openssl_ptr.hpp"

namespace gridftp::security {

// DER of proxyCertInfo with the Globus limited policy and with inheritAll (no path length).
inline constexpr unsigned char kLimitedProxyCertInfoDer[] = {0x30, 0x0f, 0x30, 0x0d, 0x06, 0x0b,
                                                             0x2b, 0x06, 0x01, 0x04, 0x01, 0x9b,
                                                             0x50, 0x01, 0x01, 0x01, 0x09};
inline constexpr unsigned char kInheritAllProxyCertInfoDer[] = {
    0x30, 0x0c, 0x30, 0x0a, 0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x15, 0x01};

// The key size of a request when the peer's own key is RSA 2048 (grid-proxy-init's default) or
// not RSA: what a key pool should keep ready.
inline constexpr int kDefaultDelegationKeyBits = 2048;

// The key pair behind a delegated credential. Every data connection under DCAU signs its TLS
// handshake with it: with many small files that signature is a large share of the server's
// work per file (RSA-2048 signs about 4,000 times a second per core here, P-256 about 50,000).
// Only the proxy's own key changes: its issuer (the user's key) signs it as before, and Globus
// peers accept such chains (docs/WIRE.md §5.2).
enum class DelegationKeyType { EcP256, Rsa };

// A new key of `type`; `rsa_bits` for RSA. Null when OpenSSL fails.
EvpPkeyPtr make_delegation_key(DelegationKeyType type, int rsa_bits);

struct DelegationRequest {
  EvpPkeyPtr key;                  // the new private key; it never leaves this process
  std::vector<unsigned char> der;  // i2d_X509_REQ, written to the peer as it is
};

// Acceptor, step 1. Rsa: a fresh RSA key as large as `like_peer_key` (the peer certificate's
// key), clamped to 2048..4096 bits: we pay for the key generation, and a peer could ask for
// 16384; a non-RSA or null peer key gets 2048. EcP256: a P-256 key. The request's subject is the
// placeholder Globus uses, CN=NULL SUBJECT NAME ENTRY, and it is signed with SHA-256.
// `ready_key`, when it is a key of the kind wanted, is used instead of making one (key_pool.hpp).
// Errors: an OpenSSL error from key generation or signing.
Result<DelegationRequest> make_delegation_request(const EVP_PKEY* like_peer_key,
                                                  EvpPkeyPtr ready_key = {},
                                                  DelegationKeyType type = DelegationKeyType::Rsa);

// Acceptor, step 2. `cert_der` is exactly one DER certificate (use der_object_length to cut it
// from the stream). It must be a proxy for our key, issued by and signed with `peer_cert`, obeying
// the proxy rules. The credential's chain is `peer_cert` followed by `peer_chain` (the peer's
// issuers, e.g. SSL_get_peer_cert_chain; a copy of `peer_cert` at its front is skipped).
// Errors: Errc::MalformedDelegation (not one DER certificate, trailing bytes),
// Errc::DelegationMismatch (another public key, another issuer, a bad signature, not a proxy),
// Errc::ProxyViolation (check_proxy_chain_rules), or an OpenSSL error.
Result<Credential> complete_delegation(DelegationRequest request,
                                       std::span<const unsigned char> cert_der, X509* peer_cert,
                                       STACK_OF(X509) * peer_chain);

// Initiator. Signs the request with `issuer` (the user's proxy) into an RFC 3820 proxy, returned
// as DER: subject = issuer subject + CN=<random 31-bit serial, decimal>, the same serial number,
// notBefore = now - 5 min (clock skew), notAfter = the issuer's notAfter, and one extension,
// critical proxyCertInfo with the Globus limited policy (`limited`, or whenever the issuer is a
// limited proxy itself) or inheritAll. The digest follows the issuer certificate's signature
// (SHA-256/384/512; SHA-256 for anything else; none for EdDSA keys).
// Errors: Errc::MalformedDelegation (not one DER request, bad self-signature, RSA key below 2048
// bits), Errc::NoCredentialFound (empty issuer), Errc::CertificateExpired (issuer expired), or
// an OpenSSL error.
Result<std::vector<unsigned char>> sign_delegation_request(
    const Credential& issuer, std::span<const unsigned char> request_der, bool limited);

}  // namespace gridftp::security
