// gridftpd: argv, signals, exit codes and logger creation live here and nowhere else.
#include <array>
#include <csignal>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "security/password_hash.hpp"
#include "server/auth/account_home.hpp"
#include "server/auth/ftps_context.hpp"
#include "server/auth/gsi_context.hpp"
#include "server/config/embedded_config.hpp"
#include "server/config/globus_environment.hpp"
#include "server/config/globus_settings.hpp"
#include "server/config/globus_start.hpp"
#include "server/config/session_accounts.hpp"
#include "server/logging/log_setup.hpp"
#include "server/process/background.hpp"
#include "server/process/fork_server.hpp"
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

bool write_pidfile(const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  out << ::getpid() << "\n";
  return static_cast<bool>(out);
}

struct AssembledConfig {
  ServerConfig config;
  std::vector<std::string> problems;  // empty when the config may be used
  std::vector<std::string> warnings;  // Globus options taken with a difference worth saying
};

// The config from every layer, in Globus's order: the embedded defaults or the config file (and
// -C directory, whose `$NAME value` lines set the environment), then the command line, then the
// environment (X509_*, GRIDMAP, GLOBUS_TCP_*); checked. Start-up and SIGHUP both call it.
AssembledConfig assemble_config(const std::vector<globus::Setting>& command_line,
                                globus::ProcessOptions& process, std::vector<std::string>& notes) {
  AssembledConfig out;
  // A view: it reads the environment when asked, so it also sees what `$NAME value` lines set.
  const auto environment = globus::process_environment();
  const bool globus_start = globus::command_line_names_globus(command_line) ||
                            globus::environment_names_globus(environment);
  auto layers = load_startup_layers(process.config_file, process.config_dir, globus_start);
  if (!layers.problems.empty()) {
    out.problems = std::move(layers.problems);
    return out;
  }
  for (const auto& [name, value] : layers.environment) ::setenv(name.c_str(), value.c_str(), 1);
  out.config = std::move(layers.config);
  auto settings = std::move(layers.settings);
  settings.insert(settings.end(), command_line.begin(), command_line.end());
  out.problems = globus::apply_globus_settings(settings, out.config, process, out.warnings);
  if (!out.problems.empty()) return out;
  out.problems = globus::apply_globus_environment(out.config, environment, notes);
  if (process.anonymous_by_globus && layers.format != "gridftpd TOML") {
    // Globus's anonymous users see the real "/", writable where the kernel lets their account.
    out.config.anonymous.root = "/";
    out.config.anonymous.writable = {"."};
  }
  auto accounts = check_session_accounts(
      out.config, ::geteuid() == 0, gridftp::server::auth::own_account_name(), system_accounts());
  out.problems.insert(out.problems.end(), accounts.problems.begin(), accounts.problems.end());
  notes.insert(notes.end(), accounts.notes.begin(), accounts.notes.end());
  auto more = resolve_data_interface(out.config);
  out.problems.insert(out.problems.end(), more.begin(), more.end());
  if (out.problems.empty()) out.problems = validate(out.config);
  return out;
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

}  // namespace

int main(int argc, char** argv) {
  // Signals are taken synchronously by one thread (sigwait), so stop() never runs in a handler.
  // They are blocked before any thread exists, so every thread inherits the mask.
  std::signal(SIGPIPE, SIG_IGN);
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGHUP);  // reload, not stop (serve_signals)
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  namespace globus = gridftp::server::globus;
  std::vector<std::string> native_words, globus_words;
  split_arguments(argc, argv, native_words, globus_words);
  CLI::App app{"gridftpd"};
  NativeOptions cli;
  add_options(app, cli);
  std::reverse(native_words.begin(), native_words.end());  // CLI11 parses a reversed vector
  try {
    app.parse(native_words);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  std::string bad_word;
  auto command_line = globus::parse_globus_command_line(globus_words, bad_word);
  if (!command_line) return print_problems({bad_word});
  globus::ProcessOptions process;
  // -c, -C, -help and -version first: they decide what else is read.
  ServerConfig scratch;
  if (const int rc = print_problems(globus::apply_globus_settings(*command_line, scratch, process));
      rc != 0)
    return rc;
  if (process.print_help) {
    print_help();
    return 0;
  }
  if (process.print_version) {
    std::cout << "gridftpd " << GRIDFTPD_VERSION << "\n";
    return 0;
  }
  if (cli.print_default_config) {
    std::cout << embedded_default_config();
    return 0;
  }
  if (cli.hash_password) return hash_password_from_stdin();

  std::vector<std::string> notes;
  const auto process_before_config = process;  // what a reload starts from
  auto assembled = assemble_config(*command_line, process, notes);
  if (const int rc = print_problems(assembled.problems); rc != 0) return rc;
  ServerConfig config = std::move(assembled.config);
  const auto warnings = std::move(assembled.warnings);
  if (cli.print_config) {
    std::cout << format_config(config);
    return 0;
  }
  std::vector<gridftp::server::auth::Account> accounts;
  if (const int rc = print_problems(load_accounts(config.accounts, accounts)); rc != 0) return rc;
  std::shared_ptr<const gridftp::server::auth::GsiContext> gsi;
  const bool gsi_enabled = config.gsi.enabled;
  if (config.gsi.enabled) {
    std::string why;
    auto loaded = gridftp::server::auth::load_gsi_context(config.gsi, why);
    if (!loaded) return print_problems({why});
    gsi = std::move(*loaded);
  }
  gridftp::security::SslCtxPtr ftps;
  if (config.tls.enabled) {
    std::string why;
    auto loaded =
        gridftp::server::auth::load_ftps_context(config.tls, config.listen.control_interface, why);
    if (!loaded) return print_problems({why});
    ftps = std::move(*loaded);
  }
  if (cli.check_config) {
    for (const auto& warning : warnings) std::cerr << "gridftpd: warning: " << warning << "\n";
    std::cout << "gridftpd: configuration OK\n";
    return 0;
  }
  if (const int rc = print_problems(prepare_roots(config)); rc != 0) return rc;

  int inetd_connection = -1;
  if (process.inetd) {
    inetd_connection = take_inetd_connection();
    if (inetd_connection < 0)
      return print_problems({std::string("inetd: ") + std::strerror(errno)});
  }
  std::string log_error;
  auto loggers = make_loggers(config.logging, log_error);
  if (!loggers) {
    std::cerr << "gridftpd: cannot open log: " << log_error << "\n";
    return 1;
  }
  auto control_log = loggers->control;
  const auto log_files = loggers->files;  // what SIGHUP opens again after a rotation
  if (cli.fork_server_fd) {
    // Returns in each forked session process, with what it serves; the fork server itself ends
    // here when it is retired (server/process/fork_server.hpp).
    auto hand_off = gridftp::server::serve_fork_requests(*cli.fork_server_fd);
    if (!hand_off) return 0;
    cli.session_fd = hand_off->session_fd;
    cli.delegation_key_fd = hand_off->key_fd;
    cli.udpx_pool_fd = hand_off->pages.udpx_pool;
    cli.metrics_fd = hand_off->pages.metrics;
  }
  if (cli.session_fd) {
    if (auto restricted = gridftp::server::restrict_session_process(); !restricted) {
      control_log->critical("session process: cannot restrict privileges: {}",
                            restricted.error().message());
      return 1;
    }
  }
  std::optional<Background> background;
  if (process.detach && !process.inetd && !cli.session_fd) {
    auto entered = Background::enter();  // before any thread or helper process exists
    if (!entered) {
      control_log->critical("cannot detach: {}", entered.error().message());
      return 1;
    }
    background.emplace(std::move(*entered));
  }
  std::optional<Server> server;
  server.emplace(config, std::move(accounts), std::move(gsi), std::move(ftps), std::move(*loggers));
  if (cli.session_fd || inetd_connection >= 0) {
    if (cli.session_fd) {
      server->serve_inherited(*cli.session_fd, cli.delegation_key_fd,
                              {cli.udpx_pool_fd, cli.metrics_fd});
    } else {
      server->serve_inherited(inetd_connection, std::nullopt, {});
    }
    std::thread signal_thread([&server, stop_signals] {
      serve_signals(stop_signals, *server, nullptr);  // a session process does not reload
    });
    server->run();
    pthread_kill(signal_thread.native_handle(), SIGTERM);
    signal_thread.join();
    return 0;
  }
  if (config.gsi.process_per_session && ::geteuid() == 0) {
    // Root: every session becomes its account in a process of its own (start-up refused any
    // kind of session that would have stayed root: server/config/session_accounts.hpp).
    server->spawn_sessions_with(std::vector<std::string>(argv + 1, argv + argc));
    control_log->info("process per session: sessions run as their mapped accounts");
  }
  const auto metrics = server->open_metrics();
  if (!metrics) {
    control_log->critical("cannot open the metrics endpoint on {} port {}: {}",
                          config.metrics.address, config.metrics.port, metrics.error().message());
    return 1;
  }
  if (*metrics) {
    control_log->info("metrics on {} port {}", (*metrics)->address().to_string(),
                      (*metrics)->port());
  }
  const auto endpoint = server->bind();
  if (!endpoint) {
    control_log->critical("cannot listen on {} port {}: {}", config.listen.control_interface,
                          config.listen.port, endpoint.error().message());
    return 1;
  }
  control_log->info("listening on {} port {}", endpoint->address().to_string(), endpoint->port());
  if (process.pidfile && !write_pidfile(*process.pidfile)) {
    control_log->critical("cannot write pid file {}: {}", *process.pidfile, std::strerror(errno));
    return 1;
  }
  if (background) background->ready();
  for (const auto& note : notes) control_log->info("{}", note);
  for (const auto& warning : warnings) control_log->warn("{}", warning);
  // SIGHUP: the log files opened again at their paths (logrotate renamed them away: the
  // package's postrotate sends it), then the config read again from the same files, command
  // line and environment, checked as at start-up; a config with problems is refused and the
  // running one kept. Session processes keep the files they opened at their start until they
  // end: as their accounts they could not open root's files again, and the rotated file stays
  // in place for them (logrotate's delaycompress); sessions started afterwards, and the fork
  // server that a reload starts afresh, open the new ones.
  const auto reload = [&] {
    const auto unopened = reopen_log_files(log_files);
    for (const auto& problem : unopened)
      control_log->error("SIGHUP: cannot open the log file again, still writing the old one: {}",
                         problem);
    if (!log_files.empty() && unopened.empty()) control_log->info("SIGHUP: log files reopened");
    auto again_process = process_before_config;
    std::vector<std::string> reload_notes;
    auto again = assemble_config(*command_line, again_process, reload_notes);
    Server::Reload reloaded;
    if (again.problems.empty())
      again.problems = load_accounts(again.config.accounts, reloaded.accounts);
    if (again.problems.empty() && gsi_enabled) {
      std::string why;
      auto gridmap = gridftp::security::load_gridmap(again.config.gsi.gridmap, why);
      if (gridmap) {
        reloaded.gridmap = std::move(*gridmap);
      } else {
        again.problems.push_back("gsi.gridmap (" + again.config.gsi.gridmap.string() +
                                 "): " + (why.empty() ? gridmap.error().message() : why));
      }
    }
    if (!again.problems.empty()) {
      for (const auto& problem : again.problems)
        control_log->error("SIGHUP: config not reloaded, the running one is kept: {}", problem);
      return;
    }
    for (const auto& warning : again.warnings) control_log->warn("SIGHUP: {}", warning);
    reloaded.config = std::move(again.config);
    server->apply_reload(std::move(reloaded));
  };
  std::thread signal_thread(
      [&server, stop_signals, &reload] { serve_signals(stop_signals, *server, reload); });
  server->run();
  if (signal_thread.joinable()) {
    pthread_kill(signal_thread.native_handle(), SIGTERM);  // release sigwait if run() ended first
    signal_thread.join();
  }
  control_log->info("stopped");
  return 0;
}
