// Commands that move data: RETR, STOR, APPE, LIST, NLST, MLSD, and ABOR. Each validates
// everything it can before replying 150, then hands a TransferJob to the transfer coroutine
// (session_transfer.cpp) so the control channel keeps answering STAT and ABOR meanwhile.
#include <spdlog/spdlog.h>

#include <chrono>

#include "protocol/control/reply_codes.hpp"
#include "protocol/control/virtual_path.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/listing/file_facts.hpp"
#include "server/session/control_session.hpp"

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

transport::awaitable<void> ControlSession::on_retr(const std::string& argument) {
  if (!check_storage_or_reply()) co_return;
  const auto offset = std::exchange(restart_offset_, 0);
  const auto path = resolve_or_reply(argument);
  if (!path) co_return;
  auto fd = storage_->open_for_read(*path);
  if (!fd) {
    send_error(fd.error());
    co_return;
  }
  if (!require_data_channel_or_reply()) co_return;
  start_transfer(TransferJob{.command = "RETR", .path = *path, .source = std::move(*fd), .offset = offset});
}

transport::awaitable<void> ControlSession::begin_upload(const std::string& argument, storage::UploadMode mode,
                                                        const char* command) {
  if (!check_storage_or_reply()) co_return;
  const auto offset = std::exchange(restart_offset_, 0);
  const auto path = resolve_or_reply(argument);
  if (!path) co_return;
  if (!require_data_channel_or_reply()) co_return;
  if (mode == storage::UploadMode::Replace && offset > 0) mode = storage::UploadMode::Resume;
  auto upload = storage_->begin_upload(*path, mode, offset);
  if (!upload) {
    send_error(upload.error());
    co_return;
  }
  start_transfer(TransferJob{.command = command,
                             .path = *path,
                             .upload = std::move(*upload),
                             .offset = offset,
                             .expected_bytes = std::exchange(allocated_bytes_, std::nullopt)});
}

transport::awaitable<void> ControlSession::on_stor(const std::string& argument) {
  co_await begin_upload(argument, storage::UploadMode::Replace, "STOR");
}

transport::awaitable<void> ControlSession::on_appe(const std::string& argument) {
  co_await begin_upload(argument, storage::UploadMode::Append, "APPE");
}

std::optional<std::string> ControlSession::build_listing(const std::string& argument, Verb verb) {
  const auto path = resolve_or_reply(without_list_options(argument));
  if (!path) return std::nullopt;
  auto facts = storage_->stat(*path);
  if (!facts) {
    send_error(facts.error());
    return std::nullopt;
  }
  std::vector<protocol::listing::FileFacts> entries;
  if (facts->type == protocol::listing::FileType::Dir) {
    auto listed = storage_->list_directory(*path);
    if (!listed) {
      send_error(listed.error());
      return std::nullopt;
    }
    entries = std::move(*listed);
  } else if (verb == Verb::Mlsd) {
    send(rc::kFileUnavailable, "Not a directory.");  // RFC 3659 §7.1: MLSD names a directory
    return std::nullopt;
  } else {
    entries.push_back(std::move(*facts));
  }
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch()).count();
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

transport::awaitable<void> ControlSession::start_listing(const std::string& argument, Verb verb) {
  if (!check_storage_or_reply()) co_return;
  if (!require_data_channel_or_reply()) co_return;
  auto listing = build_listing(argument, verb);
  if (!listing) co_return;
  start_transfer(TransferJob{
      .command = std::string(protocol::control::verb_name(verb)), .path = cwd_, .listing = std::move(listing)});
}

transport::awaitable<void> ControlSession::on_list(const std::string& argument) {
  co_await start_listing(argument, Verb::List);
}

transport::awaitable<void> ControlSession::on_nlst(const std::string& argument) {
  co_await start_listing(argument, Verb::Nlst);
}

transport::awaitable<void> ControlSession::on_mlsd(const std::string& argument) {
  co_await start_listing(argument, Verb::Mlsd);
}

transport::awaitable<void> ControlSession::on_abor(const std::string&) {
  if (!transfer_active_) {
    data_channel_.cancel();
    send(rc::kClosingData, "Abort successful");
    co_return;
  }
  abort_requested_ = true;
  boost::system::error_code ignored;
  if (data_socket_) data_socket_->close(ignored);
  data_channel_.cancel();
  co_await wait_for_transfer();  // the transfer answers 426 first (RFC 959 §4.1.3)
  send(rc::kClosingData, "Abort successful");
}

}  // namespace gridftp::server
