// The password file (name:hash:root:writable lines). A line that parses yields an account that
// is safe to use as is: a valid name, an absolute root, writable paths inside it.
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "server/auth/password_file.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parse = gridftp::server::auth::parse_password_file(gridftp::fuzz::as_text(data, size));
  for (const auto& account : parse.accounts) {
    FUZZ_CHECK(!account.name.empty() && account.name.size() <= 32);
    for (char c : account.name) {
      FUZZ_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-');
    }
    FUZZ_CHECK(account.root.is_absolute());
    for (const auto& part : account.root) FUZZ_CHECK(part != "..");
    for (const auto& sub : account.writable_subdirs) {
      FUZZ_CHECK(!sub.empty() && sub.front() != '/');
      for (const auto& part : std::filesystem::path(sub)) FUZZ_CHECK(part != "..");
    }
  }
  for (const auto& problem : parse.problems) FUZZ_CHECK(problem.rfind("line ", 0) == 0);
  return 0;
}
