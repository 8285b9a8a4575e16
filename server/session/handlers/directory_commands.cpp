// Navigation and file management: CWD, CDUP, PWD, MKD, RMD, DELE, RNFR, RNTO, SIZE, MDTM, MFMT,
// MLST (RFC 959 §4.1, RFC 3659). Every path goes through resolve_or_reply and PosixStorage.
#include <spdlog/spdlog.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/control/virtual_path.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/listing/file_facts.hpp"
#include "server/session/control_session.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;

// RFC 959 Appendix II: a quote inside a quoted path name is doubled.
std::string quoted_path(const std::string& path) {
  std::string out = "\"";
  for (const char c : path) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

}  // namespace

template <typename Operation>
std::optional<std::string> ControlSession::run_on_path(const std::string& argument,
                                                       Operation operation) {
  if (!check_storage_or_reply()) return std::nullopt;
  auto path = resolve_or_reply(argument);
  if (!path) return std::nullopt;
  if (auto ok = operation(*login_.storage(), *path); !ok) {
    send_error(ok.error());
    return std::nullopt;
  }
  return path;
}

transport::awaitable<void> ControlSession::on_cwd(const std::string& argument) {
  const auto path =
      run_on_path(argument.empty() ? "/" : argument,
                  [](auto& storage, const auto& p) { return storage.check_directory(p); });
  if (!path) co_return;
  settings_.cwd = *path;
  send(rc::kFileActionOk, "CWD command successful.");
}

transport::awaitable<void> ControlSession::on_cdup(const std::string&) {
  // At the root CDUP stays at the root, as most servers do, rather than failing.
  co_await on_cwd(settings_.cwd == "/" ? "/" : "..");
}

transport::awaitable<void> ControlSession::on_pwd(const std::string&) {
  send(rc::kPathCreated, quoted_path(settings_.cwd) + " is current directory.");
  co_return;
}

transport::awaitable<void> ControlSession::on_mkd(const std::string& argument) {
  const auto path =
      run_on_path(argument, [](auto& storage, const auto& p) { return storage.make_directory(p); });
  if (!path) co_return;
  log_->info("{} mkdir path={}", tag(), *path);
  send(rc::kPathCreated, quoted_path(*path) + " directory created.");
}

transport::awaitable<void> ControlSession::on_rmd(const std::string& argument) {
  const auto path = run_on_path(
      argument, [](auto& storage, const auto& p) { return storage.remove_directory(p); });
  if (!path) co_return;
  send(rc::kFileActionOk, "RMD command successful.");
}

transport::awaitable<void> ControlSession::on_dele(const std::string& argument) {
  const auto path =
      run_on_path(argument, [](auto& storage, const auto& p) { return storage.remove_file(p); });
  if (!path) co_return;
  log_->info("{} delete path={}", tag(), *path);
  send(rc::kFileActionOk, "DELE command successful.");
}

transport::awaitable<void> ControlSession::on_rnfr(const std::string& argument) {
  // The source must exist and lie where its name may change.
  const auto path = run_on_path(argument, [](auto& storage, const auto& p) -> Result<void> {
    if (auto facts = storage.stat(p); !facts) return make_error(facts.error());
    return storage.check_writable(p);
  });
  if (!path) co_return;
  settings_.rename_from = *path;
  send(rc::kPendingFurtherInfo, "File exists, ready for destination name.");
}

transport::awaitable<void> ControlSession::on_rnto(const std::string& argument) {
  if (!check_storage_or_reply()) co_return;
  if (!settings_.rename_from) {
    send_error(Condition::BadSequence);
    co_return;
  }
  const auto from = std::move(*settings_.rename_from);
  settings_.rename_from.reset();
  const auto to = resolve_or_reply(argument);
  if (!to) co_return;
  if (auto ok = login_.storage()->rename(from, *to); !ok) {
    send_error(ok.error());
    co_return;
  }
  log_->info("{} rename from={} to={}", tag(), from, *to);
  send(rc::kFileActionOk, "Rename successful.");
}

transport::awaitable<void> ControlSession::on_size(const std::string& argument) {
  if (!check_storage_or_reply()) co_return;
  const auto path = resolve_or_reply(argument);
  if (!path) co_return;
  const auto facts = login_.storage()->stat(*path);
  if (!facts) {
    send_error(facts.error());
  } else if (facts->type != protocol::listing::FileType::File) {
    send_error(Condition::NotRegularFile);
  } else {
    send(rc::kFileStatus, std::to_string(facts->size_bytes));
  }
}

transport::awaitable<void> ControlSession::on_mdtm(const std::string& argument) {
  if (!check_storage_or_reply()) co_return;
  const auto path = resolve_or_reply(argument);
  if (!path) co_return;
  const auto facts = login_.storage()->stat(*path);
  if (!facts) {
    send_error(facts.error());
    co_return;
  }
  send(rc::kFileStatus, protocol::listing::format_mdtm(facts->modify_unix_seconds));
}

transport::awaitable<void> ControlSession::on_mfmt(const std::string& argument) {
  if (!check_storage_or_reply()) co_return;
  const auto space = argument.find(' ');
  if (space == std::string::npos) {
    send_error(make_error_code(protocol::Errc::MissingArgument));
    co_return;
  }
  const auto time = protocol::listing::parse_mdtm(argument.substr(0, space));
  if (!time) {
    send_error(time.error());
    co_return;
  }
  const auto path = resolve_or_reply(argument.substr(space + 1));
  if (!path) co_return;
  if (auto ok = login_.storage()->set_modify_time(*path, *time); !ok) {
    send_error(ok.error());
    co_return;
  }
  send(rc::kFileStatus,
       "Modify=" + protocol::listing::format_mdtm(*time) + "; " + argument.substr(space + 1));
}

transport::awaitable<void> ControlSession::on_mlst(const std::string& argument) {
  if (!check_storage_or_reply()) co_return;
  const auto path = resolve_or_reply(argument);
  if (!path) co_return;
  auto facts = login_.storage()->stat(*path);
  if (!facts) {
    send_error(facts.error());
    co_return;
  }
  // RFC 3659 §7.2: MLST names the object by the path given, with a leading space.
  facts->name = *path;
  send(protocol::control::Reply{
      rc::kFileActionOk,
      {"Listing " + *path, " " + protocol::listing::format_mlsx_line(*facts), "End."}});
}

}  // namespace gridftp::server
