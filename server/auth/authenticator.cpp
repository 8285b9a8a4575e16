#include "server/auth/authenticator.hpp"

#include "protocol/control/virtual_path.hpp"
#include "protocol/core/errors.hpp"
#include "security/password_hash.hpp"

namespace gridftp::server::auth {

std::vector<std::string> writable_areas_from(const std::vector<std::string>& relative,
                                             bool whole_root) {
  if (whole_root) return {"/"};
  std::vector<std::string> areas;
  for (const auto& entry : relative) {
    auto normalized = protocol::control::resolve_virtual_path("/", entry);
    if (normalized) areas.push_back(std::move(*normalized));
  }
  return areas;
}

Authenticator::Authenticator(AnonymousConfig anonymous, std::vector<Account> accounts)
    : anonymous_(std::move(anonymous)),
      accounts_(std::make_shared<const AccountTable>(std::move(accounts))) {}

void Authenticator::replace_accounts(std::vector<Account> accounts) {
  accounts_.store(std::make_shared<const AccountTable>(std::move(accounts)));
}

bool Authenticator::is_anonymous_name(std::string_view user) const {
  return anonymous_.enabled && (user == "anonymous" || user == "ftp");
}

Result<UserContext> Authenticator::login(const std::string& user,
                                         const std::string& password) const {
  if (is_anonymous_name(user)) {
    return UserContext{"anonymous", anonymous_.root,
                       writable_areas_from(anonymous_.writable, false), true};
  }
  const auto accounts = accounts_.load();
  for (const auto& account : *accounts) {
    if (account.name != user) continue;
    const auto verified = security::verify_password(password, account.password_hash);
    if (!verified || !*verified) break;
    return UserContext{account.name, account.root,
                       writable_areas_from(account.writable_subdirs, account.whole_root_writable),
                       false};
  }
  return make_error(error_code_for(Condition::LoginFailed));
}

}  // namespace gridftp::server::auth
