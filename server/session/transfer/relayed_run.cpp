// A frontend's unstriped transfer on its session's mover (docs/STRIPING.md, "Unstriped
// transfers"): after a PASV or PORT that striping::MoverStripes handed to a mover, the data
// command runs there with this session's settings, and each of its replies (150, markers, the
// final one) goes to the client as the mover wrote it. This session keeps answering STAT and
// ABOR meanwhile; ABOR closes the link, which ends the mover's transfer.
#include <spdlog/spdlog.h>

#include "protocol/core/errors.hpp"
#include "server/session/transfer/transfer_commands.hpp"
#include "server/striping/mover_stripes.hpp"

namespace gridftp::server {

namespace asio = transport::asio;

bool TransferCommands::start_relayed_if_set_up(std::string command, RelayedRestart restart) {
  if (movers_ == nullptr || !movers_->will_relay()) return false;
  std::vector<std::string> preparation;
  if (restart.offset > 0) preparation.push_back("REST " + std::to_string(restart.offset));
  if (restart.present && !restart.present->empty())
    preparation.push_back("REST " + restart.present->format_range_list());
  if (restart.allocated) preparation.push_back("ALLO " + std::to_string(*restart.allocated));
  transfer_.begin();
  figures_ = {};
  asio::co_spawn(executor_, run_relayed(std::move(command), std::move(preparation)),
                 asio::detached);
  return true;
}

transport::awaitable<void> TransferCommands::run_relayed(std::string command,
                                                         std::vector<std::string> preparation) {
  const auto self = owner_.keep_alive();
  const auto verb = command.substr(0, command.find(' '));
  const bool sending =
      verb == "RETR" || verb == "ERET" || verb == "LIST" || verb == "NLST" || verb == "MLSD";
  const striping::MoverStripes::ReplyRelay relay =
      [this](const protocol::control::ParsedReply& reply) {
        replies_.send(protocol::control::reply_as_written(reply));
      };
  auto outcome = co_await movers_->relay(preparation, command, sending, relay);
  if (!outcome && transfer_.abort_requested())
    outcome = make_error(error_code_for(Condition::TransferAborted));
  if (outcome) {
    log_->info("{} {} on a mover: {}", tag_, verb, outcome->lines.front());
    replies_.send(protocol::control::reply_as_written(*outcome));
  } else {
    log_->warn("{} {} on a mover failed: {} {}", tag_, verb, outcome.error().message(),
               movers_->failure());
    replies_.send(movers_->failure_reply(outcome.error()));
  }
  transfer_.end();
}

}  // namespace gridftp::server
