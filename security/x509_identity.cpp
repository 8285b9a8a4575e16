#include "security/x509_identity.hpp"

#include <array>

#include "security/openssl_ptr.hpp"

namespace gridftp::security {
namespace {

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) {
    return false;
  }
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (ascii_lower(text[i]) != ascii_lower(prefix[i])) {
      return false;
    }
  }
  return true;
}

struct Alias {
  std::string_view spelling;   // as written after a '/', compared without case
  std::string_view canonical;  // lower case
};

// Globus rewrites only right after a '/', so a value containing "E=" stays as it is.
constexpr std::array kAliases{
    Alias{"USERID=", "userid="}, Alias{"UID=", "userid="}, Alias{"emailAddress=", "email="},
    Alias{"Email=", "email="},   Alias{"E=", "email="},
};

std::string canonical_dn(std::string_view dn) {
  std::string out;
  out.reserve(dn.size() + 8);
  std::size_t i = 0;
  while (i < dn.size()) {
    const char c = dn[i++];
    out.push_back(ascii_lower(c));
    if (c != '/') {
      continue;
    }
    for (const Alias& alias : kAliases) {
      if (starts_with_ignoring_case(dn.substr(i), alias.spelling)) {
        out.append(alias.canonical);
        i += alias.spelling.size();
        break;
      }
    }
  }
  return out;
}

}  // namespace

std::string slash_dn(const X509_NAME* name) {
  if (name == nullptr) {
    return {};
  }
  const OpenSslCharPtr text(X509_NAME_oneline(name, nullptr, 0));
  return text ? std::string(text.get()) : std::string();
}

std::string identity_of(X509* leaf, STACK_OF(X509) * chain) {
  if (leaf == nullptr) {
    return {};
  }
  if (!inherits_identity(proxy_type(leaf))) {
    return slash_dn(X509_get_subject_name(leaf));
  }
  for (int index = 0; chain != nullptr && index < sk_X509_num(chain); ++index) {
    X509* certificate = sk_X509_value(chain, index);
    if (!inherits_identity(proxy_type(certificate))) {
      return slash_dn(X509_get_subject_name(certificate));
    }
  }
  return {};
}

bool same_identity(std::string_view a, std::string_view b) {
  return canonical_dn(a) == canonical_dn(b);
}

}  // namespace gridftp::security
