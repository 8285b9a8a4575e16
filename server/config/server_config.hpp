// gridftpd's configuration: one struct per TOML table, member initializers are the defaults
// (conf/gridftpd.toml documents each key). Immutable after load_config(); modules get their part.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transport/sendfile_use.hpp"

namespace gridftp::server {

struct ListenConfig {
  std::string control_interface = "127.0.0.1";
  std::uint16_t port = 2811;
  std::string data_interface;
  // The address PASV and SPAS name instead of the one the listener is bound to, for a host
  // reached through address translation (a NAT, a Kubernetes Service's external address:
  // docs/DEPLOY.md); empty names the bound address.
  std::string passive_address;
  std::uint16_t passive_port_min = 0;
  std::uint16_t passive_port_max = 0;
  // Local ports of data connections this server opens (active mode, third-party); 0 = any.
  std::uint16_t source_port_min = 0;
  std::uint16_t source_port_max = 0;
  bool require_data_peer_match = false;
  // Default SO_SNDBUF/SO_RCVBUF of data sockets until a client sends SBUF; 0 = kernel autotuning.
  std::uint32_t data_socket_buffer = 0;
};

struct ServerSection {
  unsigned threads = 0;
  std::string banner = "gridftpd ready.";  // a line break starts another line of the 220
  // Lines added to the 230 reply of every login (Globus's login_msg); empty: none.
  std::string login_message;
  bool create_missing_roots = true;
  // Globus's restrict_paths (docs/GLOBUS.md §3): "R/data,RW/data/incoming,N/data/private";
  // empty: no restriction beyond roots, writable areas and the kernel.
  std::string restrict_paths;
  // After login a user starts in their home directory (the account's, from the system) when
  // their root is the real "/", as Globus does; `home_dir` names one for everybody instead.
  bool use_home_dirs = true;
  std::string home_dir;
  // Verbs answered "500 Command not supported." as if unknown (Globus's disable_command_list).
  std::vector<std::string> disabled_commands;
  // A partial upload kept for a restart (a failed MODE E put) is removed once it has not been
  // written for this long, by the next upload into its directory; 0 keeps it for good.
  unsigned partial_expiry_seconds = 7 * 24 * 3600;
};

struct LimitsConfig {
  unsigned max_sessions = 1000;
  unsigned max_sessions_per_user = 100;
  unsigned max_sessions_per_address = 100;  // control connections from one address; 0 = no limit
  unsigned login_failure_delay_ms = 1000;   // before the 530 of a refused password
  unsigned max_login_failures = 3;          // refused passwords before the session is closed
  std::size_t max_command_line_bytes = 4096;
};

struct TimeoutsConfig {
  unsigned idle_seconds = 900;
  unsigned data_seconds = 120;
  unsigned login_seconds = 120;
  unsigned shutdown_grace_seconds = 5;
};

struct AnonymousConfig {
  bool enabled = false;
  std::filesystem::path root;
  std::vector<std::string> writable;
  // The account anonymous sessions run as; empty: the server's own. Started as root, each
  // session is a process that becomes this account after login (Globus's anonymous_user).
  std::string account;
};

struct AccountsConfig {
  std::filesystem::path password_file;
  // The system account local users' sessions run as when the server runs as root (vsftpd's
  // guest_username); start-up refuses local accounts as root without one.
  std::string account;
};

// GSI (gsiftp://): X.509 host credential, trusted CAs, gridmap; mapped users see `root`.
struct GsiConfig {
  bool enabled = false;
  // The config named no `enabled`: on when the host credential is found, as with Globus
  // (server/config/globus_environment, docs/GLOBUS.md §4).
  bool enabled_unset = true;
  std::filesystem::path host_cert = "/etc/grid-security/hostcert.pem";
  std::filesystem::path host_key = "/etc/grid-security/hostkey.pem";
  std::filesystem::path cert_dir = "/etc/grid-security/certificates";
  std::filesystem::path gridmap = "/etc/grid-security/grid-mapfile";
  std::filesystem::path root;  // "%u" is replaced by the mapped account name
  // PROT S capped at TLS 1.2 with NULL-cipher suites: integrity without encryption.
  bool integrity_only_safe = false;
  // When started as root: a process per session that becomes the mapped account after login.
  bool process_per_session = true;
  // Session processes forked by a fork server that loaded config and credentials once (less
  // memory per session); off: each exec'd afresh, with an address-space layout of its own.
  bool fork_server = true;
  // The key of credentials clients delegate to us: "ec-p256" (fast handshakes on every DCAU data
  // connection) or "rsa" (as large as the client's own key, as Globus makes them).
  std::string delegation_key = "ec-p256";
};

// FTPS (RFC 4217: AUTH TLS) for standard clients. No cert/key: a self-signed certificate is
// made at start-up (the demo's case).
struct TlsConfig {
  bool enabled = false;
  std::filesystem::path cert;
  std::filesystem::path key;
  bool required = false;  // refuse logins that did not AUTH TLS first (or GSI)
};

struct LoggingConfig {
  std::string level = "info";
  std::filesystem::path server_log;
  std::filesystem::path transfer_log;
  // "json": one JSON object per transfer (docs/ARCHITECTURE.md); "netlogger": Globus's
  // `DATE=... NL.EVNT=FTP_INFO ...` line (server/logging/netlogger_line.hpp).
  std::string transfer_log_format = "json";
};

// The UDPX data channel (docs/UDPX.md §8): rates in bit/s.
struct UdpxConfig {
  std::uint64_t default_rate_bps = 1'000'000'000;  // a client that names no rate gets this
  std::uint64_t max_rate_bps = 0;                  // per transfer; 0: no cap
  std::uint64_t aggregate_rate_bps = 0;  // all UDPX transfers together, shared evenly; 0: none
  unsigned idle_timeout_seconds = 30;    // no packet from the peer: 426
  // UDPX on sessions without DCAU (ftp://, DCAU N): keys from an unauthenticated TLS exchange
  // that stops eavesdroppers but not a man in the middle (docs/UDPX.md §4.1). Off: 536.
  bool allow_unauthenticated = false;

  // The rate a transfer is given: what the client asked (or the default), held to the cap.
  std::uint64_t effective_rate(std::optional<std::uint64_t> asked) const {
    const auto rate = asked.value_or(default_rate_bps);
    return max_rate_bps > 0 ? std::min(rate, max_rate_bps) : rate;
  }
};

// The Prometheus scrape endpoint (docs/METRICS.md): off by default; a local address.
struct MetricsConfig {
  bool enabled = false;
  std::string address = "127.0.0.1";
  std::uint16_t port = 9464;
};

// How uploads reach the disk and what is kept with a file (docs/STORAGE.md).
struct StorageConfig {
  // The final reply of an upload waits until the file's data and its name are on stable storage,
  // and each 111 restart marker names only ranges already there (Globus's -sync-writes, plus
  // the durable final reply). Off by default, as Globus: it costs an fdatasync of every file.
  bool durable = false;
  // MODE E blocks this server sends, and the unit it reads a file in (Globus's -bs and its
  // default: globus-url-copy receives 256 KiB blocks faster than 1 MiB ones, docs/STORAGE.md).
  std::uint64_t block_bytes = 256U << 10;
  // When a regular file goes out with sendfile(2), stream mode and MODE E alike: "other-hosts"
  // (a peer on this host gets a copying send, transport::SendfileUse), "always" or "never".
  std::string sendfile = "other-hosts";
  // Digests computed while a file is received (CKSM names: ADLER32, MD5, SHA1, SHA256, SHA512,
  // CRC32C) and stored with it, so CKSM answers without reading the file again.
  std::vector<std::string> checksums{"ADLER32"};
};

// Transfers striped across data movers (docs/STRIPING.md): a frontend owns the control channel
// and hands each stripe to a mover; a mover moves bytes only for the frontends it trusts.
struct StripingConfig {
  // Frontend: the movers, "host:port" each (Globus's -r); a host name that resolves to several
  // addresses (a Kubernetes headless Service) names one mover per address. Empty: no striping
  // across hosts, this server moves its own data.
  std::vector<std::string> movers;
  // Mover (Globus's -dn): the listen port takes only mutually authenticated TLS connections
  // from a frontend, never a client's control connection.
  bool mover = false;
  // The certificate subjects a mover accepts as its frontends; empty: its own host
  // certificate's subject (frontend and movers sharing one host certificate).
  std::vector<std::string> frontends;
  // Frontend: false (Globus's default), its unstriped transfers (PASV, PORT, EPRT) run on one
  // mover per session too, sessions taking the movers in turn; true (Globus's -hybrid), it
  // moves those itself.
  bool hybrid = false;
};

struct ServerConfig {
  ListenConfig listen;
  ServerSection server;
  LimitsConfig limits;
  TimeoutsConfig timeouts;
  AnonymousConfig anonymous;
  AccountsConfig accounts;
  GsiConfig gsi;
  TlsConfig tls;
  LoggingConfig logging;
  UdpxConfig udpx;
  MetricsConfig metrics;
  StorageConfig storage;
  StripingConfig striping;
};

// Outcome of loading: the config, or every problem found, each naming the key and its line.
struct ConfigLoad {
  ServerConfig config;
  std::vector<std::string> problems;
  bool ok() const { return problems.empty(); }
};

// Parses TOML text (`source_name` appears in messages). Unknown keys and wrong types are problems.
ConfigLoad parse_config(std::string_view toml_text, std::string_view source_name);
// The config as TOML, every key of every table: `gridftpd --print-config`. parse_config() of the
// text gives the same config back.
std::string format_config(const ServerConfig& config);
// Checks values that are well-typed but unusable (port ranges, missing roots, ...).
std::vector<std::string> validate(const ServerConfig& config);

// [storage] sendfile, once validate() accepted it.
transport::SendfileUse sendfile_use(const StorageConfig& storage);

}  // namespace gridftp::server
