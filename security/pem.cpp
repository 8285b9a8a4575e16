#include "security/pem.hpp"

#include <climits>
#include <string>

#include <openssl/err.h>
#include <openssl/pem.h>

#include "security/openssl_error.hpp"
#include "security/security_errors.hpp"

namespace gridftp::security {
namespace {

// One block as PEM_read_bio returns it.
struct PemBlock {
  OpenSslCharPtr name;
  OpenSslCharPtr header;
  OpenSslBytePtr data;
  long length = 0;
};

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// "PRIVATE KEY" (PKCS#8), "RSA PRIVATE KEY" (PKCS#1), "EC PRIVATE KEY" (SEC 1), ...
bool is_private_key_block(std::string_view name) { return ends_with(name, "PRIVATE KEY"); }

bool is_encrypted_key_block(std::string_view name, std::string_view header) {
  return name == PEM_STRING_PKCS8 || header.find("ENCRYPTED") != std::string_view::npos;
}

// End of input shows up as PEM_R_NO_START_LINE; anything else in the queue is a damaged block.
bool at_clean_end() {
  const unsigned long error = ERR_peek_last_error();
  return ERR_GET_LIB(error) == ERR_LIB_PEM && ERR_GET_REASON(error) == PEM_R_NO_START_LINE;
}

Result<void> add_certificate(PemContents& contents, const PemBlock& block) {
  const unsigned char* cursor = block.data.get();
  X509Ptr certificate(d2i_X509(nullptr, &cursor, block.length));
  if (!certificate || cursor != block.data.get() + block.length) {
    ERR_clear_error();
    return make_error(Errc::MalformedPem);
  }
  if (sk_X509_push(contents.certificates.get(), certificate.get()) == 0) {
    return make_error(openssl_error());
  }
  static_cast<void>(certificate.release());  // the stack owns it now
  return {};
}

Result<void> add_crl(PemContents& contents, const PemBlock& block) {
  const unsigned char* cursor = block.data.get();
  X509CrlPtr crl(d2i_X509_CRL(nullptr, &cursor, block.length));
  if (!crl || cursor != block.data.get() + block.length) {
    ERR_clear_error();
    return make_error(Errc::MalformedPem);
  }
  contents.crls.push_back(std::move(crl));
  return {};
}

Result<void> add_key(PemContents& contents, const PemBlock& block) {
  if (is_encrypted_key_block(block.name.get(), block.header.get())) {
    return make_error(Errc::EncryptedKey);
  }
  if (contents.key) {
    return make_error(Errc::MalformedPem);  // two keys: which one signs is anybody's guess
  }
  const unsigned char* cursor = block.data.get();
  // d2i_AutoPrivateKey recognises PKCS#8, PKCS#1 and SEC 1 encodings alike.
  contents.key.reset(d2i_AutoPrivateKey(nullptr, &cursor, block.length));
  if (!contents.key) {
    ERR_clear_error();
    return make_error(Errc::MalformedPem);
  }
  return {};
}

Result<void> add_block(PemContents& contents, const PemBlock& block) {
  const std::string_view name = block.name.get();
  if (name == PEM_STRING_X509 || name == PEM_STRING_X509_OLD) {
    return add_certificate(contents, block);
  }
  if (name == PEM_STRING_X509_CRL) {
    return add_crl(contents, block);
  }
  if (is_private_key_block(name)) {
    const auto added = add_key(contents, block);
    OPENSSL_cleanse(block.data.get(), static_cast<std::size_t>(block.length));
    return added;
  }
  return {};
}

}  // namespace

Result<PemContents> parse_pem(std::string_view text) {
  if (text.size() > static_cast<std::size_t>(INT_MAX)) {
    return make_error(std::make_error_code(std::errc::value_too_large));
  }
  PemContents contents;
  contents.certificates.reset(sk_X509_new_null());
  const BioPtr bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
  if (!contents.certificates || !bio) {
    return make_error(openssl_error());
  }
  ERR_clear_error();
  for (;;) {
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long length = 0;
    const int read = PEM_read_bio(bio.get(), &name, &header, &data, &length);
    const PemBlock block{OpenSslCharPtr(name), OpenSslCharPtr(header), OpenSslBytePtr(data),
                         length};
    if (read == 0) {
      const bool clean = at_clean_end();
      ERR_clear_error();
      if (!clean) {
        return make_error(Errc::MalformedPem);
      }
      return contents;
    }
    if (const auto added = add_block(contents, block); !added) {
      return make_error(added.error());
    }
  }
}

}  // namespace gridftp::security
