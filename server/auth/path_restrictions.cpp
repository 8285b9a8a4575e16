#include "server/auth/path_restrictions.hpp"

#include "server/auth/account_home.hpp"

namespace gridftp::server::auth {

Result<protocol::control::PathRules> path_rules_for(std::string_view spec, const UserContext& user,
                                                    std::string& why) {
  if (spec.empty()) return protocol::control::PathRules{};
  const std::string home = account_home(user.name).value_or(user.root.string());
  auto rules = protocol::control::parse_restrict_paths(spec, home, user.name, why);
  if (!rules) return make_error(rules.error());
  return protocol::control::PathRules(std::move(*rules));
}

}  // namespace gridftp::server::auth
