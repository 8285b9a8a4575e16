// Decides who a USER/PASS pair is: the anonymous user (if enabled) or a local account from the
// password file. Password checks are slow on purpose (scrypt), so callers run login() on the
// blocking pool, never on an I/O thread.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/core/result.hpp"
#include "server/auth/password_file.hpp"
#include "server/config/server_config.hpp"

namespace gridftp::server::auth {

// Everything a session needs to know about its logged-in user.
struct UserContext {
  std::string name;
  std::filesystem::path root;
  std::vector<std::string> writable_areas;  // normalized virtual paths; "/" = whole root
  bool anonymous = false;
};

class Authenticator {
 public:
  Authenticator(AnonymousConfig anonymous, std::vector<Account> accounts);

  bool is_anonymous_name(std::string_view user) const;
  // Errors: Condition::LoginFailed for any mismatch (which part failed is not revealed).
  Result<UserContext> login(const std::string& user, const std::string& password) const;
  // The password file re-read (SIGHUP): logins from now on use `accounts`; a login already
  // being checked finishes against the table it started with.
  void replace_accounts(std::vector<Account> accounts);
  std::size_t account_count() const { return accounts_.load()->size(); }

 private:
  using AccountTable = std::vector<Account>;
  AnonymousConfig anonymous_;
  std::atomic<std::shared_ptr<const AccountTable>> accounts_;
};

// Normalized writable areas from config entries relative to the root ("incoming" → "/incoming").
std::vector<std::string> writable_areas_from(const std::vector<std::string>& relative,
                                             bool whole_root);

}  // namespace gridftp::server::auth
