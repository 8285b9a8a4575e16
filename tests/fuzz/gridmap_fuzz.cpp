// A grid-mapfile as an admin (or an attacker with write access to a config directory) may
// write it: quoted DNs with escapes, account lists, comments. Every entry that parses maps.
#include <cstddef>
#include <cstdint>

#include "security/gridmap.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string message;
  auto gridmap = gridftp::security::parse_gridmap(gridftp::fuzz::as_text(data, size), message);
  if (!gridmap) {
    FUZZ_CHECK(!message.empty());  // a refusal says which line and why
    return 0;
  }
  for (const auto& entry : gridmap->entries()) {
    FUZZ_CHECK(!entry.accounts.empty());
    // The first line for a DN decides, and its first account is the default.
    auto account = gridmap->default_account(entry.dn);
    FUZZ_CHECK(account.has_value());
    FUZZ_CHECK(gridmap->allows(entry.dn, *account));
  }
  return 0;
}
