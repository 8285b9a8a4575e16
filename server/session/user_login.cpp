#include "server/session/user_login.hpp"

#include <utility>

namespace gridftp::server {

using protocol::control::LoginPhase;

void UserLogin::expect_password(std::string name) {
  claimed_user_ = std::move(name);
  phase_ = LoginPhase::AwaitingPassword;
}

void UserLogin::end_attempt() { phase_ = LoginPhase::AwaitingUser; }

bool UserLogin::count_against(const std::string& name) {
  if (!registry_.try_login(name)) return false;
  counted_user_ = name;
  return true;
}

void UserLogin::give_back_count() {
  if (counted_user_) registry_.logout(*counted_user_);
  counted_user_.reset();
}

void UserLogin::leave() {
  // Counted but not logged in only inside a login that then gives the count back itself.
  if (counted_user_ && user_) registry_.logout(*counted_user_);
  counted_user_.reset();
}

void UserLogin::log_in(auth::UserContext user, storage::PosixStorage storage) {
  storage_.emplace(std::move(storage));
  user_ = std::move(user);
  home_ = "/";
  phase_ = LoginPhase::LoggedIn;
}

bool UserLogin::settle_home(const std::string& path) {
  if (!storage_ || !storage_->check_directory(path)) return false;
  home_ = path;
  return true;
}

}  // namespace gridftp::server
