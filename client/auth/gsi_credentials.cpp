#include "client/auth/gsi_credentials.hpp"

#include <cstdlib>
#include <optional>
#include <vector>

#include <unistd.h>

#include "security/security_errors.hpp"
#include "security/trust_store.hpp"

namespace gridftp::client {
namespace {

using security::DataProtection;
using security::TlsRole;

constexpr std::array kProtections{DataProtection::Clear, DataProtection::Safe,
                                  DataProtection::Private};
constexpr std::array kRoles{TlsRole::Client, TlsRole::Server};

std::size_t context_index(TlsRole role, DataProtection protection) {
  return (role == TlsRole::Client ? 0U : kProtections.size()) +
         static_cast<std::size_t>(protection);
}

std::optional<std::string> environment_value(const char* name) {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read before threads
  return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
}

// How the user would name a source: the variable that set it, or the file itself.
std::string describe_source(const security::CredentialSource& source) {
  if (source.named_explicitly && source.proxy_file) {
    return "X509_USER_PROXY names " + source.cert_file.string();
  }
  if (source.named_explicitly) {
    return "X509_USER_CERT/X509_USER_KEY name " + source.cert_file.string() + " and " +
           source.key_file.string();
  }
  return source.cert_file.string();
}

std::string list_sources(const std::vector<security::CredentialSource>& sources) {
  std::string out;
  for (const auto& source : sources) {
    out += (out.empty() ? "" : ", ") + source.cert_file.string();
  }
  return out;
}

// The first source that exists, loaded; a source named by a variable must load.
Result<security::Credential> load_user_credential(std::string& detail) {
  const auto sources = security::user_credential_sources(environment_value, ::getuid());
  for (const auto& source : sources) {
    auto loaded = security::load_user_credential(std::span(&source, 1));
    if (loaded) {
      return loaded;
    }
    if (loaded.error() == security::Errc::NoCredentialFound && !source.named_explicitly) {
      continue;
    }
    detail = "cannot use the GSI credential (" + describe_source(source) +
             "): " + loaded.error().message();
    return loaded;
  }
  detail = "no GSI credential found: X509_USER_PROXY is not set and none of " +
           list_sources(sources) + " exists (run grid-proxy-init)";
  return make_error(make_error_code(security::Errc::NoCredentialFound));
}

}  // namespace

Result<std::shared_ptr<const GsiCredentials>> GsiCredentials::load_from_environment(
    std::string& detail) {
  auto credential = load_user_credential(detail);
  if (!credential) {
    return make_error(credential.error());
  }
  const auto cert_dir = security::default_cert_dir();
  std::string why;
  auto trust = security::load_trust_store(cert_dir, why);
  if (!trust) {
    detail = "cannot load the trusted CAs from " + cert_dir.string() +
             " (X509_CERT_DIR): " + (why.empty() ? trust.error().message() : why);
    return make_error(trust.error());
  }
  return from_credential(std::move(*credential), std::move(*trust), detail);
}

Result<std::shared_ptr<const GsiCredentials>> GsiCredentials::from_credential(
    security::Credential credential, security::X509StorePtr trust, std::string& detail) {
  std::shared_ptr<GsiCredentials> loaded(new GsiCredentials());
  loaded->credential_ = std::move(credential);
  loaded->identity_ = security::identity(loaded->credential_);
  loaded->trust_ = std::move(trust);
  auto control = security::make_gsi_control_context(loaded->credential_, loaded->trust_.get(),
                                                    TlsRole::Client);
  if (!control) {
    detail =
        "cannot use the GSI credential of " + loaded->identity_ + ": " + control.error().message();
    return make_error(control.error());
  }
  loaded->control_context_ = std::move(*control);
  for (const auto role : kRoles) {
    for (const auto protection : kProtections) {
      // PROT S as Globus does it: TLS 1.3 where both sides offer it (docs/WIRE.md §5.8).
      auto context = security::make_gsi_data_context(loaded->credential_, loaded->trust_.get(),
                                                     role, protection, false);
      if (!context) {
        detail = "cannot build a data-channel TLS context: " + context.error().message();
        return make_error(context.error());
      }
      loaded->data_contexts_[context_index(role, protection)] = std::move(*context);
    }
  }
  return std::shared_ptr<const GsiCredentials>(std::move(loaded));
}

const security::SslCtxPtr& GsiCredentials::data_context(TlsRole role,
                                                        DataProtection protection) const {
  return data_contexts_[context_index(role, protection)];
}

}  // namespace gridftp::client
