// What the tests of a session's parts (namespace_commands_test, data_setup_commands_test) share:
// replies recorded instead of written, a handler run to completion on its own io_context, and a
// temporary root with a logged-in user on it. No sockets, no ControlSession.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <spdlog/logger.h>
#include <stdlib.h>

#include "server/session/session_registry.hpp"
#include "server/session/session_replies.hpp"
#include "server/session/user_login.hpp"
#include "transport/asio.hpp"

namespace gridftp::server::testing {

// Keeps every reply a part sends, in order.
class RecordingReplies : public SessionReplies {
 public:
  void send(protocol::control::Reply reply) override { replies_.push_back(std::move(reply)); }
  using SessionReplies::send;
  void close_after_replies() override { closing_ = true; }
  // Whether the part asked for the session to end after its replies.
  bool closing() const { return closing_; }

  std::size_t count() const { return replies_.size(); }
  // The one reply sent since the last take(); fails the test on none or several.
  protocol::control::Reply take() {
    REQUIRE(replies_.size() == 1);
    auto reply = std::move(replies_.front());
    replies_.clear();
    return reply;
  }

 private:
  std::vector<protocol::control::Reply> replies_;
  bool closing_ = false;
};

// Runs a handler's coroutine on `context` until it finishes.
inline void run_handler(transport::asio::io_context& context, transport::awaitable<void> handler) {
  bool finished = false;
  transport::asio::co_spawn(
      context,
      [](transport::awaitable<void> inner, bool& done) -> transport::awaitable<void> {
        co_await std::move(inner);
        done = true;
      }(std::move(handler), finished),
      transport::asio::detached);
  context.run();
  context.restart();
  REQUIRE(finished);
}

inline void run_handler(transport::awaitable<void> handler) {
  transport::asio::io_context context;
  run_handler(context, std::move(handler));
}

// A logger that writes nowhere (parts log what they did; the tests check replies and files).
inline std::shared_ptr<spdlog::logger> quiet_logger() {
  return std::make_shared<spdlog::logger>("part-test");
}

// A temporary directory, removed afterwards.
struct TempRoot {
  TempRoot() {
    char name[] = "/tmp/session-part-test-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~TempRoot() { std::filesystem::remove_all(path); }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;

  // Writes `content` to `relative` (its directory made) and returns its path.
  std::filesystem::path put(const std::string& relative, std::string_view content) const {
    const auto file = path / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    return file;
  }

  std::filesystem::path path;
};

// Logs `login` in as `name` with `root` as their root, writable everywhere.
inline void log_in_on(UserLogin& login, const TempRoot& root, const std::string& name = "alice") {
  auto storage = storage::PosixStorage::open(root.path, {"/"});
  REQUIRE(storage);
  login.log_in(auth::UserContext{name, root.path, {"/"}, false}, std::move(*storage));
}

// A user on a fresh temporary root, logged in unless told not to: what the parts that reach the
// user's storage (NamespaceCommands, ChecksumCommands) are built over.
struct UserOnRoot {
  explicit UserOnRoot(bool logged_in = true) {
    if (logged_in) log_in_on(login, root);
  }

  TempRoot root;
  LimitsConfig limits;
  SessionRegistry registry{limits};
  UserLogin login{registry};
};

}  // namespace gridftp::server::testing
