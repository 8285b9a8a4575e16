#include "server/session/session_registry.hpp"

namespace gridftp::server {

bool SessionRegistry::try_enter() {
  const std::lock_guard lock(mutex_);
  if (sessions_ >= limits_.max_sessions) return false;
  ++sessions_;
  return true;
}

void SessionRegistry::leave() {
  const std::lock_guard lock(mutex_);
  if (sessions_ > 0) --sessions_;
}

bool SessionRegistry::try_login(const std::string& user) {
  const std::lock_guard lock(mutex_);
  auto& count = per_user_[user];
  if (count >= limits_.max_sessions_per_user) return false;
  ++count;
  return true;
}

void SessionRegistry::logout(const std::string& user) {
  const std::lock_guard lock(mutex_);
  const auto found = per_user_.find(user);
  if (found == per_user_.end()) return;
  if (--found->second == 0) per_user_.erase(found);
}

unsigned SessionRegistry::active_sessions() const {
  const std::lock_guard lock(mutex_);
  return sessions_;
}

}  // namespace gridftp::server
