// The file namespace as the client walks it: the working directory, a pending rename, and the
// commands over them, CWD CDUP PWD MKD RMD DELE RNFR RNTO SIZE MDTM MFMT MLST (RFC 959 §4.1,
// RFC 3659). It reaches only the user's file system view and home (UserLogin) and the replies
// (SessionReplies); every path goes through resolve_or_reply and PosixStorage. Other commands
// that name a path (RETR, STOR, LIST, CKSM, BRET, SITE PARTIALS) resolve it here too.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "protocol/control/command.hpp"
#include "protocol/listing/file_facts.hpp"
#include "server/session/session_replies.hpp"
#include "server/session/user_login.hpp"
#include "transport/asio.hpp"

namespace spdlog {
class logger;
}

namespace gridftp::server {

class NamespaceCommands {
 public:
  // `tag` prefixes this session's log lines ("[s7]").
  NamespaceCommands(UserLogin& login, SessionReplies& replies, std::shared_ptr<spdlog::logger> log,
                    std::string tag);
  NamespaceCommands(const NamespaceCommands&) = delete;
  NamespaceCommands& operator=(const NamespaceCommands&) = delete;

  transport::awaitable<void> on_cwd(const std::string& argument);
  transport::awaitable<void> on_cdup(const std::string& argument);
  transport::awaitable<void> on_pwd(const std::string& argument);
  transport::awaitable<void> on_mkd(const std::string& argument);
  transport::awaitable<void> on_rmd(const std::string& argument);
  transport::awaitable<void> on_dele(const std::string& argument);
  transport::awaitable<void> on_rnfr(const std::string& argument);
  transport::awaitable<void> on_rnto(const std::string& argument);
  transport::awaitable<void> on_size(const std::string& argument);
  transport::awaitable<void> on_mdtm(const std::string& argument);
  transport::awaitable<void> on_mfmt(const std::string& argument);
  transport::awaitable<void> on_mlst(const std::string& argument);

  // A resolved virtual path; "/" until the login's home is entered or CWD moves.
  const std::string& working_directory() const { return working_directory_; }
  // After the login: the user's home (a resolved path) becomes the working directory.
  void enter_home(std::string home) { working_directory_ = std::move(home); }
  // RNTO must follow RNFR directly (RFC 959 §4.1.3): any other command forgets the pending
  // rename. Called for every command that passed the login checks, before its handler.
  void before_command(protocol::control::Verb verb);

  // Resolves a client path against the working directory and home; on failure sends the reply
  // and returns nullopt.
  std::optional<std::string> resolve_or_reply(const std::string& argument);
  // False, after a 530, when no user is logged in (no file system view yet).
  bool check_storage_or_reply();

 private:
  // Resolves `argument`, runs `operation(storage, path)` (returning Result<void>) and replies
  // with its error if it fails. The resolved path on success; nullopt once a reply has been sent.
  template <typename Operation>
  std::optional<std::string> run_on_path(const std::string& argument, Operation operation);
  // SIZE and MDTM: the facts of `argument`'s file; nullopt once an error reply has been sent.
  std::optional<protocol::listing::FileFacts> stat_or_reply(const std::string& argument);

  UserLogin& login_;
  SessionReplies& replies_;
  std::shared_ptr<spdlog::logger> log_;
  const std::string tag_;
  std::string working_directory_ = "/";
  std::optional<std::string> rename_from_;  // RNFR's path, for the RNTO right after it
};

}  // namespace gridftp::server
