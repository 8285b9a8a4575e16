// Counts live control sessions, in total, per client address and per user, to enforce [limits].
// Shared by every session thread, so it is the one piece of session bookkeeping that takes a
// lock. With a process per session the parent admits connections here before it spawns.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "server/config/server_config.hpp"

namespace gridftp::server {

class SessionRegistry {
 public:
  explicit SessionRegistry(const LimitsConfig& limits) : limits_(limits) {}

  enum class Admission { Admitted, ServerFull, AddressFull };
  // ServerFull at max_sessions, AddressFull at max_sessions_per_address from `address`; when
  // Admitted the caller must call leave(address).
  Admission try_enter(std::string_view address);
  void leave(std::string_view address);
  // False when the user already has max_sessions_per_user sessions; on true the caller must
  // call logout(user).
  bool try_login(const std::string& user);
  void logout(const std::string& user);
  unsigned active_sessions() const;
  // The 421 text for a refused connection.
  static const char* refusal_text(Admission refusal);
  // The [limits] key a refusal reached, for the log.
  static const char* limit_name(Admission refusal);

 private:
  const LimitsConfig& limits_;
  mutable std::mutex mutex_;
  unsigned sessions_ = 0;
  std::map<std::string, unsigned, std::less<>> per_address_;
  std::map<std::string, unsigned, std::less<>> per_user_;
};

}  // namespace gridftp::server
