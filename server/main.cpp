// gridftpd: argv, signals, exit codes and logger creation live here and nowhere else.
#include <array>
#include <csignal>
#include <cstring>
#include <iostream>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "protocol/core/long_options.hpp"
#include "security/password_hash.hpp"
#include "server/auth/ftps_context.hpp"
#include "server/auth/gsi_context.hpp"
#include "server/config/embedded_config.hpp"
#include "server/logging/log_setup.hpp"
#include "server/server.hpp"
#include "server/startup.hpp"

namespace {

using namespace gridftp::server;

// globus-gridftp-server's option names that gridftpd accepts with one dash.
constexpr std::array<std::string_view, 16> kGlobusLongOptions{"port",
                                                              "control-interface",
                                                              "data-interface",
                                                              "port-range",
                                                              "aa",
                                                              "anonymous-user",
                                                              "restrict-paths",
                                                              "threads",
                                                              "log-transfer",
                                                              "debug",
                                                              "detach",
                                                              "config",
                                                              "check-config",
                                                              "hash-password",
                                                              "help",
                                                              "print-default-config"};

struct CommandLine {
  std::optional<std::string> config_file;
  std::optional<unsigned> port;
  std::optional<std::string> control_interface;
  std::optional<std::string> data_interface;
  std::optional<std::string> port_range;
  bool allow_anonymous = false;
  std::optional<std::string> anonymous_user;
  std::optional<std::string> restrict_paths;
  std::optional<unsigned> threads;
  std::optional<std::string> debug_level;
  std::optional<std::string> transfer_log;
  bool detach = false;
  bool check_config = false;
  bool hash_password = false;
  bool print_default_config = false;
  std::optional<int> session_fd;  // internal: a session process serving this inherited socket
  std::optional<int> delegation_key_fd;  // internal: the key its parent made ahead
  std::optional<int> udpx_pool_fd;       // internal: the parent's UDPX rate pool page
};

// -d takes Globus's level names; map them onto spdlog's.
std::string level_from_globus(const std::string& level) {
  if (level == "error" || level == "1") return "error";
  if (level == "warn" || level == "2") return "warn";
  if (level == "info" || level == "4") return "info";
  if (level == "dump" || level == "all" || level == "255") return "trace";
  return level;
}

std::vector<std::string> apply_command_line(const CommandLine& cli, ServerConfig& config) {
  std::vector<std::string> problems;
  if (cli.port) {
    if (*cli.port > 65535) problems.emplace_back("-port must be 0..65535");
    config.listen.port = static_cast<std::uint16_t>(*cli.port);
  }
  if (cli.control_interface) config.listen.control_interface = *cli.control_interface;
  if (cli.data_interface) config.listen.data_interface = *cli.data_interface;
  if (cli.port_range) {
    unsigned low = 0, high = 0;
    if (std::sscanf(cli.port_range->c_str(), "%u,%u", &low, &high) != 2 || low > 65535 ||
        high > 65535) {
      problems.emplace_back("-port-range must be MIN,MAX");
    }
    config.listen.passive_port_min = static_cast<std::uint16_t>(low);
    config.listen.passive_port_max = static_cast<std::uint16_t>(high);
  }
  if (cli.allow_anonymous) config.anonymous.enabled = true;
  if (cli.restrict_paths) {
    auto more = apply_restrict_paths(*cli.restrict_paths, config.anonymous);
    problems.insert(problems.end(), more.begin(), more.end());
  }
  if (cli.threads) config.server.threads = *cli.threads;
  if (cli.debug_level) config.logging.level = level_from_globus(*cli.debug_level);
  if (cli.transfer_log) config.logging.transfer_log = *cli.transfer_log;
  return problems;
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

void add_options(CLI::App& app, CommandLine& cli) {
  app.add_option("-c,--config", cli.config_file, "TOML config file (default: the built-in config)");
  app.add_option("-p,--port", cli.port, "Control port (globus: -p/-port); 0 picks a free one");
  app.add_option("--control-interface", cli.control_interface,
                 "Address to listen on for control connections");
  app.add_option("--data-interface", cli.data_interface,
                 "Address for data connections and PASV replies");
  app.add_option("--port-range", cli.port_range, "Passive data port range MIN,MAX");
  app.add_flag("--aa", cli.allow_anonymous, "Allow anonymous logins");
  app.add_option(
      "--anonymous-user", cli.anonymous_user,
      "Accepted for globus compatibility; anonymous sessions run as the server's account");
  app.add_option("--restrict-paths", cli.restrict_paths,
                 "Globus form R/path,RW/path: the first readable path is the anonymous root, RW "
                 "paths writable");
  app.add_option("--threads", cli.threads, "I/O threads (0 = one per core)");
  app.add_option("-d,--debug", cli.debug_level,
                 "Log level: error, warn, info, dump/all, or spdlog names");
  app.add_option("--log-transfer", cli.transfer_log,
                 "Transfer log file (one JSON line per transfer)");
  app.add_flag("-S,--detach", cli.detach, "Run in the background once listening");
  app.add_flag("--check-config", cli.check_config, "Check the configuration and exit");
  app.add_flag("--hash-password", cli.hash_password, "Read a password on stdin and print its hash");
  app.add_flag("--print-default-config", cli.print_default_config,
               "Print the built-in config and exit");
  app.add_option("--session-fd", cli.session_fd,
                 "(internal) serve one inherited control connection")
      ->group("");
  app.add_option("--delegation-key-fd", cli.delegation_key_fd,
                 "(internal) a delegation key made by the parent")
      ->group("");
  app.add_option("--udpx-pool-fd", cli.udpx_pool_fd, "(internal) the parent's UDPX rate pool")
      ->group("");
  std::string footer = "globus-gridftp-server spellings with one dash are accepted too:";
  for (const auto name : kGlobusLongOptions) footer += " -" + std::string(name);
  app.footer(footer);
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
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  CLI::App app{"gridftpd: GridFTP-compatible transfer server"};
  CommandLine cli;
  add_options(app, cli);
  const std::vector<std::string_view> raw(argv + 1, argv + argc);
  auto normalized = gridftp::normalize_long_options(raw, kGlobusLongOptions);
  std::reverse(normalized.begin(), normalized.end());  // CLI11 parses a reversed vector
  try {
    app.parse(normalized);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  if (cli.print_default_config) {
    std::cout << embedded_default_config();
    return 0;
  }
  if (cli.hash_password) return hash_password_from_stdin();

  auto load = cli.config_file ? load_config_file(*cli.config_file)
                              : parse_config(embedded_default_config(), "built-in config");
  if (!load.ok()) return print_problems(load.problems);
  ServerConfig config = std::move(load.config);
  if (const int rc = print_problems(apply_command_line(cli, config)); rc != 0) return rc;
  if (const int rc = print_problems(validate(config)); rc != 0) return rc;
  std::vector<gridftp::server::auth::Account> accounts;
  if (const int rc = print_problems(load_accounts(config.accounts, accounts)); rc != 0) return rc;
  std::shared_ptr<const gridftp::server::auth::GsiContext> gsi;
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
    std::cout << "gridftpd: configuration OK\n";
    return 0;
  }
  if (const int rc = print_problems(prepare_roots(config)); rc != 0) return rc;

  std::string log_error;
  auto loggers = make_loggers(config.logging, log_error);
  if (!loggers) {
    std::cerr << "gridftpd: cannot open log: " << log_error << "\n";
    return 1;
  }
  auto control_log = loggers->control;
  std::optional<Server> server;
  server.emplace(config, std::move(accounts), std::move(gsi), std::move(ftps), std::move(*loggers));
  if (cli.session_fd) {
    server->serve_inherited(*cli.session_fd, cli.delegation_key_fd, cli.udpx_pool_fd);
    std::thread signal_thread([&server, stop_signals] {
      int received = 0;
      sigwait(&stop_signals, &received);
      server->stop();
    });
    server->run();
    pthread_kill(signal_thread.native_handle(), SIGTERM);
    signal_thread.join();
    return 0;
  }
  if (config.gsi.enabled && config.gsi.process_per_session && ::geteuid() == 0) {
    // Root with GSI: every session becomes its mapped account in a process of its own.
    server->spawn_sessions_with(std::vector<std::string>(argv + 1, argv + argc));
    control_log->info("process per session: sessions run as their mapped accounts");
  }
  const auto endpoint = server->bind();
  if (!endpoint) {
    control_log->critical("cannot listen on {} port {}: {}", config.listen.control_interface,
                          config.listen.port, endpoint.error().message());
    return 1;
  }
  control_log->info("listening on {} port {}", endpoint->address().to_string(), endpoint->port());
  if (cli.detach && ::daemon(1, 1) != 0) {
    control_log->critical("cannot detach: {}", std::strerror(errno));
    return 1;
  }
  std::thread signal_thread([&server, stop_signals] {
    int received = 0;
    sigwait(&stop_signals, &received);
    server->stop();
  });
  server->run();
  if (signal_thread.joinable()) {
    pthread_kill(signal_thread.native_handle(), SIGTERM);  // release sigwait if run() ended first
    signal_thread.join();
  }
  control_log->info("stopped");
  return 0;
}
