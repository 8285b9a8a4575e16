#include "client/auth/server_identity.hpp"

#include <algorithm>
#include <cctype>

#include "security/host_name_check.hpp"

namespace gridftp::client {
namespace {

bool equal_ignoring_ascii_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

bool server_identity_matches(std::string_view peer_dn, const ExpectedServer& expected) {
  if (!expected.subject.empty()) {
    return equal_ignoring_ascii_case(peer_dn, expected.subject);
  }
  return security::certificate_names_host(peer_dn, expected.host);
}

std::string server_identity_mismatch(std::string_view peer_dn, const ExpectedServer& expected) {
  if (!expected.subject.empty()) {
    return "certificate " + std::string(peer_dn) + " is not the expected subject " +
           expected.subject;
  }
  return "certificate " + std::string(peer_dn) + " is not for host " + expected.host +
         " (name its subject with -ss, -ds or -s to accept it)";
}

}  // namespace gridftp::client
