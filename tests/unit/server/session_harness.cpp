#include "tests/unit/server/session_harness.hpp"

#include <array>
#include <chrono>
#include <cstdlib>
#include <system_error>

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

namespace gridftp::server::testing {
namespace {

namespace asio = transport::asio;

// Only catches a hang: every wait of a working session ends long before.
constexpr auto kHangGuard = std::chrono::seconds(30);

std::filesystem::path make_temporary_root() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "session-harness-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::system_error(errno, std::generic_category());
  return pattern;
}

ServerConfig harness_config(const std::filesystem::path& root,
                            const SessionHarnessOptions& options) {
  ServerConfig config;
  config.anonymous.enabled = true;
  config.anonymous.root = root;
  config.anonymous.writable = {"incoming"};
  config.limits.login_failure_delay_ms = 0;
  if (options.configure) options.configure(config);
  return config;
}

std::shared_ptr<spdlog::logger> null_logger() {
  return std::make_shared<spdlog::logger>("session-harness",
                                          std::make_shared<spdlog::sinks::null_sink_mt>());
}

}  // namespace

SessionHarness::SessionHarness(SessionHarnessOptions options)
    : root_(make_temporary_root()),
      config_(harness_config(root_, options)),
      registry_(config_.limits),
      authenticator_(config_.anonymous, std::move(options.accounts)),
      ftps_(std::move(options.ftps)),
      transfer_log_(nullptr),
      services_{config_,       registry_,      authenticator_, nullptr, ftps_,   transfer_log_,
                null_logger(), blocking_pool_, data_loops_,    nullptr, nullptr, nullptr} {
  services_.switches_account = false;
  auto [client, session_end] =
      transport::make_memory_stream_pair(io_.get_executor(), {}, options.session_end);
  client_ = std::move(client);
  ControlEndpoints endpoints;
  endpoints.local = transport::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 2811);
  endpoints.peer = transport::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 40000);
  session_ =
      std::make_shared<ControlSession>(std::move(session_end), std::move(endpoints), services_, 1);
  asio::co_spawn(io_, session_->run(),
                 [ended = ended_](const std::exception_ptr&) { *ended = true; });
}

SessionHarness::~SessionHarness() {
  // The peer hangs up; the session ends as it does when a client goes away.
  if (client_) client_->close();
  (void)wait_for_end();
  session_.reset();
  blocking_pool_.join();
  io_.restart();
  io_.run_for(kHangGuard);  // what the ended session left queued (timers being cancelled)
  std::error_code ignored;
  std::filesystem::remove_all(root_, ignored);
}

bool SessionHarness::run_until(const std::function<bool()>& done) {
  // Work from other threads (the blocking pool's password checks) arrives later: wait for it.
  const auto guard = asio::make_work_guard(io_);
  const auto deadline = std::chrono::steady_clock::now() + kHangGuard;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (io_.stopped()) io_.restart();
    io_.run_one_for(std::chrono::milliseconds(100));
  }
  return true;
}

bool SessionHarness::send(std::string_view bytes) {
  struct Write {
    bool done = false;
    std::error_code ec;
    std::string bytes;
  };
  auto write = std::make_shared<Write>();
  write->bytes = bytes;
  asio::co_spawn(
      io_,
      [write, stream = client_.get()]() -> transport::awaitable<void> {
        co_await stream->write_all(write->bytes, write->ec);
        write->done = true;
      },
      asio::detached);
  return run_until([&] { return write->done; }) && !write->ec;
}

TestReply SessionHarness::read_reply() {
  struct Read {
    bool done = false;
    std::error_code ec;
    std::size_t got = 0;
    std::array<char, 4096> buffer{};
  };
  for (;;) {
    if (!received_.empty()) {
      auto used = parser_.feed(received_);
      if (!used) return {0, "unparsable reply: " + used.error().message(), {}};
      received_.erase(0, *used);
      if (parser_.has_reply()) {
        auto parsed = parser_.take_reply();
        return {parsed.code, std::string(parsed.first_text()), std::move(parsed.lines)};
      }
    }
    auto read = std::make_shared<Read>();
    asio::co_spawn(
        io_,
        [read, stream = client_.get()]() -> transport::awaitable<void> {
          read->got = co_await stream->read_some(read->buffer, read->ec);
          read->done = true;
        },
        asio::detached);
    if (!run_until([&] { return read->done; })) return {0, "no reply within the hang guard", {}};
    if (read->ec) return {0, "stream ended: " + read->ec.message(), {}};
    received_.append(read->buffer.data(), read->got);
  }
}

std::vector<TestReply> SessionHarness::read_replies(std::size_t count) {
  std::vector<TestReply> replies;
  for (std::size_t i = 0; i < count; ++i) replies.push_back(read_reply());
  return replies;
}

bool SessionHarness::wait_for_end() {
  return run_until([ended = ended_] { return *ended; });
}

}  // namespace gridftp::server::testing
