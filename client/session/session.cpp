#include "client/session/session.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

#include "client/auth/ftps_control_channel.hpp"
#include "client/auth/gsi_authentication.hpp"
#include "client/auth/gsi_control_channel.hpp"
#include "client/session/tcp_control_channel.hpp"
#include "protocol/core/errors.hpp"
#include "security/tls_contexts.hpp"

namespace gridftp::client {
namespace {

constexpr int kPositiveCompletion = 2;
constexpr int kPositiveIntermediate = 3;
// RFC 959 §4.2: "120 Service ready in nnn minutes" precedes the real greeting.
constexpr int kServiceReadySoon = 120;
constexpr int kSizeReply = 213;
// Replies that mean "the directory is already there": Globus says 553 (docs/WIRE.md §1.1); other
// servers say 550 or 521 (RFC 959 allows both for MKD).
constexpr std::array kDirectoryExistsCodes{521, 550, 553};
// The Globus client asks the gridmap for the DN's default account (docs/WIRE.md §1.2, §5.5).
constexpr const char* kGsiMappedUser = ":globus-mapping:";

char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return to_lower(x) == to_lower(y);
         });
}

std::optional<std::uint64_t> size_in(const ParsedReply& reply) {
  std::uint64_t bytes = 0;
  const auto text = reply.first_text();
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
  if (reply.code != kSizeReply || ec != std::errc{} || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return bytes;
}

std::string_view first_word(std::string_view line) {
  const auto start = line.find_first_not_of(' ');
  if (start == std::string_view::npos) {
    return {};
  }
  line.remove_prefix(start);
  return line.substr(0, line.find(' '));
}

// "/a/b/c/" → {"/a/", "/a/b/", "/a/b/c/"}, the order globus-url-copy walks in.
std::vector<std::string> directory_prefixes(const std::string& directory) {
  std::vector<std::string> out;
  for (std::size_t slash = directory.find('/', 1); slash != std::string::npos;
       slash = directory.find('/', slash + 1)) {
    out.push_back(directory.substr(0, slash + 1));
  }
  if (!directory.empty() && directory.back() != '/') {
    out.push_back(directory + '/');
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<Session>> Session::connect(transport::asio::io_context& io, const Url& url,
                                                  const std::string& label,
                                                  const SessionOptions& options,
                                                  std::shared_ptr<spdlog::logger> log,
                                                  std::shared_ptr<const GsiCredentials> gsi) {
  const bool wants_gsi = url.scheme == Scheme::GsiFtp;
  const bool wants_ftps = url.scheme == Scheme::Ftps;
  if ((url.scheme != Scheme::Ftp && !wants_gsi && !wants_ftps) || (wants_gsi && !gsi)) {
    return make_error(make_error_code(protocol::Errc::BadArgument));
  }
  auto tcp = TcpControlChannel::connect(io, url.host, url.port, options.command_timeout);
  if (!tcp) {
    return make_error(tcp.error());
  }
  std::unique_ptr<ControlChannel> channel;
  GsiControlChannel* gsi_channel = nullptr;
  FtpsControlChannel* ftps_channel = nullptr;
  if (wants_gsi) {
    auto wrapped = std::make_unique<GsiControlChannel>(std::move(*tcp));
    gsi_channel = wrapped.get();
    channel = std::move(wrapped);
  } else if (wants_ftps) {
    auto wrapped = std::make_unique<FtpsControlChannel>(std::move(*tcp));
    ftps_channel = wrapped.get();
    channel = std::move(wrapped);
  } else {
    channel = std::move(*tcp);
  }
  auto control = std::make_unique<ControlConnection>(std::move(channel), label, log);
  control->set_command_timeout(options.command_timeout);
  auto session = std::make_unique<Session>(io, std::move(control), options);
  session->gsi_ = wants_gsi ? std::move(gsi) : nullptr;
  session->gsi_channel_ = gsi_channel;
  session->ftps_channel_ = ftps_channel;
  return session;
}

Result<void> Session::log_in(const Url& url) {
  if (auto greeted = read_greeting(); !greeted) {
    return greeted;
  }
  if (auto authenticated = authenticate(url); !authenticated) {
    return authenticated;
  }
  if (auto logged_in = login(url); !logged_in) {
    return logged_in;
  }
  return read_features();
}

Session::Session(transport::asio::io_context& io, std::unique_ptr<ControlConnection> control,
                 SessionOptions options)
    : io_(io), control_(std::move(control)), options_(std::move(options)) {}

Result<void> Session::read_greeting() {
  auto greeting = control_->read_reply(options_.command_timeout);
  while (greeting && greeting->code == kServiceReadySoon) {
    greeting = control_->read_reply(options_.command_timeout);
  }
  if (!greeting) {
    return make_error(greeting.error());
  }
  if (greeting->code / 100 != kPositiveCompletion) {
    control_->note_failure("(greeting)", *greeting);
    return make_error(rejected_reply_error());
  }
  return {};
}

Result<void> Session::authenticate(const Url& url) {
  if (ftps_channel_ != nullptr) {
    return start_ftps(url);
  }
  if (!gsi_) {
    return {};
  }
  auto engine = authenticate_gsi(*control_, *gsi_, url.host, login_failure_detail_);
  if (!engine) {
    return make_error(engine.error());
  }
  gsi_channel_->start_protection(std::move(*engine));
  return {};
}

// RFC 4217: AUTH TLS (234), the TLS handshake on the control connection, then PBSZ 0 and PROT P
// so every data connection is TLS too. A server without AUTH TLS gets no plaintext login.
Result<void> Session::start_ftps(const Url& url) {
  if (auto accepted = control_->command_expecting("AUTH TLS", kPositiveCompletion); !accepted) {
    login_failure_detail_ = "the server does not offer FTPS (AUTH TLS); nothing was sent in clear";
    return make_error(accepted.error());
  }
  auto context = security::make_ftps_client_context();
  if (!context) {
    return make_error(context.error());
  }
  auto engine = security::TlsEngine::create(context->get(), security::TlsEngine::Role::Client);
  if (!engine) {
    return make_error(engine.error());
  }
  if (auto named = engine->expect_host(url.host); !named) {
    return named;
  }
  if (auto secured = ftps_channel_->start_tls(std::move(*engine), options_.command_timeout);
      !secured) {
    login_failure_detail_ =
        "TLS with " + url.origin() + " failed: " + ftps_channel_->handshake_detail();
    return secured;
  }
  for (const char* command : {"PBSZ 0", "PROT P"}) {
    if (auto set = control_->command_expecting(command, kPositiveCompletion); !set) {
      return make_error(set.error());
    }
  }
  ftps_data_ = std::make_shared<FtpsDataTls>(FtpsDataTls{std::move(*context), url.host});
  return {};
}

Result<void> Session::login(const Url& url) {
  const bool named = url.has_user && !url.user.empty();
  const std::string anonymous_user = gsi_ ? kGsiMappedUser : "anonymous";
  const std::string user = named ? url.user : anonymous_user;
  // GSI proves who we are; its PASS is empty (the plaintext is "PASS \r\n").
  const std::string password =
      named ? url.password : (gsi_ ? std::string() : options_.anonymous_password);
  auto user_reply = control_->command("USER " + user);
  if (!user_reply) {
    return make_error(user_reply.error());
  }
  if (user_reply->code / 100 == kPositiveCompletion) {
    return {};  // no password needed
  }
  if (user_reply->code / 100 != kPositiveIntermediate) {
    control_->note_failure("USER " + user, *user_reply);
    return make_error(make_error_code(protocol::Errc::NotLoggedIn));
  }
  auto pass_reply = control_->command("PASS " + password);
  if (!pass_reply) {
    return make_error(pass_reply.error());
  }
  if (pass_reply->code / 100 != kPositiveCompletion) {
    control_->note_failure("PASS", *pass_reply);
    return make_error(make_error_code(protocol::Errc::NotLoggedIn));
  }
  return {};
}

Result<void> Session::read_features() {
  auto reply = control_->command("FEAT");
  if (!reply) {
    return make_error(reply.error());
  }
  // A server without FEAT (RFC 2389 is optional) just has no features.
  if (reply->code / 100 == kPositiveCompletion && reply->lines.size() > 2) {
    features_.assign(reply->lines.begin() + 1, reply->lines.end() - 1);
  }
  return {};
}

bool Session::has_feature(std::string_view name) const {
  return std::any_of(features_.begin(), features_.end(), [&](const std::string& line) {
    return equals_ignoring_case(first_word(line), name);
  });
}

Result<void> Session::use_binary_type() {
  if (binary_type_) {
    return {};
  }
  if (auto reply = control_->command_expecting("TYPE I", kPositiveCompletion); !reply) {
    return make_error(reply.error());
  }
  binary_type_ = true;
  return {};
}

Result<void> Session::use_extended_block_mode(bool extended) {
  if (extended == extended_block_mode_) {
    return {};
  }
  if (auto reply = control_->command_expecting(extended ? "MODE E" : "MODE S", kPositiveCompletion);
      !reply) {
    return make_error(reply.error());
  }
  extended_block_mode_ = extended;
  return {};
}

Result<void> Session::set_parallelism(unsigned streams) {
  if (streams == parallelism_) {
    return {};
  }
  if (auto reply = control_->command_expecting(parallelism_command(streams), kPositiveCompletion);
      !reply) {
    return make_error(reply.error());
  }
  parallelism_ = streams;
  return {};
}

Result<std::string> Session::checksum(security::DigestAlgorithm algorithm, const std::string& path,
                                      const std::optional<PartialRange>& range) {
  const auto command = checksum_command(algorithm, path, range);
  auto reply = control_->command_expecting(command, kPositiveCompletion);
  if (!reply) {
    return make_error(reply.error());
  }
  auto digest = parse_checksum_reply(reply->first_text());
  if (!digest) {
    control_->note_failure(command, *reply);
  }
  return digest;
}

Result<void> Session::use_data_security(const DataSecurityLevel& level) {
  if (!gsi_) {
    return {};
  }
  auto state = data_security_;
  for (const auto& command : data_security_commands(state, level)) {
    if (auto reply = control_->command_expecting(command, kPositiveCompletion); !reply) {
      return make_error(reply.error());
    }
  }
  data_security_ = state;
  return {};
}

DataChannelSecurity Session::data_channel_security() const {
  if (ftps_data_) {
    return DataChannelSecurity{nullptr, security::DataProtection::Private, ftps_data_};
  }
  if (!gsi_ || !data_security_.level.authenticate) {
    return {};
  }
  return DataChannelSecurity{gsi_, data_security_.level.protection, nullptr};
}

Result<protocol::control::HostPort> Session::request_passive() {
  const bool extended = control_->channel().is_ipv6();
  auto reply = control_->command_expecting(extended ? "EPSV" : "PASV", kPositiveCompletion);
  if (!reply) {
    return make_error(reply.error());
  }
  auto address = extended ? protocol::control::parse_epsv_reply(reply->first_text())
                          : protocol::control::parse_pasv_reply(reply->first_text());
  if (!address) {
    control_->note_failure(extended ? "EPSV" : "PASV", *reply);
    return address;
  }
  if (address->address.empty() || address->address == "0.0.0.0") {
    address->address = control_->channel().peer_address();
  }
  return address;
}

Result<DataConnection> Session::open_passive_data() {
  auto address = request_passive();
  if (!address) {
    return make_error(address.error());
  }
  return DataConnection::connect(*address, options_.data_timeout);
}

Result<void> Session::send_port(const protocol::control::HostPort& address) {
  auto port_argument = protocol::control::port_argument_for(address);
  auto eprt_argument = protocol::control::eprt_argument_for(address);
  if (!port_argument && !eprt_argument) {
    return make_error(eprt_argument.error());
  }
  const auto command = port_argument ? "PORT " + *port_argument : "EPRT " + *eprt_argument;
  if (auto reply = control_->command_expecting(command, kPositiveCompletion); !reply) {
    return make_error(reply.error());
  }
  return {};
}

Result<std::optional<std::uint64_t>> Session::size(const std::string& path) {
  auto reply = control_->command("SIZE " + path);
  if (!reply) {
    return make_error(reply.error());
  }
  return size_in(*reply);
}

Result<std::vector<std::optional<std::uint64_t>>> Session::sizes(
    const std::vector<std::string>& paths) {
  for (const auto& path : paths) {
    if (auto sent = control_->send("SIZE " + path); !sent) {
      return make_error(sent.error());
    }
  }
  std::vector<std::optional<std::uint64_t>> out;
  out.reserve(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    auto reply = control_->read_reply(options_.command_timeout);
    if (!reply) {
      return make_error(reply.error());
    }
    out.push_back(size_in(*reply));
  }
  return out;
}

Result<std::optional<protocol::listing::ListingEntry>> Session::stat(const std::string& path) {
  if (!has_feature("MLST")) {
    auto bytes = size(path);
    if (!bytes || !*bytes) {
      return bytes ? Result<std::optional<protocol::listing::ListingEntry>>(std::nullopt)
                   : make_error(bytes.error());
    }
    protocol::listing::ListingEntry entry;
    entry.size_bytes = *bytes;
    return std::optional<protocol::listing::ListingEntry>(std::move(entry));
  }
  auto reply = control_->command("MLST " + path);
  if (!reply) {
    return make_error(reply.error());
  }
  if (reply->code / 100 != kPositiveCompletion) {
    return std::optional<protocol::listing::ListingEntry>{};
  }
  // "250-status of p" / " facts p" / "250 End.": the fact line is the one starting with a space.
  for (const auto& line : reply->lines) {
    if (!line.empty() && line.front() == ' ') {
      if (auto entry = protocol::listing::parse_mlsd_line(std::string_view(line).substr(1));
          entry) {
        return std::optional<protocol::listing::ListingEntry>(std::move(*entry));
      }
    }
  }
  return std::optional<protocol::listing::ListingEntry>{};
}

Result<void> Session::make_directories(const std::string& directory) {
  // Try the whole path first; only walk from the root when that fails (docs/WIRE.md §1.5 `-cd`).
  auto whole = control_->command("MKD " + directory);
  if (!whole) {
    return make_error(whole.error());
  }
  if (whole->code / 100 == kPositiveCompletion) {
    return {};
  }
  for (const auto& prefix : directory_prefixes(directory)) {
    auto reply = control_->command("MKD " + prefix);
    if (!reply) {
      return make_error(reply.error());
    }
    const bool exists = std::find(kDirectoryExistsCodes.begin(), kDirectoryExistsCodes.end(),
                                  reply->code) != kDirectoryExistsCodes.end();
    if (reply->code / 100 != kPositiveCompletion && !exists) {
      control_->note_failure("MKD " + prefix, *reply);
      return make_error(rejected_reply_error());
    }
  }
  return {};
}

Result<void> Session::restart_at(const std::string& argument) {
  constexpr int kIntermediate = 3;
  auto reply = control_->command_expecting("REST " + argument, kIntermediate);
  if (!reply) {
    return make_error(reply.error());
  }
  return {};
}

Result<ParsedReply> Session::begin_transfer(const std::string& command) {
  if (auto sent = send_transfer_command(command); !sent) {
    return make_error(sent.error());
  }
  return expect_transfer_start();
}

Result<void> Session::send_transfer_command(const std::string& command) {
  transfer_command_ = command;
  return control_->send(command);
}

Result<ParsedReply> Session::expect_transfer_start() {
  auto reply = control_->read_reply(options_.command_timeout);
  if (!reply) {
    return reply;
  }
  if (!reply->is_preliminary()) {
    control_->note_failure(transfer_command_, *reply);
    return make_error(rejected_reply_error());
  }
  transfer_began_ = true;
  return reply;
}

Result<ParsedReply> Session::finish_transfer(Clock::duration timeout,
                                             const MarkerCallback& on_marker) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const auto left = deadline - Clock::now();
    auto reply =
        control_->read_reply(left > Clock::duration::zero() ? left : Clock::duration::zero());
    if (!reply || reply->is_preliminary()) {
      if (!reply) {
        return reply;
      }
      // A pipelined transfer's 125/150 is read here; markers only come once it runs.
      transfer_began_ = true;
      if (on_marker) {
        on_marker(*reply);
      }
      continue;  // 111/112 markers and similar
    }
    const bool began = std::exchange(transfer_began_, false);  // the next one starts afresh
    if (reply->code / 100 != kPositiveCompletion) {
      control_->note_failure(transfer_command_, *reply, began);
      return make_error(rejected_reply_error());
    }
    return reply;
  }
}

}  // namespace gridftp::client
