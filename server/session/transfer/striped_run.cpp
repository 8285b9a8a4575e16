// A frontend's striped transfer (docs/STRIPING.md): STOR after SPAS, RETR after SPOR, run by
// the movers that striping::MoverStripes drives, while this session keeps answering STAT and
// ABOR. The frontend moves no data itself; its 226 means every mover's stripe is in (and, for
// a STOR, the file committed under its name).
#include <chrono>

#include <spdlog/spdlog.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"
#include "server/session/transfer/transfer_commands.hpp"
#include "server/striping/mover_stripes.hpp"

namespace gridftp::server {

namespace asio = transport::asio;
namespace rc = protocol::control::reply_code;

bool TransferCommands::start_striped_if_set_up(
    const std::string& path, const char* command,
    std::optional<protocol::restart::ByteRangeSet> present) {
  if (movers_ == nullptr) return false;
  const bool receiving = std::string_view(command) == "STOR";
  if (receiving ? !movers_->will_receive() : !movers_->will_send()) return false;
  transfer_.begin();
  figures_ = {};
  asio::co_spawn(executor_, run_striped(path, command, receiving, std::move(present)),
                 asio::detached);
  return true;
}

void TransferCommands::relay_mover_marker(protocol::restart::StripedMarkers& markers,
                                          unsigned stripe,
                                          const protocol::control::ParsedReply& reply) {
  if (reply.code == rc::kRestartMarker && !reply.lines.empty()) {
    if (auto text = markers.on_range_marker(reply.lines.front()))
      replies_.send(rc::kRestartMarker, std::move(*text));
  } else if (reply.code == rc::kPerfMarker) {
    if (auto lines = markers.on_perf_marker(stripe, reply.lines, now_tenths()))
      replies_.send(protocol::control::Reply{rc::kPerfMarker, std::move(*lines)});
  }
}

transport::awaitable<void> TransferCommands::run_striped(
    std::string path, std::string command, bool receiving,
    std::optional<protocol::restart::ByteRangeSet> present) {
  const auto self = owner_.keep_alive();
  const auto started = std::chrono::steady_clock::now();
  const auto opened = [this] {
    replies_.send(rc::kFileStatusOk,
                  std::string("Opening ") + settings().type_name() + " mode data connection.");
  };
  Result<void> outcome;
  // if/else, not ?: (GCC 12 and co_await in a conditional expression).
  if (receiving) {
    protocol::restart::StripedMarkers markers(movers_->stripe_count(),
                                              present.value_or(protocol::restart::ByteRangeSet{}));
    const striping::MoverStripes::MarkerRelay relay =
        [this, &markers](unsigned stripe, const protocol::control::ParsedReply& reply) {
          relay_mover_marker(markers, stripe, reply);
        };
    outcome = co_await movers_->store(path, present, opened, relay);
  } else {
    outcome = co_await movers_->retrieve(path, present, opened);
  }
  if (!outcome && transfer_.abort_requested())
    outcome = make_error(error_code_for(Condition::TransferAborted));
  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (outcome) {
    log_->info("{} striped {} {} done in {:.3f} s", tag_, command, path, seconds);
    replies_.send(rc::kClosingData, "Transfer complete.");
  } else {
    log_->warn("{} striped {} {} failed: {} {}", tag_, command, path, outcome.error().message(),
               movers_->failure());
    replies_.send(movers_->failure_reply(outcome.error()));
  }
  transfer_.end();
}

}  // namespace gridftp::server
