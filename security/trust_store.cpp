#include "security/trust_store.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <vector>

#include <openssl/err.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "security/local_file.hpp"
#include "security/openssl_error.hpp"
#include "security/pem.hpp"
#include "security/proxy_certificate.hpp"
#include "security/security_errors.hpp"
#include "security/x509_identity.hpp"

namespace gridftp::security {
namespace {

// One CA certificate is a few KB; IGTF CRLs reach several MB.
constexpr std::size_t kMaxCaFileBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxCrlFileBytes = std::size_t{64} << 20;

bool is_hex_hash(std::string_view text) {
  return text.size() == 8 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool is_decimal(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "<hash>.<N>" is a CA file, "<hash>.r<N>" a CRL file (OpenSSL's c_rehash naming).
bool is_ca_file_name(std::string_view name) {
  return name.size() > 9 && name[8] == '.' && is_hex_hash(name.substr(0, 8)) &&
         is_decimal(name.substr(9));
}

bool is_crl_file_name(std::string_view name) {
  return name.size() > 10 && name[8] == '.' && name[9] == 'r' && is_hex_hash(name.substr(0, 8)) &&
         is_decimal(name.substr(10));
}

struct CertDirListing {
  std::vector<std::filesystem::path> ca_files;
  std::vector<std::filesystem::path> crl_files;
};

Result<CertDirListing> list_cert_dir(const std::filesystem::path& dir) {
  CertDirListing listing;
  std::error_code error;
  std::filesystem::directory_iterator entry(dir, error);
  for (; !error && entry != std::filesystem::directory_iterator(); entry.increment(error)) {
    const std::string name = entry->path().filename().string();
    if (is_ca_file_name(name)) {
      listing.ca_files.push_back(entry->path());
    } else if (is_crl_file_name(name)) {
      listing.crl_files.push_back(entry->path());
    }
  }
  if (error) {
    return make_error(error);
  }
  // Directory order is arbitrary; sorting keeps loading (and its first error) reproducible.
  std::sort(listing.ca_files.begin(), listing.ca_files.end());
  std::sort(listing.crl_files.begin(), listing.crl_files.end());
  return listing;
}

Result<void> fail(std::string* message, const std::filesystem::path& path, std::error_code error) {
  if (message != nullptr) {
    *message = path.string() + ": " + error.message();
  }
  return make_error(error);
}

Result<PemContents> read_pem_file(const std::filesystem::path& path, std::size_t max_bytes) {
  const auto text = read_local_file(path, FileAccess::Public, max_bytes);
  if (!text) {
    return make_error(text.error());
  }
  return parse_pem(*text);
}

// Adds the certificates or CRLs of one file; returns how many.
Result<int> add_file(X509_STORE* store, const std::filesystem::path& path, bool crl_file) {
  auto contents = read_pem_file(path, crl_file ? kMaxCrlFileBytes : kMaxCaFileBytes);
  if (!contents) {
    return make_error(contents.error());
  }
  int added = 0;
  if (crl_file) {
    for (const X509CrlPtr& crl : contents->crls) {
      if (X509_STORE_add_crl(store, crl.get()) != 1) {
        return make_error(openssl_error());
      }
      ++added;
    }
  } else {
    for (int index = 0; index < sk_X509_num(contents->certificates.get()); ++index) {
      if (X509_STORE_add_cert(store, sk_X509_value(contents->certificates.get(), index)) != 1) {
        return make_error(openssl_error());
      }
      ++added;
    }
  }
  if (added == 0) {
    return make_error(Errc::MalformedPem);  // a hashed name promises a certificate or CRL
  }
  return added;
}

Result<X509StorePtr> load(const std::filesystem::path& cert_dir, std::string* message) {
  const auto listing = list_cert_dir(cert_dir);
  if (!listing) {
    return make_error(fail(message, cert_dir, listing.error()).error());
  }
  X509StorePtr store(X509_STORE_new());
  if (!store) {
    return make_error(openssl_error());
  }
  int certificates = 0;
  int crls = 0;
  for (const bool crl_files : {false, true}) {
    for (const auto& path : crl_files ? listing->crl_files : listing->ca_files) {
      const auto added = add_file(store.get(), path, crl_files);
      if (!added) {
        return make_error(fail(message, path, added.error()).error());
      }
      (crl_files ? crls : certificates) += *added;
    }
  }
  if (certificates == 0) {
    return make_error(fail(message, cert_dir, Errc::NoTrustAnchors).error());
  }
  unsigned long flags = X509_V_FLAG_ALLOW_PROXY_CERTS;
  if (crls > 0) {
    // CRL_CHECK alone checks only the leaf, which is the proxy, which OpenSSL never checks; the
    // user's certificate is revoked through CRL_CHECK_ALL.
    flags |= X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL;
  }
  X509_STORE_set_flags(store.get(), flags);
  X509_STORE_set_verify_cb(store.get(), &verify_callback_allowing_proxies);
  return store;
}

Errc errc_for_verify_error(int error) {
  switch (error) {
    case X509_V_ERR_CERT_HAS_EXPIRED:
      return Errc::CertificateExpired;
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return Errc::CertificateNotYetValid;
    case X509_V_ERR_CERT_REVOKED:
      return Errc::CertificateRevoked;
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_CERT_UNTRUSTED:
      return Errc::CertificateUntrusted;
    case X509_V_ERR_PROXY_PATH_LENGTH_EXCEEDED:
    case X509_V_ERR_PROXY_SUBJECT_NAME_VIOLATION:
    case X509_V_ERR_PROXY_CERTIFICATES_NOT_ALLOWED:
      return Errc::ProxyViolation;
    default:
      return Errc::CertificateInvalid;
  }
}

std::error_code verify_failure(X509_STORE_CTX* context, std::string* message) {
  const int error = X509_STORE_CTX_get_error(context);
  if (error == X509_V_OK) {
    return openssl_error();  // an internal failure (allocation), not a verdict on the chain
  }
  ERR_clear_error();
  if (message != nullptr) {
    *message = std::string(X509_verify_cert_error_string(error)) + " at depth " +
               std::to_string(X509_STORE_CTX_get_error_depth(context));
    if (X509* certificate = X509_STORE_CTX_get_current_cert(context); certificate != nullptr) {
      *message += " (" + slash_dn(X509_get_subject_name(certificate)) + ")";
    }
  }
  return errc_for_verify_error(error);
}

Result<void> verify(X509_STORE* store, X509* leaf, STACK_OF(X509) * chain, std::string* message) {
  if (store == nullptr || leaf == nullptr) {
    return make_error(Errc::CertificateInvalid);
  }
  const X509StoreCtxPtr context(X509_STORE_CTX_new());
  if (!context || X509_STORE_CTX_init(context.get(), store, leaf, chain) != 1) {
    return make_error(openssl_error());
  }
  if (X509_verify_cert(context.get()) != 1) {
    return make_error(verify_failure(context.get(), message));
  }
  X509StackPtr verified(X509_STORE_CTX_get1_chain(context.get()));
  if (!verified || sk_X509_num(verified.get()) < 1) {
    return make_error(openssl_error());
  }
  const X509Ptr verified_leaf(sk_X509_shift(verified.get()));
  std::string why;
  if (auto rules = check_proxy_chain_rules(verified_leaf.get(), verified.get(), why); !rules) {
    if (message != nullptr) {
      *message = std::move(why);
    }
    return rules;
  }
  return {};
}

// True when `certificate`, at `depth` of the chain being verified, directly issued a legacy or
// draft proxy below it: then it is an end-entity certificate acting as a proxy issuer, which is
// all OpenSSL's "not a CA" complaints are about.
bool issued_old_style_proxy(STACK_OF(X509) * chain, int depth) {
  if (chain == nullptr || depth < 1 || depth >= sk_X509_num(chain)) {
    return false;
  }
  X509* issuer = sk_X509_value(chain, depth);
  X509* proxy = sk_X509_value(chain, depth - 1);
  const ProxyKind kind = proxy_type(proxy).kind;
  return (kind == ProxyKind::Legacy || kind == ProxyKind::Draft) &&
         X509_NAME_cmp(X509_get_issuer_name(proxy), X509_get_subject_name(issuer)) == 0 &&
         is_proxy_subject(X509_get_subject_name(proxy), X509_get_subject_name(issuer));
}

// The draft extension is the only critical extension OpenSSL does not know on this proxy.
bool only_draft_extension_unhandled(X509* certificate) {
  if (certificate == nullptr || proxy_type(certificate).kind != ProxyKind::Draft) {
    return false;
  }
  const int count = X509_get_ext_count(certificate);
  for (int index = 0; index < count; ++index) {
    X509_EXTENSION* extension = X509_get_ext(certificate, index);
    if (X509_EXTENSION_get_critical(extension) == 0 || X509_supported_extension(extension) != 0) {
      continue;
    }
    std::array<char, 64> oid{};
    OBJ_obj2txt(oid.data(), static_cast<int>(oid.size()), X509_EXTENSION_get_object(extension), 1);
    if (std::string_view(oid.data()) != kDraftProxyCertInfoOid) {
      return false;
    }
  }
  return true;
}

bool forgivable(X509_STORE_CTX* context) {
  const int error = X509_STORE_CTX_get_error(context);
  const int depth = X509_STORE_CTX_get_error_depth(context);
  STACK_OF(X509)* chain = X509_STORE_CTX_get0_chain(context);
  switch (error) {
    case X509_V_ERR_UNABLE_TO_GET_CRL:
      return true;
    case X509_V_ERR_INVALID_CA:
    case X509_V_ERR_KEYUSAGE_NO_CERTSIGN:
      return issued_old_style_proxy(chain, depth);
    case X509_V_ERR_INVALID_PURPOSE: {
      // OpenSSL checked it as a CA because it issued a certificate; check it as the end entity it
      // is. OpenSSL 3.0 has no getter for the context's purpose, so either TLS role will do.
      if (!issued_old_style_proxy(chain, depth)) {
        return false;
      }
      X509* end_entity = sk_X509_value(chain, depth);
      return X509_check_purpose(end_entity, X509_PURPOSE_SSL_CLIENT, 0) == 1 ||
             X509_check_purpose(end_entity, X509_PURPOSE_SSL_SERVER, 0) == 1;
    }
    case X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION:
      return only_draft_extension_unhandled(X509_STORE_CTX_get_current_cert(context));
    default:
      return false;
  }
}

}  // namespace

std::filesystem::path default_cert_dir() {
  const char* from_env = std::getenv("X509_CERT_DIR");  // NOLINT(concurrency-mt-unsafe): read-only
  if (from_env != nullptr && *from_env != '\0') {
    return from_env;
  }
  return "/etc/grid-security/certificates";
}

Result<X509StorePtr> load_trust_store(const std::filesystem::path& cert_dir) {
  return load(cert_dir, nullptr);
}

Result<X509StorePtr> load_trust_store(const std::filesystem::path& cert_dir, std::string& message) {
  message.clear();
  return load(cert_dir, &message);
}

Result<void> verify_chain(X509_STORE* store, X509* leaf, STACK_OF(X509) * chain) {
  return verify(store, leaf, chain, nullptr);
}

Result<void> verify_chain(X509_STORE* store, X509* leaf, STACK_OF(X509) * chain,
                          std::string& message) {
  message.clear();
  return verify(store, leaf, chain, &message);
}

int verify_callback_allowing_proxies(int preverify_ok, X509_STORE_CTX* context) {
  if (preverify_ok == 1) {
    return 1;
  }
  if (!forgivable(context)) {
    return 0;
  }
  X509_STORE_CTX_set_error(context, X509_V_OK);
  return 1;
}

}  // namespace gridftp::security
