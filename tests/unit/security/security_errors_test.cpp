#include "security/security_errors.hpp"

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

namespace gridftp::security {
namespace {

TEST_CASE("credential, trust store and gridmap errors are local errors", "[security]") {
  for (const auto code : {Errc::MalformedPem, Errc::EncryptedKey, Errc::KeyCertificateMismatch,
                          Errc::NoCredentialFound, Errc::NoTrustAnchors, Errc::MalformedGridmap}) {
    const std::error_code error = code;
    CHECK(error == Condition::LocalError);
    CHECK(error.message() != "unknown security error");
  }
}

TEST_CASE("a peer's bad certificates or delegation fail the login", "[security]") {
  for (const auto code :
       {Errc::CertificateUntrusted, Errc::CertificateExpired, Errc::CertificateNotYetValid,
        Errc::CertificateRevoked, Errc::CertificateInvalid, Errc::ProxyViolation,
        Errc::MalformedDelegation, Errc::DelegationMismatch}) {
    const std::error_code error = code;
    CHECK(error == Condition::LoginFailed);
    CHECK(error != Condition::LocalError);
    CHECK(error.message() != "unknown security error");
  }
}

}  // namespace
}  // namespace gridftp::security
