// A frontend session's movers (docs/STRIPING.md): with [striping] movers set, SPAS asks every
// reachable mover to listen and answers with their addresses, one stripe each; SPOR's addresses
// are shared out among the movers (stripe i to mover i % N); the STOR or RETR that follows runs
// on every mover at once, and the frontend answers 226 only when all of them did. Each mover is
// driven over its own MoverLink, logged in as this session's user, which the mover maps with
// its own gridmap and runs as that account. Links open at the first striped command and stay
// for the session; a mover that does not answer is left out of the next transfer.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "protocol/control/host_port.hpp"
#include "protocol/control/reply_parser.hpp"
#include "protocol/core/result.hpp"
#include "protocol/restart/byte_range_set.hpp"
#include "server/session/control_security.hpp"
#include "server/session/session_services.hpp"
#include "server/session/transfer_settings.hpp"
#include "server/session/user_login.hpp"
#include "server/striping/mover_link.hpp"
#include "transport/asio.hpp"

namespace spdlog {
class logger;
}

namespace gridftp::server::striping {

class MoverStripes {
 public:
  // A mover's 111 or 112 during a striped STOR, with its stripe's index (its SPAS position).
  using MarkerRelay = std::function<void(unsigned stripe, const protocol::control::ParsedReply&)>;

  // `settings`: the session's TYPE, MODE, OPTS RETR..., which each mover is given too.
  MoverStripes(SessionServices& services, const UserLogin& login, const ControlSecurity& security,
               const TransferSettings& settings, transport::asio::any_io_executor executor,
               std::string tag);
  MoverStripes(const MoverStripes&) = delete;
  MoverStripes& operator=(const MoverStripes&) = delete;
  ~MoverStripes();

  // This server is a frontend: movers are configured and it has a certificate to reach them.
  bool enabled() const;
  // SPAS: the movers' passive addresses (the next transfer receives). Errors: LoginFailed for a
  // login the movers cannot take (a password account), DataConnection when no mover answers,
  // and a mover's refusal as Condition::TransferFailed.
  transport::awaitable<Result<std::vector<protocol::control::HostPort>>> listen();
  // SPOR: the receivers' addresses, as the client gave them (the next transfer sends).
  void connect_to(std::vector<std::string> addresses);
  // PASV, PORT and their kin: the next transfer is not striped.
  void forget() { direction_ = Direction::None; }
  // The stripes of the transfer listen() set up: one per mover that answered.
  unsigned stripe_count() const { return static_cast<unsigned>(links_.size()); }
  bool will_receive() const { return direction_ == Direction::Receive; }
  bool will_send() const { return direction_ == Direction::Send; }

  // The striped STOR of `path` (virtual) after listen(), or RETR after connect_to(); returns
  // when every mover has answered. `present`: the client's REST ranges (a restart), which
  // every mover is given; a restarted STOR keeps the partial file the failed one left.
  // `started` runs once every mover has begun (its 1xx); `markers` gets the movers' 111/112.
  // Errors: the first mover's failure (Condition::TransferFailed naming the mover), or
  // TransferAborted after abort().
  transport::awaitable<Result<void>> store(
      const std::string& path, const std::optional<protocol::restart::ByteRangeSet>& present,
      const std::function<void()>& started, const MarkerRelay& markers);
  transport::awaitable<Result<void>> retrieve(
      const std::string& path, const std::optional<protocol::restart::ByteRangeSet>& present,
      const std::function<void()>& started);
  // ABOR: every mover's transfer. Thread: the session strand.
  void abort();
  // The mover a failure came from, for the reply and log ("mover 127.0.0.1:6001: ...").
  const std::string& failure() const { return failure_; }

 private:
  enum class Direction { None, Receive, Send };
  transport::awaitable<Result<void>> open_links();
  // USER and PASS for the movers: this session's GSI identity or the anonymous user.
  std::optional<std::pair<std::string, std::string>> login_words() const;
  transport::awaitable<Result<void>> log_in(MoverLink& link);
  // SITE STRIPE CRED: the client's delegated credential, for the mover's DCAU.
  transport::awaitable<Result<void>> hand_credential(MoverLink& link);
  transport::awaitable<Result<void>> apply(MoverLink& link, bool sending);
  // `line` on `link`, expecting a reply of class `expected` (2 for 2xx...).
  transport::awaitable<Result<void>> expect(MoverLink& link, std::string line, int expected);
  // REST `present` on `link` when there is a restart.
  transport::awaitable<Result<void>> restart_at(
      MoverLink& link, const std::optional<protocol::restart::ByteRangeSet>& present);
  // Sends `command` to each participant, waits for the 1xx of each, then for every final reply
  // (the preliminary ones between go to `markers`).
  transport::awaitable<Result<void>> run_on_all(
      const std::vector<std::shared_ptr<MoverLink>>& movers,
      const std::vector<std::string>& commands, const std::function<void()>& started,
      const MarkerRelay& markers);
  std::error_code fail(const MoverLink& link, const std::string& what);

  SessionServices& services_;
  const UserLogin& login_;
  const ControlSecurity& security_;
  const TransferSettings& settings_;
  transport::asio::any_io_executor executor_;
  std::string tag_;
  std::shared_ptr<spdlog::logger> log_;
  // Shared with the coroutines that wait on them, which an abort may outlive.
  std::vector<std::shared_ptr<MoverLink>> links_;
  std::vector<std::string> receivers_;  // SPOR's addresses
  Direction direction_ = Direction::None;
  bool aborted_ = false;
  std::string failure_;
};

}  // namespace gridftp::server::striping
