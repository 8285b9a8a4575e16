// gridftpd: argv, signals, exit codes and logger creation live here and nowhere else.
#include <algorithm>
#include <array>
#include <csignal>
#include <cstring>
#include <functional>
#include <iostream>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "security/password_hash.hpp"
#include "server/config/embedded_config.hpp"
#include "server/config/globus_options.hpp"
#include "server/config/globus_settings.hpp"
#include "server/logging/log_setup.hpp"
#include "server/process/background.hpp"
#include "server/process/fork_server.hpp"
#include "server/process/session_process.hpp"
#include "server/server.hpp"
#include "server/startup.hpp"

namespace {

using namespace gridftp::server;

// gridftpd's own options; every other word is read as globus-gridftp-server reads it
// (server/config/globus_options, docs/GLOBUS.md §1).
struct NativeOptions {
  bool check_config = false;
  bool hash_password = false;
  bool print_default_config = false;
  bool print_config = false;
  std::optional<int> session_fd;  // internal: a session process serving this inherited socket
  std::optional<int> delegation_key_fd;  // internal: the key its parent made ahead
  std::optional<int> udpx_pool_fd;       // internal: the parent's UDPX rate pool page
  std::optional<int> metrics_fd;         // internal: the parent's metrics page
  std::optional<int> fork_server_fd;     // internal: the fork server's requests
};

constexpr std::array<std::string_view, 4> kNativeFlags{"check-config", "hash-password",
                                                       "print-default-config", "print-config"};
constexpr std::array<std::string_view, 5> kNativeValues{
    "session-fd", "delegation-key-fd", "udpx-pool-fd", "metrics-fd", "fork-server-fd"};

std::string_view without_dashes(std::string_view word) {
  if (word.starts_with("--")) return word.substr(2);
  if (word.starts_with("-")) return word.substr(1);
  return word;
}

// Splits argv into gridftpd's own options (for CLI11, two dashes) and Globus words.
void split_arguments(int argc, char** argv, std::vector<std::string>& native,
                     std::vector<std::string>& globus_words) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    const auto name = without_dashes(word);
    const auto is = [&](auto& names) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    if (word.starts_with("-") && is(kNativeFlags)) {
      native.push_back("--" + std::string(name));
    } else if (word.starts_with("-") && is(kNativeValues)) {
      native.push_back("--" + std::string(name));
      if (i + 1 < argc) native.emplace_back(argv[++i]);
    } else {
      globus_words.emplace_back(word);
    }
  }
}

int print_problems(const std::vector<std::string>& problems) {
  for (const auto& problem : problems) std::cerr << "gridftpd: config error: " << problem << "\n";
  return problems.empty() ? 0 : 2;
}

int hash_password_from_stdin() {
  std::string password;
  std::getline(std::cin, password);
  auto encoded = gridftp::security::hash_password(password);
  if (!encoded) {
    std::cerr << "gridftpd: cannot hash password: " << encoded.error().message() << "\n";
    return 1;
  }
  std::cout << *encoded << "\n";
  return 0;
}

void add_options(CLI::App& app, NativeOptions& cli) {
  app.add_flag("--check-config", cli.check_config, "Check the configuration and exit");
  app.add_flag("--hash-password", cli.hash_password, "Read a password on stdin and print its hash");
  app.add_flag("--print-default-config", cli.print_default_config,
               "Print the built-in config and exit");
  app.add_flag("--print-config", cli.print_config,
               "Print the effective settings as TOML, however they were given, and exit");
  app.add_option("--session-fd", cli.session_fd,
                 "(internal) serve one inherited control connection");
  app.add_option("--delegation-key-fd", cli.delegation_key_fd,
                 "(internal) a delegation key made by the parent");
  app.add_option("--udpx-pool-fd", cli.udpx_pool_fd, "(internal) the parent's UDPX rate pool");
  app.add_option("--metrics-fd", cli.metrics_fd, "(internal) the parent's metrics page");
  app.add_option("--fork-server-fd", cli.fork_server_fd,
                 "(internal) fork session processes on request");
}

void print_help() {
  std::cout << "gridftpd: GridFTP-compatible transfer server\n\n"
               "Usage: gridftpd [globus-gridftp-server options] [gridftpd options]\n\n"
               "gridftpd options:\n"
               "  --help                  this help (also -help, -h)\n"
               "  --check-config          check the configuration and exit\n"
               "  --print-config          print the effective settings as TOML and exit\n"
               "  --print-default-config  print the built-in config and exit\n"
               "  --hash-password         read a password on stdin and print its hash\n\n"
               "-c FILE takes gridftpd's TOML (conf/gridftpd.toml) or Globus's `key value`\n"
               "format; -C DIR a directory of Globus-format files. One or two dashes are the\n"
               "same; a flag is turned off by a no- or n prefix (-no-fork, -nf).\n\n"
            << gridftp::server::globus::describe_globus_support();
}

// inetd mode: the connection is stdin (and stdout and stderr, as inetd hands them over). It moves
// to a descriptor of its own, and 0-2 become /dev/null, so that nothing written to the console
// can reach the client. Returns the connection's descriptor, or -1 with errno.
int take_inetd_connection() {
  const int connection = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
  if (connection < 0) return -1;
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) return -1;
  for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
  if (null > 2) ::close(null);
  return connection;
}

// The signal thread: SIGHUP calls `reload` (when given) and waits for the next signal; SIGINT
// and SIGTERM stop the server and end the thread.
void serve_signals(sigset_t signals, Server& server, const std::function<void()>& reload) {
  for (;;) {
    int received = 0;
    if (sigwait(&signals, &received) != 0) return;
    if (received == SIGHUP) {
      if (reload) reload();
      continue;
    }
    server.stop();
    return;
  }
}

// Signals are taken synchronously by one thread (sigwait), so stop() never runs in a handler.
// They are blocked before any thread exists, so every thread inherits the mask. Returns them.
sigset_t block_signals_for_sigwait() {
  std::signal(SIGPIPE, SIG_IGN);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);  // reload, not stop (serve_signals)
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// argv, read: gridftpd's own options, and the Globus words with what they set of the process.
struct CommandLine {
  NativeOptions native;
  std::vector<globus::Setting> globus_settings;
  // What -c, -C, -help, -version and the rest of the command line alone set: assemble_config
  // adds the config files' own, and each SIGHUP starts again from here.
  globus::ProcessOptions process;
  std::vector<std::string> arguments;  // argv[1..], for the session processes
};

// Returns the exit status when argv is refused (CLI11's own, or 2 with the problem printed).
std::optional<int> parse_command_line(int argc, char** argv, CommandLine& out) {
  std::vector<std::string> native_words, globus_words;
  split_arguments(argc, argv, native_words, globus_words);
  CLI::App app{"gridftpd"};
  add_options(app, out.native);
  std::reverse(native_words.begin(), native_words.end());  // CLI11 parses a reversed vector
  try {
    app.parse(native_words);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  std::string bad_word;
  auto settings = globus::parse_globus_command_line(globus_words, bad_word);
  if (!settings) return print_problems({bad_word});
  out.globus_settings = std::move(*settings);
  out.arguments.assign(argv + 1, argv + argc);
  // -c, -C, -help and -version first: they decide what else is read.
  ServerConfig scratch;
  if (const int rc =
          print_problems(globus::apply_globus_settings(out.globus_settings, scratch, out.process));
      rc != 0)
    return rc;
  return std::nullopt;
}

// -help, -version, --print-default-config and --hash-password need no config: answered before
// any is read. Returns the exit status when one was asked.
std::optional<int> answer_info_options(const CommandLine& command) {
  if (command.process.print_help) {
    print_help();
    return 0;
  }
  if (command.process.print_version) {
    std::cout << "gridftpd " << GRIDFTPD_VERSION << "\n";
    return 0;
  }
  if (command.native.print_default_config) {
    std::cout << embedded_default_config();
    return 0;
  }
  if (command.native.hash_password) return hash_password_from_stdin();
  return std::nullopt;
}

// Everything the Server is made from, checked.
struct LoadedConfig {
  ServerConfig config;
  globus::ProcessOptions process;  // the command line's, with what the config files added
  std::vector<std::string> notes;
  std::vector<std::string> warnings;
  std::vector<gridftp::server::auth::Account> accounts;
  SecurityContexts security;
};

// Assembles the config, then loads the accounts and security contexts. Returns the exit status
// when gridftpd ends here: a problem, --print-config (the config alone, before the accounts and
// credentials are read) or --check-config (after them).
std::optional<int> load_config(const CommandLine& command, LoadedConfig& out) {
  out.process = command.process;
  auto assembled = assemble_config(command.globus_settings, out.process, out.notes);
  if (const int rc = print_problems(assembled.problems); rc != 0) return rc;
  out.config = std::move(assembled.config);
  out.warnings = std::move(assembled.warnings);
  if (command.native.print_config) {
    std::cout << format_config(out.config);
    return 0;
  }
  if (const int rc = print_problems(load_accounts(out.config.accounts, out.accounts)); rc != 0)
    return rc;
  std::string problem;
  auto security = load_security_contexts(out.config, problem);
  if (!security) return print_problems({problem});
  out.security = std::move(*security);
  if (command.native.check_config) {
    for (const auto& warning : out.warnings) std::cerr << "gridftpd: warning: " << warning << "\n";
    std::cout << "gridftpd: configuration OK\n";
    return 0;
  }
  return std::nullopt;
}

// The fork server serves requests here until it is retired (server/process/fork_server.hpp):
// then false, and the process ends. In each session process it forks, true, with `native` now
// naming the descriptors the session serves.
bool take_fork_server_hand_off(NativeOptions& native) {
  auto hand_off = gridftp::server::serve_fork_requests(*native.fork_server_fd);
  if (!hand_off) return false;
  native.session_fd = hand_off->session_fd;
  native.delegation_key_fd = hand_off->key_fd;
  native.udpx_pool_fd = hand_off->pages.udpx_pool;
  native.metrics_fd = hand_off->pages.metrics;
  return true;
}

bool restrict_session_privileges(spdlog::logger& log) {
  auto restricted = gridftp::server::restrict_session_process();
  if (!restricted) {
    log.critical("session process: cannot restrict privileges: {}", restricted.error().message());
  }
  return restricted.has_value();
}

// -background (not with -inetd, and never in a session process): detaches before any thread or
// helper process exists. False when that failed.
bool detach_when_asked(const LoadedConfig& loaded, const NativeOptions& native,
                       std::optional<Background>& background, spdlog::logger& log) {
  if (!loaded.process.detach || loaded.process.inetd || native.session_fd) return true;
  auto entered = Background::enter();
  if (!entered) {
    log.critical("cannot detach: {}", entered.error().message());
    return false;
  }
  background.emplace(std::move(*entered));
  return true;
}

// A session process or inetd: serves the one inherited connection until it ends or a signal
// stops it.
int serve_one_connection(Server& server, const NativeOptions& native, int inetd_connection,
                         sigset_t signals) {
  if (native.session_fd) {
    server.serve_inherited(*native.session_fd, native.delegation_key_fd,
                           {native.udpx_pool_fd, native.metrics_fd});
  } else {
    server.serve_inherited(inetd_connection, std::nullopt, {});
  }
  std::thread signal_thread([&server, signals] {
    serve_signals(signals, server, nullptr);  // a session process does not reload
  });
  server.run();
  // The thread waits in sigwait for SIGTERM: this wakes it, it does not kill the process
  // (serve_signals returns on it).
  // NOLINTNEXTLINE(bugprone-bad-signal-to-kill-thread)
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  return 0;
}

// The control log and the files behind it, kept by main after the Loggers go to the Server.
struct ServerLog {
  std::shared_ptr<spdlog::logger> control;
  std::vector<std::shared_ptr<ReopenableFileSink>> files;  // what SIGHUP opens again
};

// SIGHUP: the log files opened again at their paths (logrotate renamed them away: the package's
// postrotate sends it), then the config read again from the same files, command line and
// environment, checked as at start-up; a config with problems is refused and the running one
// kept. Session processes keep the files they opened at their start until they end: as their
// accounts they could not open root's files again, and the rotated file stays in place for them
// (logrotate's delaycompress); sessions started afterwards, and the fork server that a reload
// starts afresh, open the new ones.
void reload_after_sighup(Server& server, const CommandLine& command, bool gsi_enabled,
                         const ServerLog& log) {
  const auto unopened = reopen_log_files(log.files);
  for (const auto& problem : unopened)
    log.control->error("SIGHUP: cannot open the log file again, still writing the old one: {}",
                       problem);
  if (!log.files.empty() && unopened.empty()) log.control->info("SIGHUP: log files reopened");
  auto again = assemble_reload(command.globus_settings, command.process, gsi_enabled);
  if (!again.problems.empty()) {
    for (const auto& problem : again.problems)
      log.control->error("SIGHUP: config not reloaded, the running one is kept: {}", problem);
    return;
  }
  for (const auto& warning : again.warnings) log.control->warn("SIGHUP: {}", warning);
  server.apply_reload(std::move(again.reload));
}

// The daemon: listens, tells a -background parent it may exit, then serves until SIGINT or
// SIGTERM, reloading on SIGHUP.
int serve_daemon(Server& server, const CommandLine& command, const LoadedConfig& loaded,
                 std::optional<Background>& background, const ServerLog& log, sigset_t signals) {
  if (loaded.config.gsi.process_per_session && ::geteuid() == 0) {
    // Root: every session becomes its account in a process of its own (start-up refused any
    // kind of session that would have stayed root: server/config/session_accounts.hpp).
    server.spawn_sessions_with(command.arguments);
    log.control->info("process per session: sessions run as their mapped accounts");
  }
  if (!start_listening(server, loaded.config, loaded.process.pidfile, *log.control)) return 1;
  if (background) background->ready();
  for (const auto& note : loaded.notes) log.control->info("{}", note);
  for (const auto& warning : loaded.warnings) log.control->warn("{}", warning);
  const bool gsi_enabled = loaded.config.gsi.enabled;
  std::thread signal_thread([&server, &command, gsi_enabled, &log, signals] {
    serve_signals(signals, server, [&] { reload_after_sighup(server, command, gsi_enabled, log); });
  });
  server.run();
  if (signal_thread.joinable()) {
    // NOLINTNEXTLINE(bugprone-bad-signal-to-kill-thread): releases its sigwait, kills nothing.
    pthread_kill(signal_thread.native_handle(), SIGTERM);  // if run() ended first
    signal_thread.join();
  }
  log.control->info("stopped");
  return 0;
}

int run_gridftpd(int argc, char** argv) {
  const sigset_t signals = block_signals_for_sigwait();
  CommandLine command;
  if (const auto rc = parse_command_line(argc, argv, command)) return *rc;
  if (const auto rc = answer_info_options(command)) return *rc;
  LoadedConfig loaded;
  if (const auto rc = load_config(command, loaded)) return *rc;
  if (const int rc = print_problems(prepare_roots(loaded.config)); rc != 0) return rc;
  const int inetd_connection = loaded.process.inetd ? take_inetd_connection() : -1;
  if (loaded.process.inetd && inetd_connection < 0)
    return print_problems({std::string("inetd: ") + std::strerror(errno)});
  std::string log_error;
  auto loggers = make_loggers(loaded.config.logging, log_error);
  if (!loggers) {
    std::cerr << "gridftpd: cannot open log: " << log_error << "\n";
    return 1;
  }
  const ServerLog log{loggers->control, loggers->files};
  if (command.native.fork_server_fd && !take_fork_server_hand_off(command.native)) return 0;
  if (command.native.session_fd && !restrict_session_privileges(*log.control)) return 1;
  std::optional<Background> background;
  if (!detach_when_asked(loaded, command.native, background, *log.control)) return 1;
  Server server(loaded.config, std::move(loaded.accounts), std::move(loaded.security.gsi),
                std::move(loaded.security.ftps), std::move(*loggers));
  if (command.native.session_fd || inetd_connection >= 0)
    return serve_one_connection(server, command.native, inetd_connection, signals);
  return serve_daemon(server, command, loaded, background, log, signals);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_gridftpd(argc, argv);
  } catch (const std::exception& error) {  // a bug or exhausted memory: say so, exit non-zero
    std::cerr << "gridftpd: " << error.what() << "\n";
    return 1;
  }
}
