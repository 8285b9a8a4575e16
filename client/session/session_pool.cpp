#include "client/session/session_pool.hpp"

#include "protocol/core/errors.hpp"

namespace gridftp::client {
namespace {

std::string session_key(const Url& url) {
  return (url.has_user ? url.user + '@' : std::string()) + url.origin();
}

// Reply texts come as several lines; messages are one line per file.
std::string one_line(const std::string& text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (c == '\n' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) {
      out += ' ';
    }
    space = false;
    out += c;
  }
  // Collapse the indentation the multi-line form carried.
  std::string collapsed;
  for (const char c : out) {
    if (!(c == ' ' && !collapsed.empty() && collapsed.back() == ' ')) {
      collapsed += c;
    }
  }
  return collapsed;
}

}  // namespace

Result<std::shared_ptr<const GsiCredentials>> CredentialStore::get(std::string& detail) {
  std::lock_guard lock(mutex_);
  if (!credentials_) {
    auto loaded = GsiCredentials::load_from_environment(detail);
    if (!loaded) {
      return make_error(loaded.error());
    }
    credentials_ = std::move(*loaded);
  }
  return credentials_;
}

SessionPool::SessionPool(SessionOptions options, std::shared_ptr<spdlog::logger> log,
                         std::shared_ptr<CredentialStore> credentials)
    : options_(std::move(options)), log_(std::move(log)), credentials_(std::move(credentials)) {}

SessionPool::~SessionPool() { drop_all(); }

Result<Session*> SessionPool::session_for(const Url& url, Role role) {
  const auto key = std::make_pair(session_key(url), role);
  if (auto found = sessions_.find(key); found != sessions_.end()) {
    return found->second.session.get();
  }
  std::shared_ptr<const GsiCredentials> gsi;
  if (url.scheme == Scheme::GsiFtp) {
    auto loaded = credentials_->get(connect_detail_);
    if (!loaded) {
      return make_error(loaded.error());
    }
    gsi = std::move(*loaded);
  }
  // Third-party runs hold two sessions to one server; the role tells their dialogues apart.
  const auto label = (role == Role::Source ? "src " : "dst ") + url.origin();
  auto io = std::make_unique<transport::asio::io_context>();
  auto session = Session::connect(*io, url, label, options_, log_, std::move(gsi));
  if (!session) {
    connect_detail_ = "cannot connect to " + url.origin();
    return make_error(session.error());
  }
  const auto& subject = role == Role::Source ? options_.source_subject : options_.dest_subject;
  if (auto logged_in = (*session)->log_in(url, subject); !logged_in) {
    // The session is dropped here, so its refusal must be copied out now.
    connect_detail_ = "cannot log in to " + url.origin();
    if (const auto& rejection = (*session)->control().last_failure(); !rejection.empty()) {
      connect_detail_ += ": " + rejection;
    }
    if (const auto& why = (*session)->login_failure_detail(); !why.empty()) {
      connect_detail_ += "; " + why;
    }
    return make_error(logged_in.error());
  }
  auto* raw = session->get();
  sessions_.emplace(key, Slot{std::move(io), std::move(*session)});
  return raw;
}

void SessionPool::clear_failures() {
  connect_detail_.clear();
  for (auto& [key, slot] : sessions_) {
    slot.session->control().clear_failure();
  }
}

std::string SessionPool::failure_detail() const {
  std::string detail = connect_detail_;
  for (const auto& [key, slot] : sessions_) {
    const auto& rejection = slot.session->control().last_failure();
    if (!rejection.empty()) {
      detail += (detail.empty() ? "" : "; ") + slot.session->control().label() + " replied to " +
                rejection;
    }
  }
  return one_line(detail);
}

std::optional<int> SessionPool::refusal_code() const {
  for (const auto& [key, slot] : sessions_) {
    if (auto code = slot.session->control().last_failure_code()) {
      return code;
    }
  }
  return std::nullopt;
}

void SessionPool::drop_all() {
  for (auto& [key, slot] : sessions_) {
    slot.session->control().channel().close();
  }
  sessions_.clear();
  ++generation_;
}

void SessionPool::quit_all() {
  for (auto& [key, slot] : sessions_) {
    slot.session->control().quit();
  }
  sessions_.clear();
  ++generation_;
}

}  // namespace gridftp::client
