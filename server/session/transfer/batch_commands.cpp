// The batch mode of gridftpd's own peers (docs/WIRE.md §7): BRST sets where the next batch
// resumes, BRET sends a whole directory tree in one stream-mode data transfer. Advertised in
// FEAT as "BATCH"; Globus clients never send these commands. BSTO receives a batch below a
// directory (a gridcp put, or the dest of a third-party batch).
#include <charconv>

#include "protocol/batch/batch_path.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/listing/file_facts.hpp"
#include "server/session/transfer/transfer_commands.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;

}  // namespace

bool TransferCommands::check_batch_settings_or_reply(const char* command) {
  // Over UDPX the batch is one stream of unknown length (docs/UDPX.md §1.9).
  if (!settings().mode_e && !settings().ascii) return true;
  replies_.send_error(Condition::BadSequence, std::string(command) + " needs TYPE I and MODE S.");
  return false;
}

transport::awaitable<void> TransferCommands::on_brst(const std::string& argument) {
  auto point = protocol::batch::parse_restart_point(argument);
  if (!point) {
    replies_.send_error(Condition::BadSyntax, "BRST <offset> <path within the batch>.");
    co_return;
  }
  settings().batch_restart = std::move(*point);
  replies_.send(rc::kPendingFurtherInfo, "Batch restart point set. Send BRET to resume.");
}

transport::awaitable<void> TransferCommands::on_bret(const std::string& argument) {
  // "BRET <refer-above> <directory>": files larger than refer-above bytes (0: none) are named
  // in 'R' records for the client to fetch on their own.
  auto restart = std::exchange(settings().batch_restart, std::nullopt);
  if (!namespace_commands_.check_storage_or_reply()) co_return;
  std::uint64_t refer_above = 0;
  const auto space = argument.find(' ');
  const auto* end = argument.data() + (space == std::string::npos ? 0 : space);
  const auto [ptr, ec] = std::from_chars(argument.data(), end, refer_above);
  if (space == std::string::npos || space == 0 || ec != std::errc() || ptr != end ||
      space + 1 >= argument.size()) {
    replies_.send_error(Condition::BadSyntax, "BRET <refer-above bytes> <directory>.");
    co_return;
  }
  if (!check_batch_settings_or_reply("BRET")) co_return;
  const auto path = namespace_commands_.resolve_or_reply(argument.substr(space + 1));
  if (!path) co_return;
  auto facts = login_.storage()->stat(*path);
  if (!facts) {
    replies_.send_error(facts.error());
    co_return;
  }
  if (facts->type != protocol::listing::FileType::Dir) {
    replies_.send_error(Condition::NotADirectory);
    co_return;
  }
  if (!require_data_channel_or_reply()) co_return;
  start_transfer(TransferJob{.command = "BRET",
                             .path = *path,
                             .batch = std::make_shared<BatchSource>(
                                 *login_.storage(), *path, refer_above, std::move(restart))});
}

transport::awaitable<void> TransferCommands::on_bsto(const std::string& argument) {
  // "BSTO <directory>": the batch's files land below it, the directory made when missing.
  if (!namespace_commands_.check_storage_or_reply()) co_return;
  if (argument.empty()) {
    replies_.send_error(Condition::BadSyntax, "BSTO <directory>.");
    co_return;
  }
  if (!check_batch_settings_or_reply("BSTO")) co_return;
  const auto path = namespace_commands_.resolve_or_reply(argument);
  if (!path) co_return;
  if (auto writable = login_.storage()->check_writable(*path); !writable) {
    replies_.send_error(writable.error());
    co_return;
  }
  if (auto made = login_.storage()->make_directory(*path);
      !made && made.error() != std::errc::file_exists) {
    replies_.send_error(made.error());
    co_return;
  }
  auto facts = login_.storage()->stat(*path);
  if (!facts || facts->type != protocol::listing::FileType::Dir) {
    replies_.send_error(Condition::NotADirectory);
    co_return;
  }
  if (!require_data_channel_or_reply()) co_return;
  start_transfer(TransferJob{.command = "BSTO",
                             .path = *path,
                             .batch_sink = std::make_shared<BatchSink>(*login_.storage(), *path)});
}

}  // namespace gridftp::server
