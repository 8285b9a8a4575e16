// Grid identities: the OpenSSL "oneline" slash form of a DN, the identity of a (proxy) chain, and
// Globus's DN comparison (docs/WIRE.md §5.4). Not a verifier: call these on verified chains only.
#pragma once

#include <string>
#include <string_view>

#include <openssl/x509.h>

#include "security/proxy_certificate.hpp"

namespace gridftp::security {

// "/O=Grid/OU=Test/CN=Test User", as X509_NAME_oneline prints it (non-printable bytes as \xHH),
// which is what Globus compares and what gridmap files contain. Empty for a null name.
std::string slash_dn(const X509_NAME* name);

// The slash DN of the first certificate in `leaf`, then `chain`, that does not inherit its
// issuer's identity: the end-entity certificate below impersonation and limited proxies. An
// independent or restricted proxy is its own identity, as in Globus, so it matches no gridmap
// entry of the user. Empty when `leaf` is null or every certificate is such a proxy.
std::string identity_of(X509* leaf, STACK_OF(X509) * chain);

// Globus's globus_i_gsi_cert_utils_dn_cmp: ASCII case-insensitive, after "/UID=" and "/USERID="
// are made one attribute and "/E=", "/Email=" and "/emailAddress=" another.
bool same_identity(std::string_view a, std::string_view b);

}  // namespace gridftp::security
