// Turns OpenSSL's thread-local error queue into a std::error_code. Every failed OpenSSL call is
// followed by openssl_error(), which empties the queue so the next caller never sees stale errors.
#pragma once

#include <string>
#include <system_error>

namespace gridftp::security {

// Category of packed OpenSSL error codes (ERR_get_error values); all map to Condition::LocalError.
const std::error_category& openssl_category();

// Drains the whole queue and returns its first (root-cause) entry. System errors come back in
// std::system_category, so an ENOENT while loading a file still compares equal to NotFound. An
// empty queue yields security::Errc::CryptoFailure, never a success code.
std::error_code openssl_error();

// As above, and also writes every queued entry, oldest first, joined by "; ", into `message`.
// The message holds library and reason strings only, never key material.
std::error_code openssl_error(std::string& message);

}  // namespace gridftp::security
