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
#include <system_error>
#include <utility>
#include <vector>

#include "protocol/control/host_port.hpp"
#include "protocol/control/reply.hpp"
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

// "address:port" of a mover, as logs and replies name it.
std::string endpoint_text(const transport::tcp::endpoint& endpoint);

class MoverStripes {
 public:
  // A mover's 111 or 112 during a striped STOR, with its stripe's index (its SPAS position).
  using MarkerRelay = std::function<void(unsigned stripe, const protocol::control::ParsedReply&)>;
  // A mover's preliminary reply during an unstriped transfer it runs for this session.
  using ReplyRelay = std::function<void(const protocol::control::ParsedReply&)>;

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

  // Unstriped transfers on a frontend that is not hybrid (mover_relay.cpp): the session's
  // mover is the first that answers from its turn, so sessions take the movers in turn and one
  // that does not answer is passed over; it stays the session's while its link lasts. A
  // password login's transfers stay on the frontend (a mover maps only GSI and anonymous users).
  bool relays_unstriped() const;
  // This session's place among the server's sessions (MetricsPage::session_started).
  void take_turn(std::uint64_t turn) { turn_ = turn; }
  // PASV: the session's mover listens. Errors as listen()'s.
  transport::awaitable<Result<protocol::control::HostPort>> listen_on_one();
  // PORT or EPRT, as the client wrote it (checked here): the session's mover connects.
  void connect_one(std::string port_line);
  bool will_relay() const { return direction_ == Direction::Relay; }
  // Runs `command` ("STOR /path", "LIST /dir"...) on the session's mover after this session's
  // settings, the PORT line if any, and `preparation` (REST, ALLO); its 1xx replies go to
  // `preliminary`. Returns the mover's final reply, or its refusal of a preparation line.
  // Errors: the link's (Condition::TransferFailed naming the mover), TransferAborted.
  transport::awaitable<Result<protocol::control::ParsedReply>> relay(
      const std::vector<std::string>& preparation, std::string command, bool sending,
      const ReplyRelay& preliminary);
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
  // The client's reply to a transfer that failed with `error`, naming the mover when one did.
  protocol::control::Reply failure_reply(std::error_code error) const;

 private:
  enum class Direction { None, Receive, Send, Relay };
  transport::awaitable<Result<void>> open_links();
  // Every configured mover's address (a name may give several); ones that do not resolve are
  // logged and left out.
  transport::awaitable<std::vector<transport::tcp::endpoint>> mover_endpoints();
  // A link to `mover`, logged in as this session's user; nullptr when it does not answer.
  transport::awaitable<std::shared_ptr<MoverLink>> open_logged_in(
      const transport::tcp::endpoint& mover);
  transport::awaitable<Result<std::shared_ptr<MoverLink>>> session_mover();
  // apply() for the session's mover, sending only the lines that changed since the last time.
  transport::awaitable<Result<void>> apply_changed(MoverLink& link, bool sending);
  // USER and PASS for the movers: this session's GSI identity or the anonymous user.
  std::optional<std::pair<std::string, std::string>> login_words() const;
  transport::awaitable<Result<void>> log_in(MoverLink& link);
  // SITE STRIPE CRED: the client's delegated credential, for the mover's DCAU.
  transport::awaitable<Result<void>> hand_credential(MoverLink& link);
  // The session's TYPE, MODE, DCAU, PROT...; `striped` insists on TYPE I, MODE E (GFD.20).
  Result<std::vector<std::string>> settings_lines(bool sending, bool striped);
  transport::awaitable<Result<void>> apply(MoverLink& link, bool sending, bool striped);
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
  std::vector<std::string> receivers_;     // SPOR's addresses
  std::shared_ptr<MoverLink> relay_link_;  // the session's mover for unstriped transfers
  std::string relay_port_line_;            // PORT/EPRT for it, until handed over
  // The settings the session's mover has: sent again only when they change, since a new
  // DCAU or PROT there would drop the MODE E connections it keeps for the next transfer.
  std::vector<std::string> relay_settings_;
  std::uint64_t turn_ = 0;
  Direction direction_ = Direction::None;
  bool aborted_ = false;
  std::string failure_;
};

}  // namespace gridftp::server::striping
