// Error codes of the security layer (password hashes, secret files, OpenSSL failures). Their
// category maps each code onto a gridftp::Condition so reply_for_error() needs no security cases.
#pragma once

#include <system_error>

namespace gridftp::security {

enum class Errc {
  CryptoFailure = 1,      // an OpenSSL call failed and left nothing in its error queue
  MalformedPasswordHash,  // an encoded hash string does not parse
  UnsupportedPasswordScheme,
  PasswordHashParametersOutOfRange,  // cost parameters outside what we are willing to compute
  NotARegularFile,                   // a secret file is a directory, device, fifo, ...
  FileTooPermissive,                 // a secret file is readable or writable by group or others
  FileTooLarge,
};

const std::error_category& security_category();
std::error_code make_error_code(Errc e);

}  // namespace gridftp::security

template <>
struct std::is_error_code_enum<gridftp::security::Errc> : std::true_type {};
