#include "server/session/control_session.hpp"

#include <array>
#include <span>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "protocol/control/command_parser.hpp"
#include "protocol/control/line_reader.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/control/reply_for_error.hpp"
#include "protocol/control/virtual_path.hpp"
#include "protocol/core/errors.hpp"
#include "server/session/command_table.hpp"
#include "transport/error_conversion.hpp"
#include "transport/peer_address.hpp"

namespace gridftp::server {

namespace rc = protocol::control::reply_code;

// Replies waiting for a peer before its next commands are read (control_session read loop).
constexpr std::size_t kMaxReplyBacklogBytes = std::size_t{256} * 1024;
using protocol::control::Reply;
using transport::use_awaitable;

ControlSession::ControlSession(std::unique_ptr<transport::ByteStream> control,
                               ControlEndpoints endpoints, SessionServices& services,
                               std::uint64_t id)
    : control_(std::move(control)),
      endpoints_(std::move(endpoints)),
      executor_(control_->get_executor()),
      services_(services),
      id_(id),
      log_(services.log),
      replies_(*control_),
      // UDPX keys come from DCAU's TLS, or unauthenticated where the config allows
      // (docs/UDPX.md §4.1).
      discovery_commands_(
          {.gsi = services.gsi != nullptr,
           .tls = services.ftps != nullptr,
           .udpx = services.gsi != nullptr || services.config.udpx.allow_unauthenticated},
          *this),
      login_commands_(
          services, security_, *this,
          [this] {
            namespace_commands_.enter_home(login().home());
            touch_idle();
          },
          executor_, tag()),
      namespace_commands_(login(), *this, services.log, tag()),
      checksum_commands_(namespace_commands_, login(), services.blocking_pool, *this, services.log,
                         tag()),
      data_channel_(executor_, services.data_loops, services.config.listen),
      data_setup_commands_({data_channel_, udpx_, stream_cache_, &movers_}, services.config.listen,
                           endpoints_, executor_, *this, services.log, tag()),
      transfer_parameters_(stream_cache_, *this),
      protection_commands_(security_, stream_cache_, *this),
      movers_(services, login(), security_, transfer_parameters_.settings(), executor_, tag()),
      transfer_commands_(services, executor_,
                         {login(),
                          namespace_commands_,
                          transfer_parameters_,
                          security_,
                          {data_channel_, udpx_, stream_cache_, &movers_}},
                         *this, *this, id, peer_address_, tag()),
      idle_timer_(executor_) {
  if (services_.metrics) movers_.take_turn(services_.metrics->session_started());
}

ControlSession::~ControlSession() {
  // A UDPX transfer's thread still running ends at its next turn (the server joins it).
  if (udpx_.live) udpx_.live->stop = true;
  leave_registry();
  if (services_.metrics) services_.metrics->session_ended();
}

void ControlSession::leave_registry() {
  login().leave();
  if (entered_registry_) services_.registry.leave(peer_address_);
  entered_registry_ = false;
}

std::string ControlSession::tag() const { return "[s" + std::to_string(id_) + "]"; }

transport::awaitable<void> ControlSession::run() {
  const auto self = shared_from_this();
  peer_address_ = endpoints_.peer_text();
  if (const auto refusal = services_.registry.try_enter(peer_address_);
      refusal != SessionRegistry::Admission::Admitted) {
    log_->warn("{} refused peer={}: {} reached", tag(), peer_address_,
               SessionRegistry::limit_name(refusal));
    send_error(Condition::TooManySessions, SessionRegistry::refusal_text(refusal));
    close_after_replies();
    co_await drain_replies();
    co_return;
  }
  entered_registry_ = true;
  if (services_.config.listen.require_data_peer_match && endpoints_.peer) {
    data_channel_.set_expected_peer(transport::unmapped(endpoints_.peer->address()));
  }
  log_->info("{} session start peer={}", tag(), peer_address_);
  if (services_.config.striping.mover && !co_await accept_frontend()) {
    leave_registry();
    co_return;
  }
  send(
      protocol::control::make_message_reply(rc::kServiceReady, {}, services_.config.server.banner));
  touch_idle();
  asio::co_spawn(executor_, watch_idle(), asio::detached);
  co_await read_commands();
  // The peer is gone or we closed: end any transfer so uploads are cleaned up and logged.
  if (transfer_commands_.running().is_active()) {
    transfer_commands_.running().request_abort();
    // MODE E connections stay open after an abort request until closed: a mover whose frontend
    // went (or a client that left its data connections up) must not wait for their EOF, nor a
    // frontend for its movers. A UDPX transfer ends by its own idle timeout (docs/UDPX.md).
    transfer_commands_.running().close_streams();
    movers_.abort();
    data_channel_.cancel();
    co_await transfer_commands_.running().wait_until_done();
  }
  data_channel_.cancel();
  // The last replies (221 after QUIT, 421 at shutdown) may still be on their way out.
  co_await replies_.wait_until_drained(std::chrono::seconds(10));
  closed_ = true;
  idle_timer_.cancel();
  // An ended session stops counting now, not when its last coroutine lets go of the object.
  leave_registry();
  log_->info("{} session end user={}", tag(), login().user() ? login().user()->name : "-");
}

void ControlSession::request_close() {
  asio::post(executor_, [self = shared_from_this()] {
    if (self->replies_.is_closing()) return;
    self->transfer_commands_.running().request_abort();
    self->data_channel_.cancel();
    if (self->udpx_.live) self->udpx_.live->stop = true;
    self->send_error(Condition::ServiceClosing, "Server shutting down.");
    self->close_after_replies();
  });
}

transport::awaitable<void> ControlSession::read_commands() {
  protocol::control::LineReader reader(services_.config.limits.max_command_line_bytes);
  std::array<char, 4096> buffer{};
  std::vector<protocol::control::LineEvent> events;
  while (!replies_.is_closing()) {
    // A peer that sends commands but does not read the replies would have us queue them without
    // end: read on only once it has taken most of what waits, and give up on it after
    // data_seconds without that.
    if (replies_.backlog() > kMaxReplyBacklogBytes) {
      const std::chrono::seconds limit(services_.config.timeouts.data_seconds);
      if (!co_await replies_.wait_for_backlog_below(kMaxReplyBacklogBytes / 2, limit)) {
        log_->warn("{} peer stopped reading replies ({} bytes waiting for {} s): closing", tag(),
                   replies_.backlog(), limit.count());
        co_return;
      }
    }
    // Clear, or TLS inside the stream after AUTH TLS: plain command bytes either way.
    std::error_code ec;
    const auto got = co_await control_->read_some(buffer, ec);
    if (ec) {
      if (ec != transport::TransportErrc::EndOfStream && security_.ftps)
        log_->warn("{} TLS on the control channel failed: {}", tag(), ec.message());
      co_return;
    }
    events.clear();
    reader.feed(std::span<const char>(buffer.data(), got), events);
    for (auto& event : events) {
      touch_idle();
      if (event.too_long) {
        log_->warn("{} command line over {} bytes discarded", tag(),
                   services_.config.limits.max_command_line_bytes);
        send_error(make_error_code(protocol::Errc::LineTooLong));
        continue;
      }
      co_await execute(event.line);
      if (replies_.is_closing()) co_return;
    }
  }
}

transport::awaitable<void> ControlSession::execute(const std::string& line) {
  if (!security_.gsi_protected) {
    co_await execute_plain(line);
    co_return;
  }
  auto command = protocol::control::parse_command(line);
  if (!command || !protocol::control::is_protected_command(command->verb)) {
    // RFC 2228: once protected, a cleartext command is refused (Globus just hangs up).
    send_error(Condition::ProtectionDenied);
    co_return;
  }
  co_await execute_protected(*command);
}

transport::awaitable<void> ControlSession::execute_plain(const std::string& line) {
  auto command = protocol::control::parse_command(line);
  if (!command) {
    log_->debug("{} <- (unparsed) {}", tag(), line.substr(0, 64));
    if (command.error() == make_error_code(protocol::Errc::EmptyCommand))
      send_error(command.error(), "Empty command.");
    else
      send_error(command.error());
    co_return;
  }
  const auto verb = command->verb;
  log_->debug("{} <- {}", tag(), verb == protocol::control::Verb::Pass ? "PASS ****" : line);
  if (const auto& disabled = services_.config.server.disabled_commands;
      std::find(disabled.begin(), disabled.end(), protocol::control::verb_name(verb)) !=
      disabled.end()) {
    send_error(Condition::UnknownCommand, "Command not supported.");
    co_return;
  }
  if (transfer_commands_.running().is_active() &&
      !protocol::control::runs_during_transfer(*command))
    co_await transfer_commands_.running().wait_until_done();
  if (security_required() && !security_.gsi_protected && !security_.ftps &&
      !protocol::control::allowed_before_security(verb)) {
    send_error(Condition::NotLoggedIn, services_.gsi != nullptr
                                           ? "Must perform GSSAPI authentication."
                                           : "TLS required: use AUTH TLS first.");
    co_return;
  }
  if (auto allowed = protocol::control::check_allowed(verb, login().phase()); !allowed) {
    send_error(allowed.error());
    co_return;
  }
  namespace_commands_.before_command(verb);
  const auto handler = handler_for(verb);
  if (handler == nullptr) {
    send_error(Condition::NotImplemented);
    co_return;
  }
  co_await handler(*this, command->argument);
}

void ControlSession::send(Reply reply) {
  if (services_.metrics && reply.code >= 400) services_.metrics->reply(reply.code);
  if (log_->should_log(spdlog::level::debug))
    log_->debug("{} -> {} {}", tag(), reply.code, reply.lines.front());
  auto formatted = protocol::control::format_reply(reply);
  // FTPS encrypts inside the control stream; GSI wraps each line here (RFC 2228).
  if (security_.gsi_protected) {
    formatted = protect_reply(formatted);
  }
  start_drain_if_needed(replies_.queue(std::move(formatted)));
}

void ControlSession::start_drain_if_needed(bool needed) {
  if (needed) asio::co_spawn(executor_, drain_replies(), asio::detached);
}

transport::awaitable<void> ControlSession::drain_replies() {
  const auto self = shared_from_this();  // the writer's stream is ours
  co_await replies_.drain();
}

void ControlSession::close_after_replies() { start_drain_if_needed(replies_.close_after_drain()); }

void ControlSession::touch_idle() {
  const auto& timeouts = services_.config.timeouts;
  const auto limit = login().is_logged_in() ? timeouts.idle_seconds : timeouts.login_seconds;
  idle_expiry_ = std::chrono::steady_clock::now() + std::chrono::seconds(limit);
}

transport::awaitable<void> ControlSession::watch_idle() {
  const auto self = shared_from_this();
  while (!closed_ && !replies_.is_closing()) {
    idle_timer_.expires_at(idle_expiry_);
    boost::system::error_code ec;
    co_await idle_timer_.async_wait(asio::redirect_error(use_awaitable, ec));
    if (closed_ || replies_.is_closing()) co_return;
    if (transfer_commands_.running().is_active()) {
      touch_idle();  // a moving transfer is activity; the data deadline guards stalls
      continue;
    }
    if (std::chrono::steady_clock::now() >= idle_expiry_) {
      log_->info("{} idle timeout", tag());
      send_error(Condition::ServiceClosing, "Idle timeout; closing control connection.");
      close_after_replies();
      co_return;
    }
  }
}

}  // namespace gridftp::server
