#include "security/openssl_error.hpp"

#include <catch2/catch.hpp>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "protocol/core/errors.hpp"
#include "security/openssl_ptr.hpp"
#include "security/security_errors.hpp"

namespace gridftp::security {
namespace {

TEST_CASE("openssl_error on an empty queue is a crypto failure, never success", "[openssl]") {
  ERR_clear_error();
  const std::error_code error = openssl_error();
  CHECK(error == Errc::CryptoFailure);
  CHECK(error == Condition::LocalError);
}

TEST_CASE("openssl_error drains the whole queue and keeps the first entry", "[openssl]") {
  ERR_clear_error();
  // Two failing fetches queue at least two errors.
  const EvpKdfPtr first(EVP_KDF_fetch(nullptr, "NO-SUCH-KDF", nullptr));
  const EvpMdPtr second(EVP_MD_fetch(nullptr, "NO-SUCH-DIGEST", nullptr));
  REQUIRE_FALSE(first);
  REQUIRE_FALSE(second);
  const unsigned long oldest = ERR_peek_error();
  REQUIRE(oldest != 0);
  std::string message;
  const std::error_code error = openssl_error(message);
  CHECK(ERR_peek_error() == 0);
  CHECK(error.category() == openssl_category());
  CHECK(error.value() == static_cast<int>(oldest & 0x7fffffffUL));
  CHECK(error == Condition::LocalError);
  CHECK(message.find("NO-SUCH-KDF") != std::string::npos);
  CHECK(message.find("; ") != std::string::npos);
  CHECK_FALSE(error.message().empty());
}

TEST_CASE("openssl_error reports system errors in the system category", "[openssl]") {
  ERR_clear_error();
  const BioPtr bio(BIO_new_file("/nonexistent/gridftp-test", "r"));
  REQUIRE_FALSE(bio);
  const std::error_code error = openssl_error();
  CHECK(error == Condition::NotFound);
  CHECK(ERR_peek_error() == 0);
}

TEST_CASE("security errors map to LocalError", "[openssl]") {
  for (const auto code : {Errc::CryptoFailure, Errc::MalformedPasswordHash,
                          Errc::UnsupportedPasswordScheme, Errc::PasswordHashParametersOutOfRange,
                          Errc::NotARegularFile, Errc::FileTooPermissive, Errc::FileTooLarge}) {
    const std::error_code error = code;
    CHECK(error == Condition::LocalError);
    CHECK(error.message() != "unknown security error");
  }
}

}  // namespace
}  // namespace gridftp::security
