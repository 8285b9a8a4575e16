#include "security/credential.hpp"

#include <cstdlib>
#include <string>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <unistd.h>

#include "security/key_pool.hpp"
#include "security/local_file.hpp"
#include "security/openssl_error.hpp"
#include "security/pem.hpp"
#include "security/security_errors.hpp"
#include "security/x509_identity.hpp"

namespace gridftp::security {
namespace {

// A certificate with a long chain is a few KB; anything near this limit is not a credential.
constexpr std::size_t kMaxCredentialFileBytes = std::size_t{1} << 20;

// File text, wiped when it goes out of scope so no copy of a key outlives parsing.
class WipedText {
 public:
  explicit WipedText(std::string text) : text_(std::move(text)) {}
  WipedText(const WipedText&) = delete;
  WipedText& operator=(const WipedText&) = delete;
  ~WipedText() { OPENSSL_cleanse(text_.data(), text_.size()); }
  std::string_view view() const { return text_; }

 private:
  std::string text_;
};

Result<PemContents> read_pem(const std::filesystem::path& path, FileAccess access) {
  auto text = read_local_file(path, access, kMaxCredentialFileBytes);
  if (!text) {
    return make_error(text.error());
  }
  const WipedText owned(std::move(*text));
  return parse_pem(owned.view());
}

// The first certificate is the credential's; the rest are its issuers.
Result<Credential> assemble(X509StackPtr certificates, EvpPkeyPtr key) {
  if (sk_X509_num(certificates.get()) < 1 || !key) {
    return make_error(Errc::MalformedPem);
  }
  Credential credential;
  credential.cert.reset(sk_X509_shift(certificates.get()));
  credential.chain = std::move(certificates);
  credential.key = std::move(key);
  if (X509_check_private_key(credential.cert.get(), credential.key.get()) != 1) {
    ERR_clear_error();
    return make_error(Errc::KeyCertificateMismatch);
  }
  return credential;
}

std::filesystem::path globus_dir(const EnvironmentLookup& environment) {
  const auto home = environment("HOME");
  if (!home || home->empty()) {
    return {};
  }
  return std::filesystem::path(*home) / ".globus";
}

std::optional<std::string> non_empty(const EnvironmentLookup& environment, const char* name) {
  auto value = environment(name);
  if (value && value->empty()) {
    return std::nullopt;
  }
  return value;
}

std::filesystem::path in_dir_or_empty(const std::filesystem::path& dir, const char* name) {
  return dir.empty() ? std::filesystem::path() : dir / name;
}

}  // namespace

Result<Credential> share_credential(const Credential& credential) {
  Credential shared;
  if (credential.key && EVP_PKEY_up_ref(credential.key.get()) == 1) {
    shared.key.reset(credential.key.get());
  }
  if (credential.cert && X509_up_ref(credential.cert.get()) == 1) {
    shared.cert.reset(credential.cert.get());
  }
  shared.chain.reset(credential.chain ? X509_chain_up_ref(credential.chain.get())
                                      : sk_X509_new_null());
  if (!shared.chain || static_cast<bool>(shared.key) != static_cast<bool>(credential.key) ||
      static_cast<bool>(shared.cert) != static_cast<bool>(credential.cert)) {
    return make_error(openssl_error());
  }
  return shared;
}

Result<Credential> load_credential(const std::filesystem::path& cert_file,
                                   const std::filesystem::path& key_file) {
  auto certificates = read_pem(cert_file, FileAccess::Public);
  if (!certificates) {
    return make_error(certificates.error());
  }
  auto key = read_pem(key_file, FileAccess::OwnerOnly);
  if (!key) {
    return make_error(key.error());
  }
  return assemble(std::move(certificates->certificates), std::move(key->key));
}

Result<Credential> load_proxy_file(const std::filesystem::path& proxy_file) {
  auto contents = read_pem(proxy_file, FileAccess::OwnerOnly);
  if (!contents) {
    return make_error(contents.error());
  }
  return assemble(std::move(contents->certificates), std::move(contents->key));
}

namespace {

Result<void> append_certificate_pem(X509* certificate, std::string& out) {
  const BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), certificate) != 1) return make_error(openssl_error());
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio.get(), &data);
  out.append(data, static_cast<std::size_t>(length));
  return {};
}

}  // namespace

Result<std::string> credential_to_pem(const Credential& credential) {
  std::string pem;
  if (auto added = append_certificate_pem(credential.cert.get(), pem); !added)
    return make_error(added.error());
  auto key = private_key_pem(credential.key.get());
  if (!key) return make_error(key.error());
  pem += *key;
  wipe_secret(*key);
  for (int i = 0; i < sk_X509_num(credential.chain.get()); ++i) {
    if (auto added = append_certificate_pem(sk_X509_value(credential.chain.get(), i), pem); !added)
      return make_error(added.error());
  }
  return pem;
}

Result<Credential> credential_from_pem(std::string_view text) {
  auto contents = parse_pem(text);
  if (!contents) return make_error(contents.error());
  return assemble(std::move(contents->certificates), std::move(contents->key));
}

std::vector<CredentialSource> user_credential_sources(const EnvironmentLookup& environment,
                                                      unsigned int uid) {
  if (const auto proxy = non_empty(environment, "X509_USER_PROXY")) {
    return {{*proxy, *proxy, true, true}};
  }
  std::vector<CredentialSource> sources;
  const std::filesystem::path default_proxy = "/tmp/x509up_u" + std::to_string(uid);
  sources.push_back({default_proxy, default_proxy, true, false});
  const std::filesystem::path globus = globus_dir(environment);
  const auto cert = non_empty(environment, "X509_USER_CERT");
  const auto key = non_empty(environment, "X509_USER_KEY");
  if (cert || key) {
    sources.push_back(
        {cert ? std::filesystem::path(*cert) : in_dir_or_empty(globus, "usercert.pem"),
         key ? std::filesystem::path(*key) : in_dir_or_empty(globus, "userkey.pem"), false, true});
    return sources;
  }
  if (!globus.empty()) {
    sources.push_back({globus / "usercert.pem", globus / "userkey.pem", false, false});
  }
  return sources;
}

Result<Credential> load_user_credential(std::span<const CredentialSource> sources) {
  for (const CredentialSource& source : sources) {
    std::error_code error;
    if (!source.named_explicitly && !std::filesystem::exists(source.cert_file, error)) {
      continue;
    }
    return source.proxy_file ? load_proxy_file(source.cert_file)
                             : load_credential(source.cert_file, source.key_file);
  }
  return make_error(Errc::NoCredentialFound);
}

Result<Credential> load_user_credential_from_env() {
  const EnvironmentLookup environment = [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): nobody sets env
    return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
  };
  return load_user_credential(user_credential_sources(environment, ::getuid()));
}

Result<void> use_in_ssl_ctx(const Credential& credential, SSL_CTX* context) {
  if (!credential.key || !credential.cert || context == nullptr) {
    return make_error(Errc::NoCredentialFound);
  }
  if (X509_check_private_key(credential.cert.get(), credential.key.get()) != 1) {
    ERR_clear_error();
    return make_error(Errc::KeyCertificateMismatch);
  }
  if (SSL_CTX_use_certificate(context, credential.cert.get()) != 1 ||
      SSL_CTX_use_PrivateKey(context, credential.key.get()) != 1 ||
      SSL_CTX_clear_chain_certs(context) != 1) {
    return make_error(openssl_error());
  }
  for (int index = 0; credential.chain && index < sk_X509_num(credential.chain.get()); ++index) {
    if (SSL_CTX_add1_chain_cert(context, sk_X509_value(credential.chain.get(), index)) != 1) {
      return make_error(openssl_error());
    }
  }
  return {};
}

Result<void> use_in_ssl(const Credential& credential, SSL* ssl) {
  if (!credential.key || !credential.cert || ssl == nullptr) {
    return make_error(Errc::NoCredentialFound);
  }
  if (X509_check_private_key(credential.cert.get(), credential.key.get()) != 1) {
    ERR_clear_error();
    return make_error(Errc::KeyCertificateMismatch);
  }
  // override = 1 replaces whatever certificate the SSL inherited from its SSL_CTX.
  if (SSL_use_cert_and_key(ssl, credential.cert.get(), credential.key.get(), credential.chain.get(),
                           1) != 1) {
    return make_error(openssl_error());
  }
  return {};
}

std::string identity(const Credential& credential) {
  return identity_of(credential.cert.get(), credential.chain.get());
}

}  // namespace gridftp::security
