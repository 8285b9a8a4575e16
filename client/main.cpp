// gridcp: copies files over FTP the way globus-url-copy does, taking its flag spellings. This
// file only binds argv to CopyFlags with CLI11 (client/copy_flags.hpp makes the CopyEngine's
// options of them), calls the engine and picks the exit status; per-file output comes from the
// reporters (client/report/).
#include <csignal>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <boost/version.hpp>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <spdlog/version.h>
#include <unistd.h>

#include "client/copy/copy_engine.hpp"
#include "client/copy_flags.hpp"
#include "client/flag_spelling.hpp"
#include "client/report/reporters.hpp"
#include "client/url.hpp"
#include "protocol/control/retr_options.hpp"

namespace {

using gridftp::client::CopyEngine;
using gridftp::client::CopyFlags;
using gridftp::client::UrlPair;
using gridftp::client::report::Reporters;

// The multi-file engine's flags, with globus-url-copy's meanings (guc -help, GCT 6.2).
void add_engine_flags(CLI::App& app, CopyFlags& flags) {
  app.add_option("--cc,--concurrency", flags.concurrency,
                 "Files in flight at once, each over its own control connections")
      ->check(CLI::Range(1U, 256U));
  app.add_flag("--pp,--pipeline", flags.pipelining,
               "Pipeline the commands of many files on one connection pair (third-party)");
  app.add_flag("--no-batch", flags.no_batch,
               "Copy -r trees from gridftpd file by file, not in one batch transfer");
  app.add_flag("--sync", flags.sync,
               "Copy only files whose destination is missing or differs (see -sync-level)");
  app.add_option("--sync-level", flags.sync_level,
                 "0: destination missing; 1: or sizes differ; 2 (default): or destination older; "
                 "3: or checksums differ")
      ->check(CLI::Range(0U, gridftp::client::kMaxSyncLevel));
  app.add_flag("--rst,--restart", flags.restart,
               "Retry failed files, resuming from what the destination already holds");
  app.add_option("--rst-retries", flags.restart_retries,
                 "Most retries per file with -rst (0: no limit; default 5)");
  app.add_option("--rst-interval", flags.restart_interval_seconds,
                 "Seconds between retries (0, the default: exponential back-off)");
  app.add_option("--rst-timeout", flags.restart_timeout_seconds,
                 "Stop retrying a file this many seconds after its first failure (0: never)");
  app.add_flag("-c,--continue-on-error", flags.continue_on_error,
               "Go on with the other files after a failed one, list the failures and exit 1 "
               "(gridcp always does)");
  app.add_flag("--dp,--delayed-pasv", flags.delayed_passive,
               "Accepted for compatibility (delayed passive); gridcp sends a plain PASV");
  app.add_flag("--fast", flags.fast,
               "MODE E for every transfer (as -p 1 when -p is not given), as globus-url-copy "
               "-fast; -pp reuses the MODE E data connections from file to file");
}

// How the data moves: MODE E streams, block and buffer sizes, striping, a byte range.
void add_data_shape_flags(CLI::App& app, CopyFlags& flags) {
  app.add_option("-p,--parallel", flags.parallel,
                 "Parallel data streams; switches to extended block mode (MODE E)")
      ->check(CLI::Range(1U, gridftp::protocol::control::kMaxParallelism));
  app.add_option("--tcp-bs,--tcp-buffer-size", flags.tcp_buffer_size,
                 "TCP buffer size of the data connections, in bytes or with K, M, G: set on "
                 "gridcp's sockets and sent to each server (SBUF, or SITE RETRBUFSIZE)");
  app.add_option("--bs,--block-size", flags.block_size,
                 "MODE E block size for the blocks gridcp sends, in bytes or with K, M, G "
                 "(default 1M, at most 1G)");
  app.add_flag("--stripe", flags.stripe,
               "Striped transfers (MODE E): ask a striped receiver for one address per stripe "
               "(SPAS) and send to every stripe (SPOR for a third-party source)");
  app.add_option("--sbs,--striped-block-size", flags.striped_block_size,
                 "Striped layout: 0 for Partitioned, N > 0 for Blocked with N-byte blocks (bytes "
                 "or with K, M, G); implies -stripe");
  app.add_option("--off,--partial-offset", flags.partial_offset,
                 "Transfer only from this offset, in bytes or with K, M, G (ERET/ESTO)");
  app.add_option("--len,--partial-length", flags.partial_length,
                 "Transfer only this many bytes, or with K, M, G (ERET/ESTO)");
}

// The data channel's security and the UDPX channel.
void add_data_channel_flags(CLI::App& app, CopyFlags& flags) {
  app.add_flag("--nodcau,--no-data-channel-authentication", flags.no_dcau,
               "gsiftp: no data channel authentication (DCAU N)");
  app.add_flag("--dcsafe,--data-channel-safe", flags.data_safe,
               "gsiftp: integrity-protected data channels (PROT S)");
  app.add_flag("--dcpriv,--data-channel-private", flags.data_private,
               "gsiftp: encrypted data channels (PROT P)");
  app.add_flag("--udp", flags.udp,
               "gsiftp: move the data over UDPX, the rate-controlled UDP channel (SITE "
               "SETNETSTACK udpx); get, put and third-party between gridftpd servers");
  app.add_flag("--udp-unauthenticated", flags.udp_unauthenticated,
               "-udp without data channel authentication (ftp://, -nodcau): keys from an "
               "unauthenticated exchange, open to a man in the middle; the server must allow it");
}

void add_flags(CLI::App& app, CopyFlags& flags) {
  app.add_flag("-v,--verbose", flags.verbose, "Print the URLs of each transfer");
  app.add_flag("--json", flags.json,
               "Print one JSON object per file and a final summary on stdout (JSON Lines), and "
               "nothing else there");
  app.add_flag("--no-progress", flags.no_progress,
               "No live progress display, even when stderr is a terminal");
  app.add_flag("--vb,--verbose-perf", flags.verbose_bytes,
               "Print bytes and rate after each transfer");
  app.add_flag("-q,--quiet", flags.quiet, "Print nothing for successful operations");
  app.add_flag("--dbg,--debugftp", flags.debug, "Print the control channel dialogue to stderr");
  app.add_flag("--cd,--create-dest", flags.create_dest, "Create missing destination directories");
  app.add_flag("-r,--recurse", flags.recursive, "Copy directories (source URL ends in /)");
  app.add_option("--list", flags.list_url, "List the directory at this URL");
  app.add_option("-f", flags.url_file, "Read 'source dest' URL pairs from this file");
  app.add_flag("--verify-checksum", flags.verify_checksum,
               "Compare source and destination checksums after each file");
  app.add_option("--checksum-alg", flags.checksum_algorithm,
                 "Checksum algorithm for -verify-checksum: MD5 (default), ADLER32, SHA1, SHA256, "
                 "SHA512, CRC32C");
  app.add_option("--st,--stall-timeout", flags.stall_timeout_seconds,
                 "Fail a transfer that makes no progress for this many seconds (default 600; "
                 "0: never)");
  app.add_option("-s,--subject", flags.subject,
                 "gsiftp: the certificate subject both servers must carry, instead of a "
                 "certificate for the URL's host (a server behind a DNS alias)");
  app.add_option("--ss,--source-subject", flags.source_subject,
                 "gsiftp: the same for the source server only (overrides -s)");
  app.add_option("--ds,--dest-subject", flags.dest_subject,
                 "gsiftp: the same for the destination server only (overrides -s)");
  app.add_option("--cred", flags.credential,
                 "gsiftp: use this proxy file for both servers (as X509_USER_PROXY)");
  app.add_flag("--versions", flags.versions,
               "Print the versions of gridcp and the libraries it uses, and exit");
  app.add_flag("-b,--binary", flags.binary, "Copy bytes unchanged (the default; always so)");
  app.add_flag("--ipv6", flags.ipv6,
               "Use IPv6 where the host has an address for it (gridcp always does; EPSV on "
               "IPv6 control connections)");
  app.add_flag("--no-g2,--nogridftp2", flags.no_gridftp2,
               "No GridFTP v2 commands (gridcp sends none: no GET/PUT)");
  app.add_option("--ftps-ca", flags.ftps_ca,
                 "ftps://: trust the CAs in this PEM file, or in this directory of certificates "
                 "under OpenSSL's hashed names (openssl rehash), instead of the system's");
  app.add_flag("--ftps-insecure", flags.ftps_insecure,
               "ftps://: do not check the server's certificate or name at all (encrypted, but "
               "open to a man in the middle)");
  app.add_option("--rate", flags.rate, "-udp: target rate in bit/s (k, M, G suffixes: 500M)");
  app.add_option("--min-rate", flags.min_rate, "-udp: rate never to go below, bit/s");
  app.add_option("--policy", flags.policy, "-udp: fixed, high, fair (default) or low")
      ->check(CLI::IsMember({"fixed", "high", "fair", "low"}));
  add_data_shape_flags(app, flags);
  add_data_channel_flags(app, flags);
  add_engine_flags(app, flags);
  app.add_option("urls", flags.urls, "source URL and destination URL");
}

// -versions: gridcp and the libraries it was built with, as globus-url-copy lists its modules.
// (OpenSSL's version would need security/, the only place that includes OpenSSL.)
void print_versions() {
  std::cout << "gridcp: " << GRIDCP_VERSION << '\n'
            << "Boost: " << BOOST_VERSION / 100000 << '.' << BOOST_VERSION / 100 % 1000 << '.'
            << BOOST_VERSION % 100 << '\n'
            << "spdlog: " << SPDLOG_VER_MAJOR << '.' << SPDLOG_VER_MINOR << '.' << SPDLOG_VER_PATCH
            << '\n'
            << "CLI11: " << CLI11_VERSION << '\n';
}

// -dbg shows the dialogue ("debug: ..."); warnings ("gridcp: warning: ...") show unless -q.
std::shared_ptr<spdlog::logger> make_client_logger(bool debug, bool quiet) {
  auto logger =
      std::make_shared<spdlog::logger>("client", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_pattern("%v");
  logger->set_level(debug   ? spdlog::level::debug
                    : quiet ? spdlog::level::err
                            : spdlog::level::warn);
  return logger;
}

void print_failure(std::string_view what, std::error_code error, const CopyEngine& engine,
                   Reporters& reporters) {
  std::string text = "gridcp: error: " + std::string(what) + ": " + error.message();
  if (!engine.failure_detail().empty()) {
    text += "\n  " + engine.failure_detail();
  }
  reporters.print_error(text + '\n');
}

bool run_list(CopyEngine& engine, const CopyFlags& flags, Reporters& reporters) {
  auto url = gridftp::client::parse_url(flags.list_url);
  if (!url) {
    reporters.print_error("gridcp: error: bad URL: " + flags.list_url + '\n');
    return false;
  }
  if (!url->is_directory()) {
    url->path += '/';
  }
  auto entries = engine.list(*url);
  if (!entries) {
    print_failure("listing " + flags.list_url, entries.error(), engine, reporters);
    return false;
  }
  std::cout << flags.list_url << '\n';
  for (const auto& entry : *entries) {
    std::cout << "    " << entry.display_name() << '\n';
  }
  std::cout << '\n';  // globus-url-copy ends a listing with a blank line
  return true;
}

// The help text around the flags, the help and version flags, then the flags.
void describe_app(CLI::App& app, CopyFlags& flags) {
  app.footer(
      "Every option also takes globus-url-copy's one-dash spelling (-vb, -tcp-bs 4M, -cc 4); "
      "its other flags are refused by name with the reason, and an unknown one-dash word is "
      "refused whole (-rp is never -r -p). gsiftp:// uses the proxy in -cred, X509_USER_PROXY "
      "(or /tmp/x509up_u<uid>) and the CAs in X509_CERT_DIR. ftps:// (AUTH TLS, PROT P; -p N over "
      "TLS where the server has MODE E, else one stream) checks the server's certificate and "
      "name against OpenSSL's default CAs (SSL_CERT_FILE / SSL_CERT_DIR), or --ftps-ca's; "
      "--ftps-insecure checks nothing. Every FTPS data connection resumes the control "
      "connection's TLS session.");
  app.set_help_flag("-h,--help,--usage", "Print this help and exit");
  app.set_version_flag("--version", std::string("gridcp ") + GRIDCP_VERSION,
                       "Print gridcp's version and exit");
  add_flags(app, flags);
}

// Prints a message that refuses the command line; returns gridcp's exit status for it.
int print_error(std::string_view message) {
  std::cerr << "gridcp: error: " << message << '\n';
  return 1;
}

// The -list listing, then the copies, reported as the flags ask. False when any failed.
bool list_and_copy(const CopyFlags& flags, gridftp::client::CopyOptions options,
                   const std::vector<UrlPair>& pairs) {
  const auto report_plan = gridftp::client::report::plan_reports(
      {flags.json, flags.quiet, flags.verbose, flags.verbose_bytes, flags.no_progress, flags.debug,
       ::isatty(STDERR_FILENO) == 1});
  Reporters reporters(report_plan, gridftp::client::Clock::now());
  options.observer = reporters.observer();
  options.learn_sizes = report_plan.live_display;
  CopyEngine engine(options, make_client_logger(flags.debug, flags.quiet));
  bool ok = flags.list_url.empty() || run_list(engine, flags, reporters);
  ok = engine.run(pairs) && ok;
  reporters.finish(gridftp::client::Clock::now());
  return ok;
}

int run_gridcp(int argc, char** argv) {
  // sendfile(2) has no MSG_NOSIGNAL: a data peer that hangs up must fail the send (EPIPE, and
  // a -rst retry), not kill gridcp.
  std::signal(SIGPIPE, SIG_IGN);
  const std::vector<std::string_view> raw(argv, argv + argc);
  auto spelled = gridftp::client::spell_flags(raw);
  if (!spelled.error.empty()) return print_error(spelled.error);
  std::vector<char*> normalized_argv;
  for (auto& argument : spelled.arguments) normalized_argv.push_back(argument.data());
  CLI::App app{
      "gridcp: copy files between ftp://, ftps://, gsiftp:// and file:// URLs "
      "(globus-url-copy flags)",
      "gridcp"};
  CopyFlags flags;
  describe_app(app, flags);
  CLI11_PARSE(app, static_cast<int>(normalized_argv.size()), normalized_argv.data());
  if (flags.versions) {
    print_versions();
    return 0;
  }
  auto collected = gridftp::client::collect_pairs(flags);
  if (!collected.error.empty()) return print_error(collected.error);
  if (collected.pairs.empty() && flags.list_url.empty()) {
    std::cerr << app.help();
    return 1;
  }
  auto built = gridftp::client::copy_options_from(flags, collected.pairs);
  for (const auto& warning : built.warnings) std::cerr << "gridcp: warning: " << warning << '\n';
  if (!built.error.empty()) return print_error(built.error);
  // GsiCredentials reads the proxy named here, as globus-url-copy's -cred does.
  if (!flags.credential.empty()) ::setenv("X509_USER_PROXY", flags.credential.c_str(), 1);
  return list_and_copy(flags, std::move(built.options), collected.pairs) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_gridcp(argc, argv);
  } catch (const std::exception& error) {  // a bug or exhausted memory: say so, exit non-zero
    std::cerr << "gridcp: " << error.what() << "\n";
    return 1;
  }
}
