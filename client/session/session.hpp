// A logged-in FTP session with one server: greeting, login (anonymous, or GSI for gsiftp://),
// FEAT, and the per-command steps a transfer is made of (docs/WIRE.md §1.2, §1.5, §3, §5.6).
// Transfers themselves are in transfer.cpp; this file does not touch data bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/auth/gsi_credentials.hpp"
#include "client/data/data_connection.hpp"
#include "client/data/data_security_plan.hpp"
#include "client/session/control_connection.hpp"
#include "client/transfer/transfer_plan.hpp"
#include "client/url.hpp"
#include "protocol/control/passive_reply.hpp"
#include "protocol/control/striped_passive_reply.hpp"
#include "protocol/listing/listing_entry.hpp"
#include "security/tls_contexts.hpp"

namespace gridftp::client {

struct SessionOptions {
  Clock::duration command_timeout = std::chrono::seconds(60);
  // Bounds each data read/write; a transfer that makes no progress this long fails.
  Clock::duration data_timeout = std::chrono::seconds(120);
  // Bounds the wait for a transfer's final reply when we cannot watch the data ourselves
  // (third-party): the source sends no markers in stream mode (docs/WIRE.md §1.6.3).
  Clock::duration transfer_reply_timeout = std::chrono::hours(2);
  // globus-url-copy sends "globus@"; any address-like string is accepted by servers.
  std::string anonymous_password = "gridcp@";
  // -tcp-bs: TCP buffer size of every data connection, ours and (SBUF) the servers'; 0 leaves
  // the kernels' autotuning alone.
  std::uint32_t tcp_buffer_bytes = 0;
  // ftps://: which CAs vouch for the server (--ftps-ca), or no check at all (--ftps-insecure).
  security::FtpsTrust ftps_trust;
  // gsiftp:// -ss and -ds (-s: both): the certificate subject the source's and the destination's
  // server must carry instead of a certificate for the URL's host; empty: check the host.
  std::string source_subject;
  std::string dest_subject;
};

class GsiControlChannel;
class FtpsControlChannel;

class Session {
 public:
  // Opens the control connection; `label` prefixes its dialogue and messages. gsiftp:// URLs
  // need `gsi`, the user's credentials. Errors: connection errors, Errc::BadArgument for a
  // scheme that is not ftp://, ftps:// or gsiftp:// and for gsiftp:// without credentials.
  static Result<std::unique_ptr<Session>> connect(transport::asio::io_context& io, const Url& url,
                                                  const std::string& label,
                                                  const SessionOptions& options,
                                                  const std::shared_ptr<spdlog::logger>& log,
                                                  std::shared_ptr<const GsiCredentials> gsi = {});
  // Reads the greeting, logs in and asks FEAT. ftp://: anonymous unless the URL names a user.
  // gsiftp://: AUTH GSSAPI with delegation, then `USER :globus-mapping:` (or the URL's user)
  // and an empty PASS, protected (docs/WIRE.md §1.2). Errors: connection errors, Errc::BadReply,
  // Errc::NotLoggedIn or rejected_reply_error() with the reply in control().last_failure(),
  // those of authenticate_gsi() with more in login_failure_detail().
  // `expected_subject`, when not empty, replaces the URL's host in the GSI certificate check.
  // On a pipelined (gsiftp://) session this returns once our last GSI token and the login have
  // been sent: a refused ADAT, USER or PASS fails the session's next read instead, the same way.
  Result<void> log_in(const Url& url, const std::string& expected_subject = {});
  // Why the GSI exchange failed beyond its code (OpenSSL's reasons, a wrong host's DN).
  const std::string& login_failure_detail() const { return login_failure_detail_; }

  Session(transport::asio::io_context& io, std::unique_ptr<ControlConnection> control,
          SessionOptions options);

  bool is_gsi() const { return gsi_ != nullptr; }
  // GridFTP sessions pipeline (docs/WIRE.md §1.7): AUTH goes with the greeting, USER, PASS and
  // FEAT in one flight, and settings ride with the next command that needs an answer.
  bool pipelined() const { return gsi_ != nullptr; }
  // DCAU/PBSZ/PROT for `level` where they differ from what is in force (docs/WIRE.md §1.5); does
  // nothing on a session without GSI. Errors: rejected_reply_error() and connection errors.
  Result<void> use_data_security(const DataSecurityLevel& level);
  // How this session's next data connections are secured (disabled without GSI or with DCAU N;
  // FTPS: resuming the control connection's TLS session as it stands now). Call it on the
  // control connection's thread.
  DataChannelSecurity data_channel_security() const;

  // True if FEAT listed `name` as a feature (first word of a line, case-insensitive). On a
  // pipelined session the first call reads the login flight's replies.
  bool has_feature(std::string_view name);
  // TYPE I, once per session.
  Result<void> use_binary_type();
  // MODE E or MODE S, sent only when it changes (a new session is in MODE S and gets no MODE S).
  // Returns whether MODE E is now in force: a server without it (vsftpd and most FTP servers)
  // refuses MODE E with a 5xx, and the session then stays in stream mode, says so once on the
  // log (warning) and is not asked again. Errors: connection errors; rejected_reply_error() for
  // a refused MODE S or a MODE E refused other than with 500-504.
  Result<bool> use_extended_block_mode(bool extended);
  // -tcp-bs: SBUF <n>, or SITE RETRBUFSIZE <n> where FEAT lists no SBUF, as globus-url-copy
  // sends them; once per session, nothing without -tcp-bs. Advisory: a refusal is ignored (the
  // data connections then keep the server's sizes). Errors: connection errors.
  Result<void> use_tcp_buffer();
  // TREV RESTART <seconds>, once per session: the receiver's 111 restart markers that -rst
  // resumes from, every `seconds`. gridftpd also sends them in stream mode once asked. A server
  // without TREV refuses it; that is ignored (it sends no markers). Errors: connection errors.
  Result<void> ask_restart_markers(unsigned seconds);
  // SITE SETNETSTACK <stack> ("default" or "udpx[:...]"), sent only when it changes; a new
  // session starts on "default" and sends nothing for it. Errors: rejected_reply_error().
  Result<void> use_net_stack(const std::string& stack);
  // OPTS RETR Parallelism=n,n,n; sent only when n changes (docs/WIRE.md §1.5).
  Result<void> set_parallelism(unsigned streams);
  // A striped source's OPTS RETR (retr_options_command: the layout, then Parallelism), sent only
  // when its text changes. Errors: rejected_reply_error().
  Result<void> set_retr_options(const std::string& command);
  // CKSM <alg> <offset|0> <length|-1> path → the lower-case hex digest. Errors: a refusal
  // (rejected_reply_error()), ClientErrc::ChecksumUnavailable for an unreadable 213.
  Result<std::string> checksum(security::DigestAlgorithm algorithm, const std::string& path,
                               const std::optional<PartialRange>& range);
  // Our end of the control connection: where a server can reach us for PORT/EPRT.
  std::string local_address() const { return control_->channel().local_address(); }
  // PASV, or EPSV when the control connection is IPv6 (docs/WIRE.md §3.2). An address the server
  // leaves out or gives as 0.0.0.0 becomes the control connection's peer.
  Result<protocol::control::HostPort> request_passive();
  // SPAS (GFD.20; "SPAS 2" on an IPv6 control connection): one address per stripe of the
  // server, in stripe order; addresses left out or given as 0.0.0.0 become the control peer's.
  // Errors: the server's refusal, Errc::BadHostPort for a reply that is no list of addresses.
  Result<std::vector<protocol::control::HostPort>> request_striped_passive();
  // SPOR with every stripe's address (a single one goes as PORT/EPRT, as globus-url-copy sends).
  Result<void> send_striped_port(const std::vector<protocol::control::HostPort>& stripes);
  // request_passive() and connect to it (not yet secured: see DataConnection::secure).
  Result<DataConnection> open_passive_data();
  // PORT for IPv4 addresses, EPRT otherwise (third-party source side).
  Result<void> send_port(const protocol::control::HostPort& address);
  // SIZE; nullopt when the server will not say (no SIZE feature or a 5xx).
  Result<std::optional<std::uint64_t>> size(const std::string& path);
  // SIZE of each path, the commands sent back to back and the replies read after (one round trip
  // for a -pp batch whose sizes the plan does not know). nullopt where the server gave none.
  Result<std::vector<std::optional<std::uint64_t>>> sizes(const std::vector<std::string>& paths);
  // MLST path → the entry's facts (docs/WIRE.md §1.4); nullopt when the server says it does not
  // exist (a 5xx) or has no MLST (then SIZE alone fills size_bytes). Errors: connection errors.
  Result<std::optional<protocol::listing::ListingEntry>> stat(const std::string& path);
  // MKD each missing component of `directory`, ignoring "exists" (docs/WIRE.md §1.5 `-cd`).
  Result<void> make_directories(const std::string& directory);
  // REST <argument> (expects 350), immediately before a transfer command (docs/WIRE.md §4.3).
  // Errors: rejected_reply_error() and connection errors.
  Result<void> restart_at(const std::string& argument);
  // BRST <offset> <path> (expects 350): where the next BRET resumes (docs/WIRE.md §7.4).
  Result<void> restart_batch_at(const std::string& argument);
  // On a pipelined session, PASV (EPSV on IPv6), REST when given and `command` in one flight
  // with any settings before them; the request_passive(), restart_at() and
  // send_transfer_command() that follow then read their replies instead of sending them.
  // Elsewhere nothing is sent. Errors: connection errors.
  Result<void> send_transfer_ahead(const std::optional<std::string>& rest,
                                   const std::string& command);
  // Sends a transfer command (RETR, STOR, MLSD, …) and waits for its 1xx.
  Result<ParsedReply> begin_transfer(const std::string& command);
  // The two halves of begin_transfer(), for callers that must act between them (a MODE E put
  // connects after sending STOR, as globus-url-copy does).
  Result<void> send_transfer_command(const std::string& command);
  Result<ParsedReply> expect_transfer_start();
  // Reads past 1xx markers to the final reply and requires a 2xx, waiting at most `timeout`.
  // Each preliminary reply (111/112 markers) goes to `on_marker` when given.
  using MarkerCallback = std::function<void(const ParsedReply&)>;
  Result<ParsedReply> finish_transfer(Clock::duration timeout,
                                      const MarkerCallback& on_marker = {});

  ControlConnection& control() { return *control_; }
  // Closes the control connection from inside whichever read runs on io() (posted there, never
  // beside it), which ends that read with an error: how a thread waiting on another session's
  // reply cuts this one off. Safe from any thread.
  void close_from_reader();
  const SessionOptions& options() const { return options_; }
  transport::asio::io_context& io() { return io_; }

 private:
  Result<void> read_greeting();
  Result<void> authenticate(const Url& url, const std::string& expected_subject);
  Result<void> start_ftps(const Url& url);
  Result<void> login(const Url& url);
  struct Credentials {
    std::string user;
    std::string password;
  };
  Credentials login_credentials(const Url& url) const;
  // USER, PASS and FEAT in one flight, unanswered (pipelined sessions, docs/WIRE.md §1.7).
  Result<void> send_login_ahead(const Url& url);
  Result<void> read_features();
  void take_features(const ParsedReply& reply);
  // PASV, or EPSV on an IPv6 control connection (docs/WIRE.md §3.2).
  const char* passive_command() const;
  // A setting whose reply is only yes or no. On a GridFTP (gsiftp://) session it is sent
  // unanswered, riding in one flight with the next command that needs a reply (its refusal then
  // fails that command, naming this one); elsewhere it waits for its reply.
  Result<void> send_setting(const std::string& command, int expected_class);

  transport::asio::io_context& io_;
  std::unique_ptr<ControlConnection> control_;
  SessionOptions options_;
  std::vector<std::string> features_;
  bool features_pending_ = false;  // FEAT sent unanswered, its reply not read yet
  std::string transfer_command_;   // for the failure message of finish_transfer()
  // The server's 1xx for the transfer being finished has come (a failure after it is a broken
  // transfer, worth a retry, not a refusal).
  bool transfer_began_ = false;
  bool binary_type_ = false;
  bool tcp_buffer_sent_ = false;
  bool restart_markers_asked_ = false;
  bool extended_block_mode_ = false;
  bool extended_block_mode_refused_ = false;
  unsigned parallelism_ = 0;  // 0: never sent
  std::string retr_options_;  // the last OPTS RETR sent
  std::string net_stack_ = "default";
  std::shared_ptr<const GsiCredentials> gsi_;   // null for ftp://
  GsiControlChannel* gsi_channel_ = nullptr;    // owned by control_; null for ftp://
  FtpsControlChannel* ftps_channel_ = nullptr;  // owned by control_; set for ftps://
  security::SslCtxPtr ftps_context_;            // after PROT P: the data connections' TLS
  std::string ftps_host_;
  DataSecurityState data_security_;  // GFD.20 defaults after AUTH: DCAU A, PROT C
  std::string login_failure_detail_;
};

}  // namespace gridftp::client
