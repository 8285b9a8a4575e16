#include "server/session/session_registry.hpp"

namespace gridftp::server {

namespace {

// Decrements `name`'s count, forgetting names that reach zero so the maps stay as small as the
// set of live sessions.
void release(std::map<std::string, unsigned, std::less<>>& counts, std::string_view name) {
  const auto found = counts.find(name);
  if (found == counts.end()) return;
  if (--found->second == 0) counts.erase(found);
}

}  // namespace

SessionRegistry::Admission SessionRegistry::try_enter(std::string_view address) {
  const std::lock_guard lock(mutex_);
  if (sessions_ >= limits_.max_sessions) return Admission::ServerFull;
  auto found = per_address_.find(address);
  const unsigned from_address = found == per_address_.end() ? 0 : found->second;
  if (limits_.max_sessions_per_address > 0 && from_address >= limits_.max_sessions_per_address) {
    return Admission::AddressFull;
  }
  if (found == per_address_.end()) found = per_address_.emplace(address, 0).first;
  ++found->second;
  ++sessions_;
  return Admission::Admitted;
}

void SessionRegistry::leave(std::string_view address) {
  const std::lock_guard lock(mutex_);
  if (sessions_ > 0) --sessions_;
  release(per_address_, address);
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
  release(per_user_, user);
}

const char* SessionRegistry::refusal_text(Admission refusal) {
  return refusal == Admission::AddressFull
             ? "Too many connections from your address; try again later."
             : "Too many sessions; try again later.";
}

const char* SessionRegistry::limit_name(Admission refusal) {
  return refusal == Admission::AddressFull ? "max_sessions_per_address" : "max_sessions";
}

unsigned SessionRegistry::active_sessions() const {
  const std::lock_guard lock(mutex_);
  return sessions_;
}

}  // namespace gridftp::server
