// The logged-in sessions one copy worker holds: one per (server, role), each with its own
// io_context so that the two control connections of a third-party transfer can be waited on
// from two threads at once. Also the user's GSI credentials, loaded once and shared by all
// workers. Not thread-safe: each worker owns one pool (CredentialStore is shared and locked).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "client/session/session.hpp"

namespace gridftp::client {

// The user's GSI credentials, loaded on the first gsiftp:// URL of the run and kept for the rest.
class CredentialStore {
 public:
  // Errors: those of GsiCredentials::load_from_environment; `detail` then says what was wrong.
  Result<std::shared_ptr<const GsiCredentials>> get(std::string& detail);

 private:
  std::mutex mutex_;
  std::shared_ptr<const GsiCredentials> credentials_;
};

class SessionPool {
 public:
  enum class Role { Source, Dest };

  SessionPool(SessionOptions options, std::shared_ptr<spdlog::logger> log,
              std::shared_ptr<CredentialStore> credentials);
  ~SessionPool();
  SessionPool(const SessionPool&) = delete;
  SessionPool& operator=(const SessionPool&) = delete;

  // The session for url's server in `role`, connecting and logging in when there is none.
  // Errors: connection and login errors (see Session), Errc::BadArgument for ftps://, and those
  // of CredentialStore::get; failure_detail() then says what happened.
  Result<Session*> session_for(const Url& url, Role role);

  // Forgets the last failure's details on every session.
  void clear_failures();
  // Why the last call failed beyond its code: connection/login problems and each server's refusal,
  // joined into one line.
  std::string failure_detail() const;
  // The code of the refusing reply, if a server refused.
  std::optional<int> refusal_code() const;
  // After a failure a connection may be mid-transfer or out of step; reconnecting is cheaper than
  // reasoning about its state.
  void drop_all();
  // QUIT on every open session.
  void quit_all();
  // Changes whenever sessions are dropped, so callers can tell a fresh session from an old one.
  std::uint64_t generation() const { return generation_; }

 private:
  struct Slot {
    std::unique_ptr<transport::asio::io_context> io;  // declared first: outlives the session
    std::unique_ptr<Session> session;
  };

  SessionOptions options_;
  std::shared_ptr<spdlog::logger> log_;
  std::shared_ptr<CredentialStore> credentials_;
  std::map<std::pair<std::string, Role>, Slot> sessions_;
  std::string connect_detail_;
  std::uint64_t generation_ = 0;
};

}  // namespace gridftp::client
