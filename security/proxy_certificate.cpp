#include "security/proxy_certificate.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <openssl/asn1.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/x509v3.h>

#include "security/openssl_ptr.hpp"
#include "security/security_errors.hpp"
#include "security/x509_identity.hpp"

namespace gridftp::security {
namespace {

std::string oid_text(const ASN1_OBJECT* object) {
  std::array<char, 128> text{};
  const int length = OBJ_obj2txt(text.data(), static_cast<int>(text.size()), object, 1);
  if (length <= 0 || static_cast<std::size_t>(length) >= text.size()) {
    return {};
  }
  return text.data();
}

ProxyPolicy policy_of(const PROXY_POLICY* policy) {
  if (policy == nullptr || policy->policyLanguage == nullptr) {
    return ProxyPolicy::Restricted;
  }
  const std::string language = oid_text(policy->policyLanguage);
  if (language == kInheritAllPolicyOid) {
    return ProxyPolicy::Impersonation;
  }
  if (language == kLimitedPolicyOid) {
    return ProxyPolicy::Limited;
  }
  if (language == kIndependentPolicyOid) {
    return ProxyPolicy::Independent;
  }
  return ProxyPolicy::Restricted;
}

ProxyPolicy rfc3820_policy(X509* certificate) {
  const ProxyCertInfoPtr info(static_cast<PROXY_CERT_INFO_EXTENSION*>(
      X509_get_ext_d2i(certificate, NID_proxyCertInfo, nullptr, nullptr)));
  ERR_clear_error();
  return info ? policy_of(info->proxyPolicy) : ProxyPolicy::Restricted;
}

X509_EXTENSION* find_extension(X509* certificate, std::string_view oid) {
  const int count = X509_get_ext_count(certificate);
  for (int index = 0; index < count; ++index) {
    X509_EXTENSION* extension = X509_get_ext(certificate, index);
    if (oid_text(X509_EXTENSION_get_object(extension)) == oid) {
      return extension;
    }
  }
  return nullptr;
}

// The GT3 draft put the policy first and the path length after it as [1] EXPLICIT; RFC 3820 has
// the optional INTEGER first. Either way the policy is the first SEQUENCE inside the outer one.
ProxyPolicy draft_policy(X509_EXTENSION* extension) {
  const ASN1_OCTET_STRING* data = X509_EXTENSION_get_data(extension);
  const unsigned char* cursor = ASN1_STRING_get0_data(data);
  long length = 0;
  int tag = 0;
  int tag_class = 0;
  const int outer = ASN1_get_object(&cursor, &length, &tag, &tag_class, ASN1_STRING_length(data));
  if ((outer & 0x80) != 0 || tag != V_ASN1_SEQUENCE) {
    ERR_clear_error();
    return ProxyPolicy::Restricted;
  }
  const unsigned char* inner = cursor;
  int inner_tag = 0;
  long inner_length = 0;
  const int first = ASN1_get_object(&inner, &inner_length, &inner_tag, &tag_class, length);
  if ((first & 0x80) != 0) {
    ERR_clear_error();
    return ProxyPolicy::Restricted;
  }
  if (inner_tag == V_ASN1_INTEGER) {
    length -= (inner - cursor) + inner_length;
    cursor = inner + inner_length;
  }
  const ProxyPolicyPtr policy(d2i_PROXY_POLICY(nullptr, &cursor, length));
  ERR_clear_error();
  return policy ? policy_of(policy.get()) : ProxyPolicy::Restricted;
}

// Globus compares the raw bytes of the last CN, case-sensitively.
std::string_view last_common_name(X509* certificate) {
  const X509_NAME* subject = X509_get_subject_name(certificate);
  const int count = X509_NAME_entry_count(subject);
  if (count < 1) {
    return {};
  }
  const X509_NAME_ENTRY* last = X509_NAME_get_entry(subject, count - 1);
  if (OBJ_obj2nid(X509_NAME_ENTRY_get_object(last)) != NID_commonName) {
    return {};
  }
  const ASN1_STRING* value = X509_NAME_ENTRY_get_data(last);
  return {reinterpret_cast<const char*>(ASN1_STRING_get0_data(value)),
          static_cast<std::size_t>(ASN1_STRING_length(value))};
}

}  // namespace

bool is_proxy_subject(const X509_NAME* subject, const X509_NAME* issuer) {
  const int count = X509_NAME_entry_count(subject);
  if (count < 2 || count != X509_NAME_entry_count(issuer) + 1) {
    return false;
  }
  const X509_NAME_ENTRY* last = X509_NAME_get_entry(subject, count - 1);
  if (OBJ_obj2nid(X509_NAME_ENTRY_get_object(last)) != NID_commonName ||
      X509_NAME_ENTRY_set(last) == X509_NAME_ENTRY_set(X509_NAME_get_entry(subject, count - 2))) {
    return false;
  }
  const X509NamePtr base(X509_NAME_dup(subject));
  if (!base) {
    ERR_clear_error();
    return false;
  }
  const X509NameEntryPtr removed(X509_NAME_delete_entry(base.get(), count - 1));
  return X509_NAME_cmp(base.get(), issuer) == 0;
}

namespace {

Result<void> violation(std::string* why, std::size_t depth, X509* certificate,
                       std::string_view reason) {
  if (why != nullptr) {
    *why = "depth " + std::to_string(depth) + " (" + slash_dn(X509_get_subject_name(certificate)) +
           "): " + std::string(reason);
  }
  return make_error(Errc::ProxyViolation);
}

Result<void> check_one_proxy(X509* proxy, ProxyType type, X509* issuer, std::size_t depth,
                             std::string* why) {
  if ((X509_get_extension_flags(proxy) & EXFLAG_INVALID) != 0) {
    return violation(why, depth, proxy, "proxy has invalid extensions (CA flag or alt names)");
  }
  if (!is_proxy_subject(X509_get_subject_name(proxy), X509_get_issuer_name(proxy))) {
    return violation(why, depth, proxy, "proxy subject is not its issuer plus one CN");
  }
  // RFC 3820 4.1.4: pCPathLengthConstraint n allows n proxies below this one; `depth` proxies
  // lie below it, because every certificate before it is a proxy.
  if (type.kind == ProxyKind::Rfc3820) {
    const long path_length = X509_get_proxy_pathlen(proxy);
    if (path_length >= 0 && depth > static_cast<std::size_t>(path_length)) {
      return violation(why, depth, proxy, "proxy path length constraint exceeded");
    }
  }
  if (issuer == nullptr) {
    return {};
  }
  if (X509_NAME_cmp(X509_get_issuer_name(proxy), X509_get_subject_name(issuer)) != 0) {
    return violation(why, depth, proxy, "next certificate in the chain is not the issuer");
  }
  if ((X509_get_extension_flags(issuer) & EXFLAG_CA) != 0) {
    return violation(why, depth, proxy, "proxy issued directly by a CA");
  }
  if (is_limited_proxy(issuer) && type.policy != ProxyPolicy::Limited) {
    return violation(why, depth, proxy, "limited proxy signed a non-limited proxy");
  }
  return {};
}

Result<void> check_rules(X509* leaf, STACK_OF(X509) * chain, std::string* why) {
  if (leaf == nullptr) {
    if (why != nullptr) {
      *why = "no certificate";
    }
    return make_error(Errc::ProxyViolation);
  }
  std::vector<X509*> path{leaf};
  for (int index = 0; chain != nullptr && index < sk_X509_num(chain); ++index) {
    path.push_back(sk_X509_value(chain, index));
  }
  std::size_t depth = 0;
  for (; depth < path.size(); ++depth) {
    const ProxyType type = proxy_type(path[depth]);
    if (type.kind == ProxyKind::NotProxy) {
      break;
    }
    X509* issuer = depth + 1 < path.size() ? path[depth + 1] : nullptr;
    if (auto checked = check_one_proxy(path[depth], type, issuer, depth, why); !checked) {
      return checked;
    }
  }
  if (depth == path.size()) {
    return violation(why, depth - 1, path.back(), "no end-entity certificate below the proxies");
  }
  for (std::size_t above = depth + 1; above < path.size(); ++above) {
    if (is_proxy_certificate(path[above])) {
      return violation(why, above, path[above], "proxy signed a non-proxy certificate");
    }
  }
  return {};
}

}  // namespace

ProxyType proxy_type(X509* certificate) {
  if (certificate == nullptr) {
    return {};
  }
  // Also makes OpenSSL decode and cache the extensions, which sets EXFLAG_PROXY.
  const std::uint32_t flags = X509_get_extension_flags(certificate);
  if ((flags & EXFLAG_PROXY) != 0) {
    return {ProxyKind::Rfc3820, rfc3820_policy(certificate)};
  }
  if ((flags & EXFLAG_CA) != 0) {
    return {};
  }
  X509_EXTENSION* draft = find_extension(certificate, kDraftProxyCertInfoOid);
  if (draft != nullptr && X509_EXTENSION_get_critical(draft) != 0) {
    return {ProxyKind::Draft, draft_policy(draft)};
  }
  const std::string_view common_name = last_common_name(certificate);
  if (common_name == "proxy") {
    return {ProxyKind::Legacy, ProxyPolicy::Impersonation};
  }
  if (common_name == "limited proxy") {
    return {ProxyKind::Legacy, ProxyPolicy::Limited};
  }
  return {};
}

bool is_proxy_certificate(X509* certificate) {
  return proxy_type(certificate).kind != ProxyKind::NotProxy;
}

bool is_limited_proxy(X509* certificate) {
  const ProxyType type = proxy_type(certificate);
  return type.kind != ProxyKind::NotProxy && type.policy == ProxyPolicy::Limited;
}

bool inherits_identity(ProxyType type) {
  return type.kind != ProxyKind::NotProxy &&
         (type.policy == ProxyPolicy::Impersonation || type.policy == ProxyPolicy::Limited);
}

Result<void> check_proxy_chain_rules(X509* leaf, STACK_OF(X509) * chain) {
  return check_rules(leaf, chain, nullptr);
}

Result<void> check_proxy_chain_rules(X509* leaf, STACK_OF(X509) * chain, std::string& why) {
  why.clear();
  return check_rules(leaf, chain, &why);
}

}  // namespace gridftp::security
