#include "server/auth/account_home.hpp"

#include <vector>

#include <pwd.h>
#include <unistd.h>

namespace gridftp::server::auth {

std::optional<std::string> account_home(const std::string& account) {
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getpwnam_r(account.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr || found->pw_dir == nullptr || found->pw_dir[0] == '\0')
    return std::nullopt;
  return std::string(found->pw_dir);
}

std::string own_account_name() {
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getpwuid_r(::geteuid(), &entry, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr)
    return {};
  return found->pw_name;
}

}  // namespace gridftp::server::auth
