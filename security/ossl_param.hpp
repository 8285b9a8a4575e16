// An OSSL_PARAM for input bytes (a KDF's password, salt, key or info). OpenSSL copies input
// octet strings and never writes them; its API is just not const-correct. An empty input still
// gets a valid pointer, which some providers insist on.
#pragma once

#include <cstddef>

#include <openssl/params.h>

namespace gridftp::security {

inline OSSL_PARAM octet_param(const char* key, const void* data, std::size_t size) {
  static constexpr char kEmpty = '\0';
  return OSSL_PARAM_construct_octet_string(key, const_cast<void*>(size == 0 ? &kEmpty : data),
                                           size);
}

}  // namespace gridftp::security
