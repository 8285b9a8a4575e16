// A system account's home directory from the passwd database (NSS), for `~` and starting
// directories. Blocking like any NSS lookup: call it once per login.
#pragma once

#include <optional>
#include <string>

namespace gridftp::server::auth {

// nullopt for an unknown account or one without a home.
std::optional<std::string> account_home(const std::string& account);
// The account this process runs as; empty when the system does not know it.
std::string own_account_name();

}  // namespace gridftp::server::auth
