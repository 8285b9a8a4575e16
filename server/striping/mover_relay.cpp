// A frontend's unstriped transfers on one mover (docs/STRIPING.md, "Unstriped transfers"): the
// session's mover is the first that answers from its turn, so sessions spread over the movers
// in turn and a mover that does not answer is passed over. The data command runs there, with
// the session's settings; the frontend relays its replies.
#include <utility>

#include <spdlog/spdlog.h>

#include "protocol/control/passive_reply.hpp"
#include "protocol/core/errors.hpp"
#include "server/striping/mover_stripes.hpp"

namespace gridftp::server::striping {

using protocol::control::HostPort;

bool MoverStripes::relays_unstriped() const {
  // A password login stays on the frontend: a mover takes only users it can map itself.
  return enabled() && !services_.config.striping.hybrid && login_words().has_value();
}

transport::awaitable<Result<std::shared_ptr<MoverLink>>> MoverStripes::session_mover() {
  if (relay_link_ && relay_link_->is_open()) co_return relay_link_;
  relay_link_.reset();
  const auto endpoints = co_await mover_endpoints();
  for (std::size_t k = 0; k < endpoints.size(); ++k) {
    const auto& endpoint = endpoints[(turn_ + k) % endpoints.size()];
    if (auto link = co_await open_logged_in(endpoint)) {
      relay_link_ = std::move(link);
      relay_settings_.clear();
      log_->info("{} striping: unstriped transfers on mover {}", tag_, endpoint_text(endpoint));
      co_return relay_link_;
    }
  }
  failure_ = "no mover answered";
  co_return make_error(error_code_for(Condition::DataConnection));
}

transport::awaitable<Result<void>> MoverStripes::apply_changed(MoverLink& link, bool sending) {
  auto lines = settings_lines(sending, false);
  if (!lines) co_return make_error(lines.error());
  for (std::size_t i = 0; i < lines->size(); ++i) {
    const auto& line = (*lines)[i];
    if (i < relay_settings_.size() && relay_settings_[i] == line) continue;
    if (auto done = co_await expect(link, line, 2); !done) {
      relay_settings_.clear();  // whatever the mover has now, send it all next time
      co_return done;
    }
  }
  relay_settings_ = std::move(*lines);
  co_return Result<void>{};
}

transport::awaitable<Result<HostPort>> MoverStripes::listen_on_one() {
  direction_ = Direction::None;
  failure_.clear();
  auto mover = co_await session_mover();
  if (!mover) co_return make_error(mover.error());
  auto& link = **mover;
  if (auto applied = co_await apply_changed(link, false); !applied)
    co_return make_error(applied.error());
  auto reply = co_await link.command("PASV");
  if (!reply) co_return make_error(fail(link, "PASV: " + reply.error().message()));
  auto address = reply->code == 227
                     ? protocol::control::parse_pasv_reply(reply->first_text())
                     : Result<HostPort>(make_error(error_code_for(Condition::DataConnection)));
  if (!address) co_return make_error(fail(link, "PASV: " + reply->lines.front()));
  relay_port_line_.clear();
  direction_ = Direction::Relay;
  co_return address;
}

void MoverStripes::connect_one(std::string port_line) {
  relay_port_line_ = std::move(port_line);
  direction_ = Direction::Relay;
}

transport::awaitable<Result<protocol::control::ParsedReply>> MoverStripes::relay(
    const std::vector<std::string>& preparation, std::string command, bool sending,
    const ReplyRelay& preliminary) {
  failure_.clear();
  aborted_ = false;
  auto mover = co_await session_mover();
  if (!mover) co_return make_error(mover.error());
  const auto link = *mover;
  if (auto applied = co_await apply_changed(*link, sending); !applied)
    co_return make_error(applied.error());
  if (!relay_port_line_.empty()) {
    // Once: the mover keeps it, and its MODE E connections, for the transfers after this one.
    if (auto port = co_await expect(*link, std::exchange(relay_port_line_, {}), 2); !port)
      co_return make_error(port.error());
  }
  for (const auto& line : preparation) {
    auto reply = co_await link->command(line);
    if (!reply) co_return make_error(fail(*link, reply.error().message()));
    if (!reply->is_positive()) co_return reply;  // the mover's refusal is the client's answer
  }
  auto reply = co_await link->command(std::move(command));
  while (reply && reply->is_preliminary()) {
    preliminary(*reply);
    reply = co_await link->read_reply();
    if (aborted_) co_return make_error(error_code_for(Condition::TransferAborted));
  }
  if (!reply) {
    auto ec = fail(*link, reply.error().message());
    abort();
    co_return make_error(ec);
  }
  co_return reply;
}

}  // namespace gridftp::server::striping
