#include "server/striping/mover_stripes.hpp"

#include <utility>

#include <spdlog/spdlog.h>

#include "protocol/control/passive_reply.hpp"
#include "protocol/control/reply_for_error.hpp"
#include "protocol/core/base64.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/mode_e/stripe_share.hpp"
#include "security/credential.hpp"
#include "security/key_pool.hpp"
#include "transport/task_group.hpp"

namespace gridftp::server::striping {

namespace asio = transport::asio;
using protocol::control::HostPort;
using transport::tcp;

namespace {

constexpr std::chrono::seconds kConnectTimeout{10};

// "host:port" or "[v6]:port" -> its parts; nullopt when there is no port.

std::string layout_options(const TransferSettings& settings) {
  const auto& layout = settings.stripe_layout;
  const auto p = std::to_string(settings.parallelism);
  std::string text = "OPTS RETR Parallelism=" + p + "," + p + "," + p + ";";
  if (layout.kind == protocol::mode_e::StripeLayout::Kind::Partitioned) {
    text += "StripeLayout=Partitioned;";
  } else {
    text += "StripeLayout=Blocked;BlockSize=" + std::to_string(layout.block_size) + ";";
  }
  return text;
}

}  // namespace

MoverStripes::MoverStripes(SessionServices& services, const UserLogin& login,
                           const ControlSecurity& security, const TransferSettings& settings,
                           asio::any_io_executor executor, std::string tag)
    : services_(services),
      login_(login),
      security_(security),
      settings_(settings),
      executor_(std::move(executor)),
      tag_(std::move(tag)),
      log_(services.log) {}

std::string endpoint_text(const tcp::endpoint& endpoint) {
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

MoverStripes::~MoverStripes() { abort(); }

bool MoverStripes::enabled() const {
  return !services_.config.striping.movers.empty() && static_cast<bool>(services_.striping_client);
}

std::error_code MoverStripes::fail(const MoverLink& link, const std::string& what) {
  failure_ = "mover " + endpoint_text(link.mover()) + ": " + what;
  log_->warn("{} striping: {}", tag_, failure_);
  return error_code_for(Condition::TransferFailed);
}

transport::awaitable<Result<void>> MoverStripes::open_links() {
  // A link that failed or was closed by an abort leaves the whole set to be made again, so
  // that a mover that came back is used and one that went is skipped.
  bool all_open = !links_.empty();
  for (const auto& link : links_) all_open = all_open && link->is_open();
  if (all_open) co_return Result<void>{};
  for (const auto& link : links_) link->close();
  links_.clear();
  if (!login_words()) {
    failure_ = "striping needs a GSI or anonymous login";
    co_return make_error(error_code_for(Condition::LoginFailed));
  }
  for (const auto& mover : co_await mover_endpoints()) {
    if (auto link = co_await open_logged_in(mover)) links_.push_back(std::move(link));
  }
  if (links_.empty()) {
    failure_ = "no mover answered";
    co_return make_error(error_code_for(Condition::DataConnection));
  }
  co_return Result<void>{};
}

transport::awaitable<std::vector<tcp::endpoint>> MoverStripes::mover_endpoints() {
  std::vector<tcp::endpoint> endpoints;
  tcp::resolver resolver(executor_);
  for (const auto& named : services_.config.striping.movers) {
    const auto parts = protocol::control::parse_named_endpoint(named);
    if (!parts) {
      log_->warn("{} striping: mover '{}' is not host:port; skipped", tag_, named);
      continue;
    }
    boost::system::error_code ec;
    // One name may stand for many movers (a headless Service): every address is one.
    const auto found =
        co_await resolver.async_resolve(parts->host, std::to_string(parts->port),
                                        asio::redirect_error(transport::use_awaitable, ec));
    if (ec) {
      log_->warn("{} striping: mover {} does not resolve: {}; skipped", tag_, named, ec.message());
      continue;
    }
    for (const auto& entry : found) endpoints.push_back(entry.endpoint());
  }
  co_return endpoints;
}

transport::awaitable<std::shared_ptr<MoverLink>> MoverStripes::open_logged_in(
    const tcp::endpoint& mover) {
  auto link =
      co_await MoverLink::open(executor_, mover, services_.striping_client, kConnectTimeout);
  if (!link) {
    log_->warn("{} striping: mover {} unreachable: {}; skipped", tag_, endpoint_text(mover),
               link.error().message());
    co_return nullptr;
  }
  if (auto in = co_await log_in(**link); !in) {
    (*link)->close();
    co_return nullptr;
  }
  co_return std::shared_ptr<MoverLink>(std::move(*link));
}

std::optional<std::pair<std::string, std::string>> MoverStripes::login_words() const {
  const auto* user = login_.user();
  if (user == nullptr) return std::nullopt;
  if (user->anonymous) return std::make_pair(std::string("anonymous"), std::string(":anonymous:"));
  if (security_.gsi_protected && !security_.peer_dn.empty())
    return std::make_pair(user->name, ":gsi:" + security_.peer_dn);
  return std::nullopt;  // a mover never sees a password: it maps GSI and anonymous users itself
}

transport::awaitable<Result<void>> MoverStripes::log_in(MoverLink& link) {
  const auto words = login_words();
  if (!words) co_return make_error(error_code_for(Condition::LoginFailed));
  const auto& [name, proof] = *words;
  if (auto sent = co_await expect(link, "USER " + name, 3); !sent) co_return sent;
  if (auto in = co_await expect(link, "PASS " + proof, 2); !in) co_return in;
  if (security_.delegated) co_return co_await hand_credential(link);
  co_return Result<void>{};
}

transport::awaitable<Result<void>> MoverStripes::hand_credential(MoverLink& link) {
  // The mover authenticates its data connections (DCAU) with what the client delegated to us.
  auto pem = security::credential_to_pem(*security_.delegated);
  if (!pem) co_return make_error(fail(link, "credential: " + pem.error().message()));
  auto text = protocol::encode_base64(*pem);
  security::wipe_secret(*pem);
  constexpr std::size_t kPiece = 2048;  // well inside a command line
  Result<void> sent;
  for (std::size_t at = 0; at < text.size() && sent; at += kPiece)
    sent = co_await expect(link, "SITE STRIPE CRED " + text.substr(at, kPiece), 2);
  security::wipe_secret(text);
  if (!sent) co_return sent;
  co_return co_await expect(link, "SITE STRIPE CRED END", 2);
}

transport::awaitable<Result<void>> MoverStripes::expect(MoverLink& link, std::string line,
                                                        int expected) {
  const auto verb = line.substr(0, line.find(' '));
  auto reply = co_await link.command(std::move(line));
  if (!reply) co_return make_error(fail(link, verb + ": " + reply.error().message()));
  if (reply->code / 100 != expected) {
    co_return make_error(fail(link, verb + ": " + reply->lines.front()));
  }
  co_return Result<void>{};
}

Result<std::vector<std::string>> MoverStripes::settings_lines(bool sending, bool striped) {
  const auto& settings = settings_;
  if (striped && (settings.ascii || !settings.mode_e)) {
    failure_ = "a striped transfer is TYPE I, MODE E (GFD.20)";
    return make_error(error_code_for(Condition::BadSequence));
  }
  std::vector<std::string> lines{settings.ascii ? "TYPE A" : "TYPE I",
                                 settings.mode_e ? "MODE E" : "MODE S"};
  if (security_.dcau == 'N') {
    lines.emplace_back("DCAU N");
  } else {
    if (!security_.delegated) {
      // As on this server: DCAU A and S authenticate with the delegated credential.
      failure_ = "DCAU needs a delegated credential; the client did not delegate";
      return make_error(error_code_for(Condition::DataConnection));
    }
    lines.push_back(security_.dcau == 'S' ? "DCAU S " + security_.dcau_subject : "DCAU A");
    lines.emplace_back("PBSZ 1048576");
    lines.push_back(std::string("PROT ") + security_.prot_letter());
  }
  // Sending: the parallelism and layout; receiving: the client's marker period (TREV), as
  // the receiving movers send the markers it gets.
  lines.push_back(sending ? layout_options(settings)
                          : "TREV PERF " + std::to_string(settings.marker_seconds));
  return lines;
}

transport::awaitable<Result<void>> MoverStripes::apply(MoverLink& link, bool sending,
                                                       bool striped) {
  auto lines = settings_lines(sending, striped);
  if (!lines) co_return make_error(lines.error());
  for (const auto& line : *lines) {
    if (auto done = co_await expect(link, line, 2); !done) co_return done;
  }
  co_return Result<void>{};
}

transport::awaitable<Result<std::vector<HostPort>>> MoverStripes::listen() {
  direction_ = Direction::None;
  failure_.clear();
  if (auto opened = co_await open_links(); !opened) co_return make_error(opened.error());
  std::vector<HostPort> addresses;
  for (const auto& link : links_) {
    if (auto applied = co_await apply(*link, false, true); !applied)
      co_return make_error(applied.error());
    auto reply = co_await link->command("PASV");
    if (!reply) co_return make_error(fail(*link, "PASV: " + reply.error().message()));
    auto address = reply->code == 227
                       ? protocol::control::parse_pasv_reply(reply->first_text())
                       : Result<HostPort>(make_error(error_code_for(Condition::DataConnection)));
    if (!address) co_return make_error(fail(*link, "PASV: " + reply->lines.front()));
    addresses.push_back(std::move(*address));
  }
  direction_ = Direction::Receive;
  co_return addresses;
}

void MoverStripes::connect_to(std::vector<std::string> addresses) {
  receivers_ = std::move(addresses);
  direction_ = Direction::Send;
}

transport::awaitable<Result<void>> MoverStripes::restart_at(
    MoverLink& link, const std::optional<protocol::restart::ByteRangeSet>& present) {
  if (!present || present->empty()) co_return Result<void>{};
  co_return co_await expect(link, "REST " + present->format_range_list(), 3);
}

transport::awaitable<Result<void>> MoverStripes::store(
    const std::string& path, const std::optional<protocol::restart::ByteRangeSet>& present,
    const std::function<void()>& started, const MarkerRelay& markers) {
  direction_ = Direction::None;
  failure_.clear();
  if (links_.empty()) co_return make_error(error_code_for(Condition::BadSequence));
  // One mover makes the file empty before any writes its stripe into it; a restart goes on
  // with the partial file the failed attempt left.
  if (!present) {
    if (auto begun = co_await expect(*links_.front(), "SITE STRIPE BEGIN " + path, 2); !begun)
      co_return begun;
  }
  std::vector<std::shared_ptr<MoverLink>> movers;
  std::vector<std::string> commands;
  for (const auto& link : links_) {
    if (auto part = co_await expect(*link, "SITE STRIPE PART", 2); !part) co_return part;
    if (auto rest = co_await restart_at(*link, present); !rest) co_return rest;
    movers.push_back(link);
    commands.push_back("STOR " + path);
  }
  if (auto moved = co_await run_on_all(movers, commands, started, markers); !moved) co_return moved;
  co_return co_await expect(*links_.front(), "SITE STRIPE COMMIT " + path, 2);
}

transport::awaitable<Result<void>> MoverStripes::retrieve(
    const std::string& path, const std::optional<protocol::restart::ByteRangeSet>& present,
    const std::function<void()>& started) {
  direction_ = Direction::None;
  failure_.clear();
  if (auto opened = co_await open_links(); !opened) co_return opened;
  const auto stripes = static_cast<unsigned>(receivers_.size());
  const auto count = static_cast<unsigned>(links_.size());
  std::vector<std::shared_ptr<MoverLink>> movers;
  std::vector<std::string> commands;
  for (unsigned j = 0; j < count; ++j) {
    const auto share = protocol::mode_e::share_of_mover(stripes, count, j);
    if (share.indices.empty()) continue;
    const auto& shared = links_[j];
    auto& link = *shared;
    if (auto applied = co_await apply(link, true, true); !applied) co_return applied;
    std::string spor = "SPOR";
    for (const auto index : share.indices) spor += " " + receivers_[index];
    if (auto sent = co_await expect(
            link, "SITE STRIPE SEND " + protocol::mode_e::format_stripe_share(share), 2);
        !sent)
      co_return sent;
    if (auto sent = co_await expect(link, spor, 2); !sent) co_return sent;
    if (auto rest = co_await restart_at(link, present); !rest) co_return rest;
    movers.push_back(shared);
    commands.push_back("RETR " + path);
  }
  const MarkerRelay no_markers;  // a sending mover's receiver (the client) sends the markers
  co_return co_await run_on_all(movers, commands, started, no_markers);
}

transport::awaitable<Result<void>> MoverStripes::run_on_all(
    const std::vector<std::shared_ptr<MoverLink>>& movers, const std::vector<std::string>& commands,
    const std::function<void()>& started, const MarkerRelay& markers) {
  aborted_ = false;
  for (std::size_t i = 0; i < movers.size(); ++i) {
    auto reply = co_await movers[i]->command(commands[i]);
    if (!reply) co_return make_error(fail(*movers[i], reply.error().message()));
    if (!reply->is_preliminary()) co_return make_error(fail(*movers[i], reply->lines.front()));
  }
  if (started) started();
  // Every mover's final reply, waited for together: the first failure closes the others'
  // links, which ends their transfers (a mover's session aborts its transfer when its
  // frontend goes), so nothing waits on a stripe that will not come.
  transport::TaskGroup group(executor_);
  for (unsigned stripe = 0; stripe < movers.size(); ++stripe) {
    group.spawn(executor_,
                [](MoverStripes* self, std::shared_ptr<MoverLink> link, unsigned index,
                   const MarkerRelay* relay) -> transport::awaitable<Result<void>> {
                  for (;;) {
                    auto reply = co_await link->read_reply();
                    if (self->aborted_)
                      co_return make_error(error_code_for(Condition::TransferAborted));
                    if (!reply) {
                      auto ec = self->fail(*link, reply.error().message());
                      self->abort();
                      co_return make_error(ec);
                    }
                    if (reply->is_preliminary()) {  // 111/112 markers of its stripe
                      if (*relay) (*relay)(index, *reply);
                      continue;
                    }
                    if (reply->code / 100 == 2) co_return Result<void>{};
                    auto ec = self->fail(*link, reply->lines.front());
                    self->abort();
                    co_return make_error(ec);
                  }
                }(this, movers[stripe], stripe, &markers));
  }
  auto outcome = co_await group.wait();
  if (aborted_ && outcome) outcome = make_error(error_code_for(Condition::TransferAborted));
  co_return outcome;
}

protocol::control::Reply MoverStripes::failure_reply(std::error_code error) const {
  auto reply = protocol::control::reply_for_error(error);
  if (!failure_.empty()) reply.lines.back() += " " + failure_ + ".";
  return reply;
}

void MoverStripes::abort() {
  aborted_ = aborted_ || !links_.empty() || relay_link_ != nullptr;
  for (const auto& link : links_) link->close();
  links_.clear();
  if (relay_link_) relay_link_->close();
  relay_link_.reset();
}

}  // namespace gridftp::server::striping
