// gridcp: copies files over FTP the way globus-url-copy does, taking its flag spellings. This
// file only turns argv into CopyEngine options and calls, and picks the exit status; per-file
// output comes from the reporters (client/report/).
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <boost/version.hpp>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <spdlog/version.h>
#include <unistd.h>

#include "client/copy/copy_engine.hpp"
#include "client/copy/url_pair_list.hpp"
#include "client/flag_spelling.hpp"
#include "client/report/reporters.hpp"
#include "client/size_argument.hpp"
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
  // Sizes stay text until parse_size_argument reads them (bytes, or with K, M, G).
  std::string tcp_buffer_size;  // -tcp-bs
  std::string block_size;       // -bs
  std::string partial_offset;   // -off
  std::string partial_length;   // -len
  bool verify_checksum = false;
  std::string checksum_algorithm = "MD5";
  unsigned stall_timeout_seconds = 600;  // -st; 0: no stall timeout
  bool no_dcau = false;                  // -nodcau: DCAU N
  bool data_safe = false;                // -dcsafe: PROT S
  bool data_private = false;             // -dcpriv: PROT P
  bool udp = false;                      // -udp: the UDPX data channel
  bool udp_unauthenticated = false;      // UDPX without DCAU, keys nobody authenticated
  std::string rate;                      // --rate, bit/s with k/M/G
  std::string min_rate;                  // --min-rate
  std::string policy;                    // --policy
  unsigned concurrency = 1;              // -cc
  bool pipelining = false;               // -pp
  bool no_batch = false;                 // -no-batch
  bool sync = false;                     // -sync
  unsigned sync_level = gridftp::client::kDefaultSyncLevel;
  bool restart = false;  // -rst
  unsigned restart_retries = 5;
  unsigned restart_interval_seconds = 0;
  unsigned restart_timeout_seconds = 0;
  bool continue_on_error = false;  // -c: always the case in gridcp
  bool binary = false;             // -b: always the case in gridcp
  bool ipv6 = false;               // -ipv6: always the case in gridcp
  bool no_gridftp2 = false;        // -no-g2: gridcp sends no GridFTP v2 commands anyway
  std::string subject;             // -s: expected GSI subject of both servers
  std::string source_subject;      // -ss
  std::string dest_subject;        // -ds
  std::string credential;          // -cred: proxy file, as X509_USER_PROXY
  bool versions = false;           // -versions
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
               "Go on with the other files after a failed one, list the failures and exit 1 "
               "(gridcp always does)");
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
  app.add_flag("--vb,--verbose-perf", flags.verbose_bytes,
               "Print bytes and rate after each transfer");
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
                 "MODE E block size for the blocks gridcp sends, in bytes or with K, M, G "
                 "(default 1M, at most 1G)");
  app.add_option("--off,--partial-offset", flags.partial_offset,
                 "Transfer only from this offset, in bytes or with K, M, G (ERET/ESTO)");
  app.add_option("--len,--partial-length", flags.partial_length,
                 "Transfer only this many bytes, or with K, M, G (ERET/ESTO)");
  app.add_flag("--verify-checksum", flags.verify_checksum,
               "Compare source and destination checksums after each file");
  app.add_option("--checksum-alg", flags.checksum_algorithm,
                 "Checksum algorithm for -verify-checksum: MD5 (default), ADLER32, SHA1, SHA256, "
                 "SHA512, CRC32C");
  app.add_option("--st,--stall-timeout", flags.stall_timeout_seconds,
                 "Fail a transfer that makes no progress for this many seconds (default 600; "
                 "0: never)");
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
  add_engine_flags(app, flags);
  app.add_option("urls", flags.urls, "source URL and destination URL");
}

// -st 0 turns the stall timeout off; the data steps take a bound, so "off" is ten years.
constexpr std::chrono::hours kNoStallTimeout{24 * 365 * 10};

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

// Reads one size flag; `name` is how the error names it.
bool read_size(const std::string& text, const char* name, std::optional<std::uint64_t>& out) {
  if (text.empty()) return true;
  out = gridftp::client::parse_size_argument(text);
  if (!out) {
    std::cerr << "gridcp: error: bad " << name << " '" << text
              << "' (bytes, or with K, M or G: 4M)\n";
  }
  return out.has_value();
}

// -tcp-bs, -bs, -off and -len, each in bytes or with K, M or G as globus-url-copy takes them.
bool read_sizes(const Flags& flags, gridftp::client::CopyOptions& options) {
  std::optional<std::uint64_t> tcp_buffer;
  std::optional<std::uint64_t> block;
  if (!read_size(flags.tcp_buffer_size, "-tcp-bs", tcp_buffer) ||
      !read_size(flags.block_size, "-bs", block) ||
      !read_size(flags.partial_offset, "-off", options.transfer.range.offset) ||
      !read_size(flags.partial_length, "-len", options.transfer.range.length)) {
    return false;
  }
  // SO_SNDBUF and SO_RCVBUF take an int.
  constexpr std::uint64_t kLargestSocketBuffer = 0x7fffffff;
  if (tcp_buffer && (*tcp_buffer == 0 || *tcp_buffer > kLargestSocketBuffer)) {
    std::cerr << "gridcp: error: bad -tcp-bs '" << flags.tcp_buffer_size
              << "' (from 1 byte to 2G-1: a socket buffer size is an int)\n";
    return false;
  }
  constexpr std::uint64_t kLargestBlock = std::uint64_t{1} << 30;
  if (block && (*block == 0 || *block > kLargestBlock)) {
    std::cerr << "gridcp: error: bad -bs '" << flags.block_size << "' (from 1 byte to 1G)\n";
    return false;
  }
  if (tcp_buffer) options.session.tcp_buffer_bytes = static_cast<std::uint32_t>(*tcp_buffer);
  if (block) options.transfer.block_size_bytes = *block;
  return true;
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

// gridcp copies file:// to file:// whole; globus-url-copy's -off/-len there would be lost.
bool has_partial_local_copy(const Flags& flags, const std::vector<UrlPair>& pairs) {
  const bool partial = !flags.partial_offset.empty() || !flags.partial_length.empty();
  return partial && std::any_of(pairs.begin(), pairs.end(), [](const UrlPair& pair) {
           return pair.source.starts_with("file:") && pair.dest.starts_with("file:");
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
  // sendfile(2) has no MSG_NOSIGNAL: a data peer that hangs up must fail the send (EPIPE, and
  // a -rst retry), not kill gridcp.
  std::signal(SIGPIPE, SIG_IGN);
  std::vector<std::string_view> raw(argv, argv + argc);
  auto spelled = gridftp::client::spell_flags(raw);
  if (!spelled.error.empty()) {
    std::cerr << "gridcp: error: " << spelled.error << '\n';
    return 1;
  }
  std::vector<char*> normalized_argv;
  for (auto& argument : spelled.arguments) {
    normalized_argv.push_back(argument.data());
  }
  CLI::App app{
      "gridcp: copy files between ftp://, ftps://, gsiftp:// and file:// URLs "
      "(globus-url-copy flags)",
      "gridcp"};
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
  Flags flags;
  add_flags(app, flags);
  CLI11_PARSE(app, static_cast<int>(normalized_argv.size()), normalized_argv.data());
  if (flags.versions) {
    print_versions();
    return 0;
  }

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
  if (has_partial_local_copy(flags, pairs)) {
    std::cerr << "gridcp: error: -off and -len apply to copies to or from a server; file:// to "
                 "file:// copies are whole files\n";
    return 1;
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
  if (!read_sizes(flags, options)) {
    return 1;
  }
  options.create_dest = flags.create_dest;
  options.recursive = flags.recursive;
  options.session.data_timeout = flags.stall_timeout_seconds == 0
                                     ? kNoStallTimeout
                                     : std::chrono::seconds(flags.stall_timeout_seconds);
  options.session.ftps_trust = {flags.ftps_ca, !flags.ftps_insecure};
  options.session.source_subject =
      flags.source_subject.empty() ? flags.subject : flags.source_subject;
  options.session.dest_subject = flags.dest_subject.empty() ? flags.subject : flags.dest_subject;
  if (!flags.credential.empty()) {
    if (::access(flags.credential.c_str(), R_OK) != 0) {
      std::cerr << "gridcp: error: cannot read -cred " << flags.credential << '\n';
      return 1;
    }
    // GsiCredentials reads the proxy named here, as globus-url-copy's -cred does.
    ::setenv("X509_USER_PROXY", flags.credential.c_str(), 1);
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
