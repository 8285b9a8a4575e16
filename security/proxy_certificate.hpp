// Recognises proxy certificates (RFC 3820, the GT3 draft and legacy GT2 "CN=proxy") and checks
// the proxy rules OpenSSL does not check for all three kinds. Not a chain verifier: trust_store
// does that; docs/WIRE.md §5.4 lists the kinds.
#pragma once

#include <string>
#include <string_view>

#include <openssl/x509.h>

#include "protocol/core/result.hpp"

namespace gridftp::security {

inline constexpr std::string_view kProxyCertInfoOid = "1.3.6.1.5.5.7.1.14";           // RFC 3820
inline constexpr std::string_view kDraftProxyCertInfoOid = "1.3.6.1.4.1.3536.1.222";  // GT3
inline constexpr std::string_view kInheritAllPolicyOid = "1.3.6.1.5.5.7.21.1";
inline constexpr std::string_view kIndependentPolicyOid = "1.3.6.1.5.5.7.21.2";
inline constexpr std::string_view kLimitedPolicyOid = "1.3.6.1.4.1.3536.1.1.1.9";  // Globus

enum class ProxyKind {
  NotProxy,
  Rfc3820,  // critical proxyCertInfo 1.3.6.1.5.5.7.1.14 (grid-proxy-init's default)
  Draft,    // critical 1.3.6.1.4.1.3536.1.222 (grid-proxy-init -draft)
  Legacy,   // last RDN CN=proxy or CN=limited proxy, no extension (grid-proxy-init -old)
};

enum class ProxyPolicy {
  Impersonation,  // inheritAll, or a legacy "CN=proxy"
  Limited,        // Globus limited: may not start jobs; may only sign limited proxies
  Independent,    // no rights of the issuer: its own subject is its identity
  Restricted,     // any other policy language
};

struct ProxyType {
  ProxyKind kind = ProxyKind::NotProxy;
  ProxyPolicy policy = ProxyPolicy::Impersonation;  // meaningful only for a proxy
};

// Classifies like Globus's globus_gsi_cert_utils_get_cert_type: a CA certificate is never a
// proxy, then the legacy CN, then the critical RFC 3820 and draft extensions. An extension that
// does not decode classifies as Restricted, so callers never grant it more than its issuer has.
ProxyType proxy_type(X509* certificate);
bool is_proxy_certificate(X509* certificate);
bool is_limited_proxy(X509* certificate);

// True when the proxy inherits its issuer's identity (impersonation or limited). Independent
// and restricted proxies stand for themselves.
bool inherits_identity(ProxyType type);

// RFC 3820 3.4: `subject` is `issuer_name` plus exactly one CN that is not part of a
// multi-valued RDN. Legacy and draft proxies follow the same rule.
bool is_proxy_subject(const X509_NAME* subject, const X509_NAME* issuer_name);

// Checks the proxy part of `leaf` followed by `chain` (issuer order, as a verified chain is):
//   * every proxy's subject is its issuer name plus exactly one single-valued CN RDN, and its
//     issuer name equals the next certificate's subject;
//   * no CA issues a proxy, no proxy has invalid extensions (CA flag, alternative names);
//   * an RFC 3820 pCPathLengthConstraint n allows at most n proxies below it;
//   * a limited proxy signs only limited proxies (Globus rule);
//   * below the first non-proxy (the end-entity certificate) there are no more proxies, so a
//     proxy never signs a non-proxy, and there is such an end-entity certificate.
// Signatures, validity and trust are not checked here. `chain` may be null.
// Errors: Errc::ProxyViolation; the second form also says which certificate and why.
Result<void> check_proxy_chain_rules(X509* leaf, STACK_OF(X509) * chain);
Result<void> check_proxy_chain_rules(X509* leaf, STACK_OF(X509) * chain, std::string& why);

}  // namespace gridftp::security
