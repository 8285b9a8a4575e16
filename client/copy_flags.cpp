#include "client/copy_flags.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <utility>

#include <unistd.h>

#include "client/data/data_security_plan.hpp"
#include "client/size_argument.hpp"
#include "client/transfer/transfer_plan.hpp"
#include "protocol/control/net_stack.hpp"
#include "security/digest.hpp"

namespace gridftp::client {
namespace {

// Each step below returns the message that refuses the flags, or an empty string.

// Reads one size flag, when given; `name` is how the message names it.
std::string read_size(const std::string& text, const char* name,
                      std::optional<std::uint64_t>& out) {
  if (text.empty()) return {};
  out = parse_size_argument(text);
  if (out) return {};
  return "bad " + std::string(name) + " '" + text + "' (bytes, or with K, M or G: 4M)";
}

// -tcp-bs, -bs, -off and -len, each in bytes or with K, M or G as globus-url-copy takes them.
std::string read_sizes(const CopyFlags& flags, CopyOptions& options) {
  std::optional<std::uint64_t> tcp_buffer;
  std::optional<std::uint64_t> block;
  for (auto error : {read_size(flags.tcp_buffer_size, "-tcp-bs", tcp_buffer),
                     read_size(flags.block_size, "-bs", block),
                     read_size(flags.partial_offset, "-off", options.transfer.range.offset),
                     read_size(flags.partial_length, "-len", options.transfer.range.length)}) {
    if (!error.empty()) return error;
  }
  // SO_SNDBUF and SO_RCVBUF take an int.
  constexpr std::uint64_t kLargestSocketBuffer = 0x7fffffff;
  if (tcp_buffer && (*tcp_buffer == 0 || *tcp_buffer > kLargestSocketBuffer)) {
    return "bad -tcp-bs '" + flags.tcp_buffer_size +
           "' (from 1 byte to 2G-1: a socket buffer size is an int)";
  }
  constexpr std::uint64_t kLargestBlock = std::uint64_t{1} << 30;
  if (block && (*block == 0 || *block > kLargestBlock)) {
    return "bad -bs '" + flags.block_size + "' (from 1 byte to 1G)";
  }
  if (tcp_buffer) options.session.tcp_buffer_bytes = static_cast<std::uint32_t>(*tcp_buffer);
  if (block) options.transfer.block_size_bytes = *block;
  return {};
}

bool is_ftps(const std::string& url) { return url.starts_with("ftps://"); }

bool uses_ftps(const std::vector<UrlPair>& pairs) {
  return std::any_of(pairs.begin(), pairs.end(), [](const UrlPair& pair) {
    return is_ftps(pair.source) || is_ftps(pair.dest);
  });
}

// gridcp copies file:// to file:// whole; globus-url-copy's -off/-len there would be lost.
bool has_partial_local_copy(const CopyFlags& flags, const std::vector<UrlPair>& pairs) {
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

// The FTPS trust flags and the kinds of copy gridcp cannot make, against the pairs.
std::string check_against_pairs(const CopyFlags& flags, const std::vector<UrlPair>& pairs,
                                std::vector<std::string>& warnings) {
  if (!flags.ftps_ca.empty() && flags.ftps_insecure) {
    return "--ftps-ca and --ftps-insecure exclude each other";
  }
  if (!flags.ftps_ca.empty() && ::access(flags.ftps_ca.c_str(), R_OK) != 0) {
    return "cannot read --ftps-ca " + flags.ftps_ca;
  }
  if (flags.ftps_insecure && !flags.quiet && (uses_ftps(pairs) || is_ftps(flags.list_url))) {
    warnings.emplace_back("--ftps-insecure: the server's certificate is not checked");
  }
  if (has_partial_local_copy(flags, pairs)) {
    return "-off and -len apply to copies to or from a server; file:// to file:// copies are "
           "whole files";
  }
  if (has_ftps_third_party(pairs)) {
    return "ftps:// copies go between a server and local files; third-party FTPS needs SSCN (RFC "
           "4217), which the servers do not offer";
  }
  return {};
}

std::string read_checksum_algorithm(const CopyFlags& flags, CopyOptions& options) {
  if (!flags.verify_checksum) return {};
  auto algorithm = security::parse_digest_algorithm(flags.checksum_algorithm);
  if (!algorithm) return "unknown checksum algorithm " + flags.checksum_algorithm;
  options.transfer.verify_checksum = *algorithm;
  return {};
}

// -nodcau, -dcsafe and -dcpriv as one level; PROT S/P need DCAU, so they exclude -nodcau.
std::string read_data_security_level(const CopyFlags& flags, CopyOptions& options) {
  if (flags.no_dcau && (flags.data_safe || flags.data_private)) {
    return "-nodcau cannot be combined with -dcsafe or -dcpriv";
  }
  DataSecurityLevel level;
  level.authenticate = !flags.no_dcau;
  if (flags.data_private) {
    level.protection = security::DataProtection::Private;
  } else if (flags.data_safe) {
    level.protection = security::DataProtection::Safe;
  }
  options.transfer.data_security = level;
  return {};
}

// -udp with its rates, checked here so a bad rate is refused before any connection.
std::string read_udpx_request(const CopyFlags& flags, CopyOptions& options) {
  if (!flags.udp) {
    if (!flags.rate.empty() || !flags.min_rate.empty() || !flags.policy.empty() ||
        flags.udp_unauthenticated) {
      return "--rate, --min-rate, --policy and --udp-unauthenticated go with -udp";
    }
    return {};
  }
  if (flags.parallel || flags.fast) {
    return "-udp cannot be combined with -p or -fast (UDPX is one flow)";
  }
  if (flags.no_dcau && !flags.udp_unauthenticated) {
    return "-udp -nodcau has no authenticated key; add --udp-unauthenticated to accept keys "
           "nobody authenticated";
  }
  UdpxRequest request;
  request.unauthenticated = flags.udp_unauthenticated;
  for (auto [text, slot] :
       {std::pair{&flags.rate, &request.rate_bps}, std::pair{&flags.min_rate, &request.min_bps}}) {
    if (text->empty()) continue;
    auto rate = protocol::control::parse_rate(*text);
    if (!rate || *rate == 0) return "bad rate '" + *text + "' (bit/s, e.g. 500M)";
    *slot = *rate;
  }
  if (!flags.policy.empty()) request.policy = flags.policy;
  options.transfer.udpx = request;
  return {};
}

// -stripe and -sbs: MODE E to a striped receiver. -sbs alone implies -stripe, as in
// globus-url-copy, where any layout makes it ask SPAS.
std::string read_stripe_request(const CopyFlags& flags, CopyOptions& options) {
  if (!flags.stripe && flags.striped_block_size.empty()) return {};
  if (flags.udp) return "-stripe cannot be combined with -udp (UDPX is one flow)";
  if (flags.pipelining) return "-stripe cannot be combined with -pp";
  StripeRequest request;
  if (!flags.striped_block_size.empty()) {
    auto size = parse_size_argument(flags.striped_block_size);
    if (!size) {
      return "bad -sbs '" + flags.striped_block_size +
             "' (0 for Partitioned, or a block size in bytes or with K, M, G)";
    }
    request.layout =
        *size == 0
            ? protocol::mode_e::StripeLayout{protocol::mode_e::StripeLayout::Kind::Partitioned, 0}
            : protocol::mode_e::StripeLayout{protocol::mode_e::StripeLayout::Kind::Blocked, *size};
  }
  options.transfer.stripe = request;
  // Striping is MODE E; file by file, so that each file's STOR gets its own SPAS.
  if (!options.transfer.parallelism) options.transfer.parallelism = 1;
  options.batch = false;
  return {};
}

std::string check_credential(const CopyFlags& flags) {
  if (flags.credential.empty() || ::access(flags.credential.c_str(), R_OK) == 0) return {};
  return "cannot read -cred " + flags.credential;
}

// The options that are the flags as they are, or chosen between them; nothing here can fail.
void copy_plain_options(const CopyFlags& flags, CopyOptions& options) {
  // guc -help: "-fast ... Use MODE E for all data transfers"; -p already means MODE E.
  options.transfer.parallelism =
      flags.parallel ? flags.parallel : (flags.fast ? std::optional<unsigned>(1) : std::nullopt);
  options.create_dest = flags.create_dest;
  options.recursive = flags.recursive;
  options.session.data_timeout = flags.stall_timeout_seconds == 0
                                     ? kNoStallTimeout
                                     : std::chrono::seconds(flags.stall_timeout_seconds);
  options.session.ftps_trust = {flags.ftps_ca, !flags.ftps_insecure};
  options.session.source_subject =
      flags.source_subject.empty() ? flags.subject : flags.source_subject;
  options.session.dest_subject = flags.dest_subject.empty() ? flags.subject : flags.dest_subject;
  options.concurrency = flags.concurrency;
  options.pipelining = flags.pipelining;
  options.batch = !flags.no_batch;
  options.sync = {flags.sync, flags.sync_level};
  options.restart.enabled = flags.restart;
  options.restart.max_retries = flags.restart_retries;
  options.restart.interval = std::chrono::seconds(flags.restart_interval_seconds);
  options.restart.timeout = std::chrono::seconds(flags.restart_timeout_seconds);
}

}  // namespace

CollectedPairs collect_pairs(const CopyFlags& flags) {
  CollectedPairs out;
  if (flags.urls.size() == 2) {
    out.pairs.push_back(UrlPair{flags.urls[0], flags.urls[1]});
  } else if (!flags.urls.empty()) {
    out.error = "expected a source URL and a destination URL";
    return out;
  }
  if (flags.url_file.empty()) return out;
  std::ifstream in(flags.url_file);
  if (!in) {
    out.error = "cannot read " + flags.url_file;
    return out;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::size_t bad_line = 0;
  auto from_file = parse_url_pairs(text.str(), bad_line);
  if (!from_file) {
    out.error =
        flags.url_file + ':' + std::to_string(bad_line) + ": expected 'source-url dest-url'";
    return out;
  }
  out.pairs.insert(out.pairs.end(), from_file->begin(), from_file->end());
  return out;
}

CopyOptionsFromFlags copy_options_from(const CopyFlags& flags, const std::vector<UrlPair>& pairs) {
  CopyOptionsFromFlags out;
  out.error = check_against_pairs(flags, pairs, out.warnings);
  // gridcp's order of checks: the message is the first problem's.
  for (auto* read :
       {read_checksum_algorithm, read_data_security_level, read_udpx_request, read_sizes}) {
    if (out.error.empty()) out.error = read(flags, out.options);
  }
  if (out.error.empty()) out.error = check_credential(flags);
  if (out.error.empty()) copy_plain_options(flags, out.options);
  if (out.error.empty()) out.error = read_stripe_request(flags, out.options);
  return out;
}

}  // namespace gridftp::client
