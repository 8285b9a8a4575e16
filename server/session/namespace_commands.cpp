#include "server/session/namespace_commands.hpp"

#include <utility>

#include <spdlog/spdlog.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/control/virtual_path.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/listing/file_facts.hpp"

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

NamespaceCommands::NamespaceCommands(UserLogin& login, SessionReplies& replies,
                                     std::shared_ptr<spdlog::logger> log, std::string tag)
    : login_(login), replies_(replies), log_(std::move(log)), tag_(std::move(tag)) {}

void NamespaceCommands::before_command(protocol::control::Verb verb) {
  if (verb != protocol::control::Verb::Rnto) rename_from_.reset();
}

std::optional<std::string> NamespaceCommands::resolve_or_reply(const std::string& argument) {
  auto path = protocol::control::resolve_client_path(working_directory_, login_.home(),
                                                     argument.empty() ? "." : argument);
  if (!path) {
    replies_.send_error(path.error());
    return std::nullopt;
  }
  return std::move(*path);
}

bool NamespaceCommands::check_storage_or_reply() {
  if (login_.storage() != nullptr) return true;
  replies_.send_error(Condition::NotLoggedIn);
  return false;
}

template <typename Operation>
std::optional<std::string> NamespaceCommands::run_on_path(const std::string& argument,
                                                          Operation operation) {
  if (!check_storage_or_reply()) return std::nullopt;
  auto path = resolve_or_reply(argument);
  if (!path) return std::nullopt;
  if (auto ok = operation(*login_.storage(), *path); !ok) {
    replies_.send_error(ok.error());
    return std::nullopt;
  }
  return path;
}

transport::awaitable<void> NamespaceCommands::on_cwd(const std::string& argument) {
  const auto path =
      run_on_path(argument.empty() ? "/" : argument,
                  [](auto& storage, const auto& p) { return storage.check_directory(p); });
  if (!path) co_return;
  working_directory_ = *path;
  replies_.send(rc::kFileActionOk, "CWD command successful.");
}

transport::awaitable<void> NamespaceCommands::on_cdup(const std::string&) {
  // At the root CDUP stays at the root, as most servers do, rather than failing.
  co_await on_cwd(working_directory_ == "/" ? "/" : "..");
}

transport::awaitable<void> NamespaceCommands::on_pwd(const std::string&) {
  replies_.send(rc::kPathCreated, quoted_path(working_directory_) + " is current directory.");
  co_return;
}

transport::awaitable<void> NamespaceCommands::on_mkd(const std::string& argument) {
  const auto path =
      run_on_path(argument, [](auto& storage, const auto& p) { return storage.make_directory(p); });
  if (!path) co_return;
  log_->info("{} mkdir path={}", tag_, *path);
  replies_.send(rc::kPathCreated, quoted_path(*path) + " directory created.");
}

transport::awaitable<void> NamespaceCommands::on_rmd(const std::string& argument) {
  const auto path = run_on_path(
      argument, [](auto& storage, const auto& p) { return storage.remove_directory(p); });
  if (!path) co_return;
  replies_.send(rc::kFileActionOk, "RMD command successful.");
}

transport::awaitable<void> NamespaceCommands::on_dele(const std::string& argument) {
  const auto path =
      run_on_path(argument, [](auto& storage, const auto& p) { return storage.remove_file(p); });
  if (!path) co_return;
  log_->info("{} delete path={}", tag_, *path);
  replies_.send(rc::kFileActionOk, "DELE command successful.");
}

transport::awaitable<void> NamespaceCommands::on_rnfr(const std::string& argument) {
  // The source must exist and lie where its name may change.
  const auto path = run_on_path(argument, [](auto& storage, const auto& p) -> Result<void> {
    if (auto facts = storage.stat(p); !facts) return make_error(facts.error());
    return storage.check_writable(p);
  });
  if (!path) co_return;
  rename_from_ = *path;
  replies_.send(rc::kPendingFurtherInfo, "File exists, ready for destination name.");
}

transport::awaitable<void> NamespaceCommands::on_rnto(const std::string& argument) {
  if (!check_storage_or_reply()) co_return;
  if (!rename_from_) {
    replies_.send_error(Condition::BadSequence);
    co_return;
  }
  const auto from = std::move(*rename_from_);
  rename_from_.reset();
  const auto to = resolve_or_reply(argument);
  if (!to) co_return;
  if (auto ok = login_.storage()->rename(from, *to); !ok) {
    replies_.send_error(ok.error());
    co_return;
  }
  log_->info("{} rename from={} to={}", tag_, from, *to);
  replies_.send(rc::kFileActionOk, "Rename successful.");
}

std::optional<protocol::listing::FileFacts> NamespaceCommands::stat_or_reply(
    const std::string& argument) {
  if (!check_storage_or_reply()) return std::nullopt;
  const auto path = resolve_or_reply(argument);
  if (!path) return std::nullopt;
  auto facts = login_.storage()->stat(*path);
  if (!facts) {
    replies_.send_error(facts.error());
    return std::nullopt;
  }
  return std::move(*facts);
}

transport::awaitable<void> NamespaceCommands::on_size(const std::string& argument) {
  const auto facts = stat_or_reply(argument);
  if (!facts) co_return;
  if (facts->type != protocol::listing::FileType::File) {
    replies_.send_error(Condition::NotRegularFile);
  } else {
    replies_.send(rc::kFileStatus, std::to_string(facts->size_bytes));
  }
}

transport::awaitable<void> NamespaceCommands::on_mdtm(const std::string& argument) {
  const auto facts = stat_or_reply(argument);
  if (!facts) co_return;
  replies_.send(rc::kFileStatus, protocol::listing::format_mdtm(facts->modify_unix_seconds));
}

transport::awaitable<void> NamespaceCommands::on_mfmt(const std::string& argument) {
  if (!check_storage_or_reply()) co_return;
  const auto space = argument.find(' ');
  if (space == std::string::npos) {
    replies_.send_error(make_error_code(protocol::Errc::MissingArgument));
    co_return;
  }
  const auto time = protocol::listing::parse_mdtm(argument.substr(0, space));
  if (!time) {
    replies_.send_error(time.error());
    co_return;
  }
  const auto path = resolve_or_reply(argument.substr(space + 1));
  if (!path) co_return;
  if (auto ok = login_.storage()->set_modify_time(*path, *time); !ok) {
    replies_.send_error(ok.error());
    co_return;
  }
  replies_.send(rc::kFileStatus, "Modify=" + protocol::listing::format_mdtm(*time) + "; " +
                                     argument.substr(space + 1));
}

transport::awaitable<void> NamespaceCommands::on_mlst(const std::string& argument) {
  if (!check_storage_or_reply()) co_return;
  const auto path = resolve_or_reply(argument);
  if (!path) co_return;
  auto facts = login_.storage()->stat(*path);
  if (!facts) {
    replies_.send_error(facts.error());
    co_return;
  }
  // RFC 3659 §7.2: MLST names the object by the path given, with a leading space.
  facts->name = *path;
  replies_.send(protocol::control::Reply{
      rc::kFileActionOk,
      {"Listing " + *path, " " + protocol::listing::format_mlsx_line(*facts), "End."}});
}

}  // namespace gridftp::server
