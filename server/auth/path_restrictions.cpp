#include "server/auth/path_restrictions.hpp"

#include <vector>

#include <pwd.h>

namespace gridftp::server::auth {

Result<protocol::control::PathRules> path_rules_for(std::string_view spec, const UserContext& user,
                                                    std::string& why) {
  if (spec.empty()) return protocol::control::PathRules{};
  std::string home = user.root.string();
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getpwnam_r(user.name.c_str(), &entry, buffer.data(), buffer.size(), &found) == 0 &&
      found != nullptr && found->pw_dir != nullptr) {
    home = found->pw_dir;
  }
  auto rules = protocol::control::parse_restrict_paths(spec, home, user.name, why);
  if (!rules) return make_error(rules.error());
  return protocol::control::PathRules(std::move(*rules));
}

}  // namespace gridftp::server::auth
