#include "server/session/transfer/transfer_commands.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <spdlog/spdlog.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/control/virtual_path.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/core/text_case.hpp"
#include "protocol/listing/file_facts.hpp"
#include "server/striping/mover_stripes.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;
using protocol::control::Verb;

// LIST arguments may start with ls-style options ("-la"); they are accepted and ignored.
std::string without_list_options(const std::string& argument) {
  std::string rest = argument;
  while (rest.starts_with('-')) {
    const auto space = rest.find(' ');
    rest = space == std::string::npos ? std::string() : rest.substr(space + 1);
  }
  return rest;
}

}  // namespace

transport::awaitable<void> TransferCommands::begin_retrieve(const std::string& path_argument,
                                                            std::uint64_t offset,
                                                            std::uint64_t length,
                                                            const char* command) {
  if (!namespace_commands_.check_storage_or_reply()) co_return;
  auto present = settings().take_restart_ranges();
  const auto path = namespace_commands_.resolve_or_reply(path_argument);
  if (!path) co_return;
  if (std::string_view(command) == "RETR" && start_striped_if_set_up(*path, command, present))
    co_return;
  if (movers_ != nullptr && movers_->will_relay()) {
    const bool partial = std::string_view(command) == "ERET";
    start_relayed_if_set_up(
        partial ? "ERET P " + std::to_string(offset) + " " + std::to_string(length) + " " + *path
                : std::string(command) + " " + *path,
        {.offset = partial ? 0 : offset, .present = present, .allocated = {}});
    co_return;
  }
  auto fd = login_.storage()->open_for_read(*path);
  if (!fd) {
    replies_.send_error(fd.error());
    co_return;
  }
  if (!require_data_channel_or_reply()) co_return;
  if (settings().mode_e && !udpx_ready() && !data_channel_.is_active() &&
      !can_reuse_streams(true)) {
    // GFD.20: only the sender can know the EOF count, so a MODE E sender must connect.
    replies_.send_error(Condition::BadSequence, "MODE E sending requires PORT or SPOR, not PASV.");
    co_return;
  }
  // The size of what was opened, not of a second lookup (and no owner/group name lookups).
  if (const auto size = storage::regular_file_size(fd->get())) {
    offset = std::min(offset, *size);
    length = std::min(length, *size - offset);
    if (udpx_ready() && present && !present->empty() && present->ranges().back().end > *size) {
      // A UDPX restart sends the stream of missing ranges, which both ends lay out from this
      // list (docs/UDPX.md §8): ranges past the end would shift it.
      replies_.send_error(Condition::BadSyntax, "REST ranges reach past the end of the file.");
      co_return;
    }
  } else if (length == UINT64_MAX && (settings().mode_e || udpx_ready())) {
    // MODE E and UDPX both need to know where the data ends before they start.
    replies_.send_error(Condition::NotRegularFile, "Not a regular file; give a length with ERET.");
    co_return;
  } else if (udpx_ready() && present && !present->empty()) {
    replies_.send_error(Condition::NotRegularFile, "Not a regular file; a UDPX restart needs one.");
    co_return;
  }
  start_transfer(TransferJob{.command = command,
                             .path = *path,
                             .source = std::move(*fd),
                             .offset = offset,
                             .length = length,
                             .present = std::move(present)});
}

transport::awaitable<void> TransferCommands::on_retr(const std::string& argument) {
  const auto offset = settings().take_restart_offset();
  co_await begin_retrieve(argument, offset, UINT64_MAX, "RETR");
}

transport::awaitable<void> TransferCommands::on_eret(const std::string& argument) {
  // GFD.20 partial retrieve: "ERET P <offset> <length> <path>".
  unsigned long long offset = 0, length = 0;
  int consumed = 0;
  if (std::sscanf(argument.c_str(), "P %llu %llu %n", &offset, &length, &consumed) != 2 ||
      consumed == 0 || static_cast<std::size_t>(consumed) >= argument.size()) {
    replies_.send_error(Condition::BadSyntax,
                        "ERET supports only the P module: ERET P <offset> <length> <path>.");
    co_return;
  }
  settings().restart_offset = 0;  // ERET carries its own offset
  co_await begin_retrieve(argument.substr(static_cast<std::size_t>(consumed)), offset, length,
                          "ERET");
}

transport::awaitable<void> TransferCommands::begin_upload(const std::string& argument,
                                                          storage::UploadMode mode,
                                                          const char* command) {
  if (!namespace_commands_.check_storage_or_reply()) co_return;
  auto offset = settings().take_restart_offset();
  auto present = settings().take_restart_ranges();
  const auto path = namespace_commands_.resolve_or_reply(argument);
  if (!path) co_return;
  if (std::string_view(command) == "STOR" && start_striped_if_set_up(*path, command, present))
    co_return;
  if (movers_ != nullptr && movers_->will_relay()) {
    start_relayed_if_set_up(std::string_view(command) == "ESTO"
                                ? "ESTO A " + std::to_string(settings().esto_offset) + " " + *path
                                : std::string(command) + " " + *path,
                            {offset, present, settings().take_allocated_bytes()});
    co_return;
  }
  if (!require_data_channel_or_reply()) co_return;
  if (settings().mode_e && !udpx_ready() && !data_channel_.is_passive() &&
      !can_reuse_streams(false)) {
    replies_.send_error(Condition::BadSequence, "MODE E receiving requires PASV or SPAS.");
    co_return;
  }
  if (settings().stripe_part) {
    settings().stripe_part = false;
    // A restarted stripe (REST ranges) writes into the partial file as a first attempt does.
    if (mode == storage::UploadMode::Replace && offset == 0) {
      mode = storage::UploadMode::StripePart;
    }
  }
  if (mode == storage::UploadMode::Replace && offset > 0) mode = storage::UploadMode::Resume;
  // A MODE E restart adds the missing ranges to the partial file the failed attempt left.
  if (present && mode == storage::UploadMode::Replace) mode = storage::UploadMode::ContinuePartial;
  if (mode == storage::UploadMode::InPlace && std::string_view(command) == "ESTO")
    offset = settings().esto_offset;
  // MODE E and UDPX uploads can be restarted (REST ranges, their 111 markers having told the
  // client what arrived), so their partial file outlives a failure; so can stream-mode STORs
  // once the client asked for restart markers (TREV RESTART).
  const bool restartable = settings().mode_e || udpx_ready() ||
                           (settings().restart_markers && std::string_view(command) == "STOR");
  auto upload = login_.storage()->begin_upload(*path, mode, offset, restartable);
  if (!upload) {
    replies_.send_error(upload.error());
    co_return;
  }
  start_transfer(TransferJob{.command = command,
                             .path = *path,
                             .upload = std::make_shared<storage::Upload>(std::move(*upload)),
                             .offset = offset,
                             .expected_bytes = settings().take_allocated_bytes(),
                             .present = std::move(present)});
}

transport::awaitable<void> TransferCommands::on_stor(const std::string& argument) {
  co_await begin_upload(argument, storage::UploadMode::Replace, "STOR");
}

transport::awaitable<void> TransferCommands::on_appe(const std::string& argument) {
  co_await begin_upload(argument, storage::UploadMode::Append, "APPE");
}

transport::awaitable<void> TransferCommands::on_esto(const std::string& argument) {
  // GFD.20 adjusted store: "ESTO A <offset> <path>"; block offsets count from <offset>.
  unsigned long long offset = 0;
  int consumed = 0;
  if (std::sscanf(argument.c_str(), "A %llu %n", &offset, &consumed) != 1 || consumed == 0 ||
      static_cast<std::size_t>(consumed) >= argument.size()) {
    replies_.send_error(Condition::BadSyntax,
                        "ESTO supports only the A module: ESTO A <offset> <path>.");
    co_return;
  }
  settings().esto_offset = offset;
  co_await begin_upload(argument.substr(static_cast<std::size_t>(consumed)),
                        storage::UploadMode::InPlace, "ESTO");
}

std::optional<std::string> TransferCommands::build_listing(const std::string& argument, Verb verb) {
  const auto path = namespace_commands_.resolve_or_reply(without_list_options(argument));
  if (!path) return std::nullopt;
  auto facts = login_.storage()->stat(*path);
  if (!facts) {
    replies_.send_error(facts.error());
    return std::nullopt;
  }
  std::vector<protocol::listing::FileFacts> entries;
  if (facts->type == protocol::listing::FileType::Dir) {
    auto listed = login_.storage()->list_directory(*path);
    if (!listed) {
      replies_.send_error(listed.error());
      return std::nullopt;
    }
    entries = std::move(*listed);
  } else if (verb == Verb::Mlsd) {
    replies_.send_error(Condition::NotADirectory);  // RFC 3659 §7.1: MLSD names a directory
    return std::nullopt;
  } else {
    entries.push_back(std::move(*facts));
  }
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  std::string text;
  for (const auto& entry : entries) {
    if (verb == Verb::Mlsd) {
      text += protocol::listing::format_mlsx_line(entry);
    } else if (verb == Verb::Nlst) {
      text += entry.name;
    } else {
      text += protocol::listing::format_list_line(entry, now);
    }
    text += "\r\n";
  }
  return text;
}

transport::awaitable<void> TransferCommands::start_listing(const std::string& argument, Verb verb) {
  if (!namespace_commands_.check_storage_or_reply()) co_return;
  if (movers_ != nullptr && movers_->will_relay()) {
    // The mover lists from its own view of the shared namespace.
    const auto listed = namespace_commands_.resolve_or_reply(without_list_options(argument));
    if (!listed) co_return;
    start_relayed_if_set_up(std::string(protocol::control::verb_name(verb)) + " " + *listed, {});
    co_return;
  }
  if (!require_data_channel_or_reply()) co_return;
  if (settings().mode_e && !udpx_ready() && !data_channel_.is_active() &&
      !can_reuse_streams(true)) {
    replies_.send_error(Condition::BadSequence, "MODE E sending requires PORT or SPOR, not PASV.");
    co_return;
  }
  auto listing = build_listing(argument, verb);
  if (!listing) co_return;
  // The transfer log names the directory listed, as Globus's does (build_listing resolved it
  // already, so this cannot fail or reply).
  auto listed = namespace_commands_.resolve_or_reply(without_list_options(argument));
  start_transfer(TransferJob{.command = std::string(protocol::control::verb_name(verb)),
                             .path = listed.value_or(namespace_commands_.working_directory()),
                             .listing = std::move(listing)});
}

transport::awaitable<void> TransferCommands::on_list(const std::string& argument) {
  co_await start_listing(argument, Verb::List);
}

transport::awaitable<void> TransferCommands::on_nlst(const std::string& argument) {
  co_await start_listing(argument, Verb::Nlst);
}

transport::awaitable<void> TransferCommands::on_mlsd(const std::string& argument) {
  co_await start_listing(argument, Verb::Mlsd);
}

void TransferCommands::on_site_stripe(const std::string& argument) {
  if (security_.frontend.empty()) {
    replies_.send_error(Condition::UnknownCommand, "Command not supported.");
    return;
  }
  const auto space = argument.find(' ');
  const auto word = protocol::ascii_upper(argument.substr(0, space));
  const auto rest = space == std::string::npos ? std::string() : argument.substr(space + 1);
  if (word == "PART") {
    settings().stripe_part = true;
    replies_.send(rc::kCommandOk, "The next STOR writes this mover's stripe.");
  } else if (word == "SEND") {
    auto share = protocol::mode_e::parse_stripe_share(rest);
    if (!share) {
      replies_.send_error(share.error(), "SITE STRIPE SEND <stripes> <index,index,...>.");
      return;
    }
    settings().stripe_share = std::move(*share);
    replies_.send(rc::kCommandOk, "Stripes set.");
  } else if (word == "BEGIN" || word == "COMMIT") {
    if (!namespace_commands_.check_storage_or_reply()) return;
    const auto path = namespace_commands_.resolve_or_reply(rest);
    if (!path) return;
    auto done = word == "BEGIN" ? login_.storage()->begin_striped_upload(*path)
                                : login_.storage()->commit_striped_upload(*path);
    if (!done) {
      replies_.send_error(done.error());
      return;
    }
    replies_.send(rc::kCommandOk,
                  word == "BEGIN" ? "Striped upload begun." : "Striped upload committed.");
  } else {
    replies_.send_error(Condition::BadSyntax, "SITE STRIPE BEGIN|PART|SEND|COMMIT.");
  }
}

transport::awaitable<void> TransferCommands::on_abor(const std::string&) {
  if (!transfer_.is_active()) {
    data_channel_.cancel();
    replies_.send(rc::kClosingData, "Abort successful");
    co_return;
  }
  transfer_.request_abort();
  close_data_streams();
  data_channel_.cancel();
  co_await transfer_.wait_until_done();  // the transfer answers 426 first (RFC 959 §4.1.3)
  replies_.send(rc::kClosingData, "Abort successful");
}

}  // namespace gridftp::server
