// A gridftpd control session in a unit test, with no socket: the session reads and writes one
// end of a MemoryStream pair (transport/memory_stream.hpp), the test the other.
//
//   SessionHarness session;                  // anonymous login on, a temporary root
//   CHECK(session.read_reply().code == 220);  // the greeting
//   session.send("USER anonymous\r\nPASS me@example.org\r\n");
//   const auto replies = session.read_replies(2);  // 331, 230
//
// What it builds: the SessionServices gridftpd's Server builds (server/session/
// session_services.hpp) from a ServerConfig with a temporary directory as the anonymous root
// (writable "incoming", as tests/support/gridftp_harness.py configures a test server), no GSI,
// no metrics, a null logger, and a one-thread blocking pool and data loop. `configure` changes
// the config before the services see it (FTPS, limits, ...). The session runs on the harness's
// io_context, one thread: the test's own. Each call runs that io_context until what it waits
// for happened; a guard of 30 s only stops a broken session from hanging the test run (the call
// then fails), it is never what a test measures.
//
// A session inside the test process never switches accounts (SessionServices::
// switches_account), so logins work when the tests run as root.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/control/reply_parser.hpp"
#include "security/openssl_ptr.hpp"
#include "server/auth/authenticator.hpp"
#include "server/config/server_config.hpp"
#include "server/logging/transfer_log.hpp"
#include "server/session/control_session.hpp"
#include "server/session/session_registry.hpp"
#include "server/session/session_services.hpp"
#include "transport/asio.hpp"
#include "transport/loop_pool.hpp"
#include "transport/memory_stream.hpp"

namespace gridftp::server::testing {

struct SessionHarnessOptions {
  // Knobs of the session's end of the stream (reads split, a break after N bytes).
  transport::MemoryStreamOptions session_end;
  // Changes the config before the session starts; the root is already set.
  std::function<void(ServerConfig&)> configure;
  // The FTPS server context (AUTH TLS); empty: FTPS off.
  security::SslCtxPtr ftps;
  std::vector<auth::Account> accounts;
};

// One reply as the test's end read it. code 0: no reply came; `text` then says why.
struct TestReply {
  int code = 0;
  std::string text;                // the first line after "DDD " / "DDD-"
  std::vector<std::string> lines;  // each raw line, without its line ending
};

class SessionHarness {
 public:
  explicit SessionHarness(SessionHarnessOptions options = {});
  ~SessionHarness();
  SessionHarness(const SessionHarness&) = delete;
  SessionHarness& operator=(const SessionHarness&) = delete;

  // Writes `bytes` to the session as one write. False if the stream refused them.
  bool send(std::string_view bytes);
  TestReply read_reply();
  std::vector<TestReply> read_replies(std::size_t count);
  // Runs until the session's run() returned; false if it had not within the hang guard.
  bool wait_for_end();
  bool ended() const { return *ended_; }

  // The test's end of the control stream. replace_client() puts a stream around it (a client
  // TLS stream after AUTH TLS): take_client() hands the old one over for wrapping.
  transport::ByteStream& client() { return *client_; }
  std::unique_ptr<transport::ByteStream> take_client() { return std::move(client_); }
  void replace_client(std::unique_ptr<transport::ByteStream> client) {
    client_ = std::move(client);
  }

  // Runs the io_context until `done()` holds; false if it did not within the hang guard.
  bool run_until(const std::function<bool()>& done);

  transport::asio::io_context& io() { return io_; }
  const std::filesystem::path& root() const { return root_; }
  const ServerConfig& config() const { return config_; }
  SessionRegistry& registry() { return registry_; }

 private:
  std::filesystem::path root_;
  ServerConfig config_;
  SessionRegistry registry_;
  auth::Authenticator authenticator_;
  security::SslCtxPtr ftps_;
  TransferLog transfer_log_;
  transport::asio::thread_pool blocking_pool_{1};
  transport::LoopPool data_loops_{1};
  SessionServices services_;
  // Declared after the services: handlers still queued when it goes may hold the session.
  transport::asio::io_context io_;
  std::unique_ptr<transport::ByteStream> client_;
  std::shared_ptr<ControlSession> session_;
  std::shared_ptr<bool> ended_ = std::make_shared<bool>(false);
  protocol::control::ReplyParser parser_;
  std::string received_;  // read from the client end and not yet parsed
};

}  // namespace gridftp::server::testing
