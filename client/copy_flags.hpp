// gridcp's flags as main() reads them, and what they become: the URL pairs and the CopyEngine's
// options, every cross-flag rule checked. No CLI11 here (main.cpp binds the flags to these
// fields); problems come back as messages, for main to print, so that the rules are unit-tested.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "client/copy/copy_engine.hpp"
#include "client/copy/sync_decision.hpp"
#include "client/copy/url_pair_list.hpp"

namespace gridftp::client {

// Each field is the globus-url-copy flag named beside it.
struct CopyFlags {
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
  std::string tcp_buffer_size;     // -tcp-bs
  std::string block_size;          // -bs
  bool stripe = false;             // -stripe: SPAS/SPOR with a striped receiver
  std::string striped_block_size;  // -sbs: 0 Partitioned, N > 0 Blocked with N-byte blocks
  std::string partial_offset;      // -off
  std::string partial_length;      // -len
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
  unsigned sync_level = kDefaultSyncLevel;
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

// -st 0 turns the stall timeout off; the data steps take a bound, so "off" is ten years.
inline constexpr std::chrono::hours kNoStallTimeout{24 * 365 * 10};

// The pairs to copy: the two positional URLs, then those of the -f file.
struct CollectedPairs {
  std::vector<UrlPair> pairs;
  std::string error;  // empty unless refused; the message, without "gridcp: error: "
};
CollectedPairs collect_pairs(const CopyFlags& flags);

// The CopyEngine's options from the flags, checked against each other and against `pairs`; the
// observer and learn_sizes are main's (they come with the reporters). -cred is checked readable
// here, but X509_USER_PROXY is main's to set.
struct CopyOptionsFromFlags {
  CopyOptions options;
  // To print before `error` or the copy; without "gridcp: warning: ". None under -q.
  std::vector<std::string> warnings;
  std::string error;  // empty unless refused; the first problem, without "gridcp: error: "
};
CopyOptionsFromFlags copy_options_from(const CopyFlags& flags, const std::vector<UrlPair>& pairs);

}  // namespace gridftp::client
