// Counts live control sessions, in total and per user, to enforce [limits]. Shared by every
// session thread, so it is the one piece of session bookkeeping that takes a lock.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "server/config/server_config.hpp"

namespace gridftp::server {

class SessionRegistry {
 public:
  explicit SessionRegistry(const LimitsConfig& limits) : limits_(limits) {}

  // False when max_sessions is reached; on true the caller must call leave().
  bool try_enter();
  void leave();
  // False when the user already has max_sessions_per_user sessions; on true the caller must
  // call logout(user).
  bool try_login(const std::string& user);
  void logout(const std::string& user);
  unsigned active_sessions() const;

 private:
  const LimitsConfig& limits_;
  mutable std::mutex mutex_;
  unsigned sessions_ = 0;
  std::map<std::string, unsigned, std::less<>> per_user_;
};

}  // namespace gridftp::server
