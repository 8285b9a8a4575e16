// gridcp: copies files over FTP the way globus-url-copy does, taking its flag spellings. This
// file only turns argv into CopyEngine options and calls, and picks the exit status; per-file
// output comes from the reporters (client/report/).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "client/copy/copy_engine.hpp"
#include "client/copy/url_pair_list.hpp"
#include "client/flag_spelling.hpp"
#include "client/report/reporters.hpp"
#include "protocol/control/net_stack.hpp"
#include "protocol/control/retr_options.hpp"
#include "security/digest.hpp"

namespace {

using gridftp::client::CopyEngine;
using gridftp::client::UrlPair;
using gridftp::client::report::Reporters;

struct Flags {
  bool verbose = false;              // -v
  bool verbose_bytes = false;        // -vb
  bool quiet = false;                // -q
  bool debug = false;                // -dbg
  bool json = false;                 // --json
  bool no_progress = false;          // --no-progress
  bool create_dest = false;          // -cd
  bool recursive = false;            // -r
  std::string list_url;              // -list
  std::string url_file;              // -f
  std::optional<unsigned> parallel;  // -p: MODE E whenever given, as globus-url-copy
  std::string tcp_buffer_size;
  std::uint64_t block_size = gridftp::client::kDefaultBlockSizeBytes;
  std::optional<std::uint64_t> partial_offset;  // -off
  std::optional<std::uint64_t> partial_length;  // -len
  bool verify_checksum = false;
  std::string checksum_algorithm = "MD5";
  unsigned stall_timeout_seconds = 600;
  bool no_dcau = false;              // -nodcau: DCAU N
  bool data_safe = false;            // -dcsafe: PROT S
  bool data_private = false;         // -dcpriv: PROT P
  bool udp = false;                  // -udp: the UDPX data channel
  bool udp_unauthenticated = false;  // UDPX without DCAU, keys nobody authenticated
  std::string rate;                  // --rate, bit/s with k/M/G
  std::string min_rate;              // --min-rate
  std::string policy;                // --policy
  unsigned concurrency = 1;          // -cc
  bool pipelining = false;           // -pp
  bool no_batch = false;             // -no-batch
  bool sync = false;                 // -sync
  unsigned sync_level = gridftp::client::kDefaultSyncLevel;
  bool restart = false;  // -rst
  unsigned restart_retries = 5;
  unsigned restart_interval_seconds = 0;
  unsigned restart_timeout_seconds = 0;
  bool continue_on_error = false;  // -c: always the case in gridcp
  bool delayed_passive = false;    // -dp
  bool fast = false;               // -fast
  std::string ftps_ca;             // --ftps-ca
  bool ftps_insecure = false;      // --ftps-insecure
  std::vector<std::string> urls;
};

// The multi-file engine's flags, with globus-url-copy's meanings (guc -help, GCT 6.2).
void add_engine_flags(CLI::App& app, Flags& flags) {
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
               "Accepted for compatibility: gridcp always goes on with the other files");
  app.add_flag("--dp,--delayed-pasv", flags.delayed_passive,
               "Accepted for compatibility (delayed passive); gridcp sends a plain PASV");
  app.add_flag("--fast", flags.fast,
               "MODE E for every transfer (as -p 1 when -p is not given), as globus-url-copy "
               "-fast; -pp reuses the MODE E data connections from file to file");
}

void add_flags(CLI::App& app, Flags& flags) {
  app.add_flag("-v,--verbose", flags.verbose, "Print the URLs of each transfer");
  app.add_flag("--json", flags.json,
               "Print one JSON object per file and a final summary on stdout (JSON Lines), and "
               "nothing else there");
  app.add_flag("--no-progress", flags.no_progress,
               "No live progress display, even when stderr is a terminal");
  app.add_flag("--vb", flags.verbose_bytes, "Print bytes and rate after each transfer");
  app.add_flag("-q,--quiet", flags.quiet, "Print nothing for successful operations");
  app.add_flag("--dbg,--debugftp", flags.debug, "Print the control channel dialogue to stderr");
  app.add_flag("--cd,--create-dest", flags.create_dest, "Create missing destination directories");
  app.add_flag("-r,--recurse", flags.recursive, "Copy directories (source URL ends in /)");
  app.add_option("--list", flags.list_url, "List the directory at this URL");
  app.add_option("-f", flags.url_file, "Read 'source dest' URL pairs from this file");
  app.add_option("-p,--parallel", flags.parallel,
                 "Parallel data streams; switches to extended block mode (MODE E)")
      ->check(CLI::Range(1U, gridftp::protocol::control::kMaxParallelism));
  app.add_option("--tcp-bs,--tcp-buffer-size", flags.tcp_buffer_size,
                 "TCP buffer size of the data connections, in bytes or with K, M, G: set on "
                 "gridcp's sockets and sent to each server (SBUF, or SITE RETRBUFSIZE)");
  app.add_option("--bs,--block-size", flags.block_size,
                 "MODE E block size in bytes for the blocks gridcp sends (default 1048576)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 30));
  app.add_option("--off,--partial-offset", flags.partial_offset,
                 "Transfer only from this byte offset (ERET/ESTO)");
  app.add_option("--len,--partial-length", flags.partial_length,
                 "Transfer only this many bytes (ERET/ESTO)");
  app.add_flag("--verify-checksum", flags.verify_checksum,
               "Compare source and destination checksums after each file");
  app.add_option("--checksum-alg", flags.checksum_algorithm,
                 "Checksum algorithm for -verify-checksum: MD5 (default), ADLER32, SHA1, SHA256, "
                 "SHA512, CRC32C");
  app.add_option("--st,--stall-timeout", flags.stall_timeout_seconds,
                 "Fail a transfer that makes no progress for this many seconds")
      ->check(CLI::PositiveNumber);
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
  add_engine_flags(app, flags);
  app.add_option("urls", flags.urls, "source URL and destination URL");
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

// Collects the pairs from the positional URLs and -f.
bool collect_pairs(const Flags& flags, std::vector<UrlPair>& pairs) {
  if (flags.urls.size() == 2) {
    pairs.push_back(UrlPair{flags.urls[0], flags.urls[1]});
  } else if (!flags.urls.empty()) {
    std::cerr << "gridcp: error: expected a source URL and a destination URL\n";
    return false;
  }
  if (flags.url_file.empty()) {
    return true;
  }
  std::ifstream in(flags.url_file);
  if (!in) {
    std::cerr << "gridcp: error: cannot read " << flags.url_file << '\n';
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::size_t bad_line = 0;
  auto from_file = gridftp::client::parse_url_pairs(text.str(), bad_line);
  if (!from_file) {
    std::cerr << "gridcp: error: " << flags.url_file << ':' << bad_line
              << ": expected 'source-url dest-url'\n";
    return false;
  }
  pairs.insert(pairs.end(), from_file->begin(), from_file->end());
  return true;
}

bool is_ftps(const std::string& url) { return url.starts_with("ftps://"); }

bool uses_ftps(const std::vector<UrlPair>& pairs) {
  return std::any_of(pairs.begin(), pairs.end(), [](const UrlPair& pair) {
    return is_ftps(pair.source) || is_ftps(pair.dest);
  });
}

// Third-party FTPS needs one server to take the TLS client role on the data connection (SSCN,
// RFC 4217 §10.2), which gridftpd and Globus do not offer: both would wait as TLS servers.
bool has_ftps_third_party(const std::vector<UrlPair>& pairs) {
  return std::any_of(pairs.begin(), pairs.end(), [](const UrlPair& pair) {
    const bool remote_pair = !pair.source.starts_with("file:") && !pair.dest.starts_with("file:");
    return remote_pair && (is_ftps(pair.source) || is_ftps(pair.dest));
  });
}

void print_failure(std::string_view what, std::error_code error, const CopyEngine& engine,
                   Reporters& reporters) {
  std::string text = "gridcp: error: " + std::string(what) + ": " + error.message();
  if (!engine.failure_detail().empty()) {
    text += "\n  " + engine.failure_detail();
  }
  reporters.print_error(text + '\n');
}

bool run_list(CopyEngine& engine, const Flags& flags, Reporters& reporters) {
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

// -nodcau, -dcsafe and -dcpriv as one level; PROT S/P need DCAU, so they exclude -nodcau.
std::optional<gridftp::client::DataSecurityLevel> data_security_level(const Flags& flags) {
  using gridftp::security::DataProtection;
  if (flags.no_dcau && (flags.data_safe || flags.data_private)) {
    std::cerr << "gridcp: error: -nodcau cannot be combined with -dcsafe or -dcpriv\n";
    return std::nullopt;
  }
  gridftp::client::DataSecurityLevel level;
  level.authenticate = !flags.no_dcau;
  if (flags.data_private) {
    level.protection = DataProtection::Private;
  } else if (flags.data_safe) {
    level.protection = DataProtection::Safe;
  }
  return level;
}

// -udp with its rates, checked here so a bad rate is refused before any connection.
bool udpx_request(const Flags& flags, std::optional<gridftp::client::UdpxRequest>& out) {
  if (!flags.udp) {
    if (!flags.rate.empty() || !flags.min_rate.empty() || !flags.policy.empty() ||
        flags.udp_unauthenticated) {
      std::cerr << "gridcp: error: --rate, --min-rate, --policy and --udp-unauthenticated go "
                   "with -udp\n";
      return false;
    }
    return true;
  }
  if (flags.parallel || flags.fast) {
    std::cerr << "gridcp: error: -udp cannot be combined with -p or -fast (UDPX is one flow)\n";
    return false;
  }
  if (flags.no_dcau && !flags.udp_unauthenticated) {
    std::cerr << "gridcp: error: -udp -nodcau has no authenticated key; add "
                 "--udp-unauthenticated to accept keys nobody authenticated\n";
    return false;
  }
  gridftp::client::UdpxRequest request;
  request.unauthenticated = flags.udp_unauthenticated;
  for (auto [text, slot] :
       {std::pair{&flags.rate, &request.rate_bps}, std::pair{&flags.min_rate, &request.min_bps}}) {
    if (text->empty()) continue;
    auto rate = gridftp::protocol::control::parse_rate(*text);
    if (!rate || *rate == 0) {
      std::cerr << "gridcp: error: bad rate '" << *text << "' (bit/s, e.g. 500M)\n";
      return false;
    }
    *slot = *rate;
  }
  if (!flags.policy.empty()) request.policy = flags.policy;
  out = request;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> raw(argv, argv + argc);
  auto normalized = gridftp::client::normalize_flag_spelling(raw);
  std::vector<char*> normalized_argv;
  for (auto& argument : normalized) {
    normalized_argv.push_back(argument.data());
  }
  CLI::App app{
      "gridcp: copy files between ftp://, ftps://, gsiftp:// and file:// URLs "
      "(globus-url-copy flags)",
      "gridcp"};
  app.footer(
      "Long options also take globus-url-copy's one-dash spelling: -vb, -dbg, -list URL, "
      "-cd, -tcp-bs N, -bs N, -st N, -off N, -len N, -verify-checksum, -checksum-alg A, "
      "-nodcau, -dcsafe, -dcpriv, -cc N, -pp, -sync, -sync-level N, -rst, -rst-retries N, "
      "-rst-interval N, -rst-timeout N, -dp, -fast. gsiftp:// uses the proxy in X509_USER_PROXY "
      "(or "
      "/tmp/x509up_u<uid>) and the CAs in X509_CERT_DIR. ftps:// (AUTH TLS, PROT P; -p N over "
      "TLS where the server has MODE E, else one stream) checks the server's certificate and "
      "name against OpenSSL's default CAs (SSL_CERT_FILE / SSL_CERT_DIR), or --ftps-ca's; "
      "--ftps-insecure checks nothing. Every FTPS data connection resumes the control "
      "connection's TLS session.");
  Flags flags;
  add_flags(app, flags);
  CLI11_PARSE(app, static_cast<int>(normalized_argv.size()), normalized_argv.data());

  std::vector<UrlPair> pairs;
  if (!collect_pairs(flags, pairs)) {
    return 1;
  }
  if (pairs.empty() && flags.list_url.empty()) {
    std::cerr << app.help();
    return 1;
  }
  if (!flags.ftps_ca.empty() && flags.ftps_insecure) {
    std::cerr << "gridcp: error: --ftps-ca and --ftps-insecure exclude each other\n";
    return 1;
  }
  if (!flags.ftps_ca.empty() && ::access(flags.ftps_ca.c_str(), R_OK) != 0) {
    std::cerr << "gridcp: error: cannot read --ftps-ca " << flags.ftps_ca << '\n';
    return 1;
  }
  if (flags.ftps_insecure && !flags.quiet && (uses_ftps(pairs) || is_ftps(flags.list_url))) {
    std::cerr << "gridcp: warning: --ftps-insecure: the server's certificate is not checked\n";
  }
  if (has_ftps_third_party(pairs)) {
    std::cerr << "gridcp: error: ftps:// copies go between a server and local files; third-party "
                 "FTPS needs SSCN (RFC 4217), which the servers do not offer\n";
    return 1;
  }
  gridftp::client::CopyOptions options;
  if (flags.verify_checksum) {
    auto algorithm = gridftp::security::parse_digest_algorithm(flags.checksum_algorithm);
    if (!algorithm) {
      std::cerr << "gridcp: error: unknown checksum algorithm " << flags.checksum_algorithm << '\n';
      return 1;
    }
    options.transfer.verify_checksum = *algorithm;
  }
  auto data_security = data_security_level(flags);
  if (!data_security) {
    return 1;
  }
  options.transfer.data_security = *data_security;
  if (!udpx_request(flags, options.transfer.udpx)) {
    return 1;
  }
  // guc -help: "-fast ... Use MODE E for all data transfers"; -p already means MODE E.
  options.transfer.parallelism =
      flags.parallel ? flags.parallel : (flags.fast ? std::optional<unsigned>(1) : std::nullopt);
  options.transfer.block_size_bytes = flags.block_size;
  options.transfer.range = {flags.partial_offset, flags.partial_length};
  options.create_dest = flags.create_dest;
  options.recursive = flags.recursive;
  options.session.data_timeout = std::chrono::seconds(flags.stall_timeout_seconds);
  options.session.ftps_trust = {flags.ftps_ca, !flags.ftps_insecure};
  if (!flags.tcp_buffer_size.empty()) {
    const auto bytes = gridftp::client::parse_buffer_size(flags.tcp_buffer_size);
    if (!bytes) {
      std::cerr << "gridcp: error: bad -tcp-bs '" << flags.tcp_buffer_size
                << "' (bytes, or with K, M or G: 4M)\n";
      return 1;
    }
    options.session.tcp_buffer_bytes = *bytes;
  }
  options.concurrency = flags.concurrency;
  options.pipelining = flags.pipelining;
  options.batch = !flags.no_batch;
  options.sync = {flags.sync, flags.sync_level};
  options.restart.enabled = flags.restart;
  options.restart.max_retries = flags.restart_retries;
  options.restart.interval = std::chrono::seconds(flags.restart_interval_seconds);
  options.restart.timeout = std::chrono::seconds(flags.restart_timeout_seconds);
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
  return ok ? 0 : 1;
}
