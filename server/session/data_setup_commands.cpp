#include "server/session/data_setup_commands.hpp"

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "protocol/control/host_port.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/core/decimal.hpp"
#include "protocol/core/errors.hpp"
#include "transport/peer_address.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;

// Ports below 1024 are refused: PORT must not turn the server into a bounce to privileged
// services (RFC 2577 §3).
constexpr std::uint16_t kLowestActivePort = 1024;

}  // namespace

DataSetupCommands::DataSetupCommands(DataChannels channels, const ListenConfig& listen,
                                     const ControlEndpoints& endpoints,
                                     transport::asio::any_io_executor executor,
                                     SessionReplies& replies, std::shared_ptr<spdlog::logger> log,
                                     std::string tag)
    : channels_(channels),
      listen_(listen),
      endpoints_(endpoints),
      executor_(std::move(executor)),
      replies_(replies),
      log_(std::move(log)),
      tag_(std::move(tag)) {}

// The next data channel's listener: a UDP socket once SETNETSTACK chose UDPX, else TCP.
Result<std::uint16_t> DataSetupCommands::listen_passive(const asio::ip::address& address) {
  if (channels_.udpx.enabled()) {
    channels_.tcp.cancel();
    auto bound = channels_.udpx.listen_passive(executor_, address, listen_);
    if (!bound) return make_error(bound.error());
    return bound->port();
  }
  auto bound = channels_.tcp.listen_passive(address);
  if (!bound) return make_error(bound.error());
  return bound->port();
}

bool DataSetupCommands::on_session_mover() const {
  // UDPX is the frontend's own: its association is not handed to a mover.
  return channels_.movers != nullptr && channels_.movers->relays_unstriped() &&
         !channels_.udpx.enabled();
}

void DataSetupCommands::set_active_peer(const asio::ip::address& address, std::uint16_t port) {
  if (channels_.udpx.enabled()) {
    channels_.tcp.cancel();
    channels_.udpx.set_active(transport::udpx::udp::endpoint(address, port));
    return;
  }
  channels_.tcp.set_active({tcp::endpoint(address, port)});
}

std::optional<std::string> DataSetupCommands::refuse_active_peer(const asio::ip::address& address,
                                                                 std::uint16_t port) const {
  if (port < kLowestActivePort) return "data port below 1024 refused";
  if (!listen_.require_data_peer_match) return std::nullopt;
  const auto& peer = endpoints_.peer;
  if (!peer || transport::unmapped(peer->address()) != transport::unmapped(address)) {
    return "data connections go only to the control connection's address";
  }
  return std::nullopt;
}

namespace {

// What PASV and SPAS name: [listen] passive_address when set (address translation in front of
// this host, docs/DEPLOY.md), else the address the listener is bound to.
asio::ip::address announced_address(const ListenConfig& listen, const asio::ip::address& bound) {
  if (listen.passive_address.empty()) return bound;
  boost::system::error_code ec;
  const auto address = asio::ip::make_address_v4(listen.passive_address, ec);
  return ec ? bound : asio::ip::address(address);
}

}  // namespace

asio::ip::address DataSetupCommands::data_address() const {
  const auto& configured = listen_.data_interface;
  if (!configured.empty()) {
    boost::system::error_code ec;
    auto address = asio::ip::make_address(configured, ec);
    if (!ec) return address;
  }
  // The control connection's local address: a client reaches us there (unspecified if unknown).
  return endpoints_.local ? transport::unmapped(endpoints_.local->address()) : asio::ip::address{};
}

transport::awaitable<void> DataSetupCommands::on_pasv(const std::string&) {
  channels_.cached_streams.drop();  // a new address means new connections (GFD.20 caching ends)
  if (channels_.movers != nullptr) channels_.movers->forget();  // not striped across movers
  if (on_session_mover()) {
    co_await listen_on_session_mover();
    co_return;
  }
  const auto address = data_address();
  if (!address.is_v4()) {
    replies_.send_error(Condition::UnsupportedNetworkProtocol,
                        "Network protocol not supported; use EPSV.");
    co_return;
  }
  const auto endpoint = listen_passive(address);
  if (!endpoint) {
    log_->warn("{} passive listen failed: {}", tag_, endpoint.error().message());
    replies_.send_error(Condition::DataConnection, "Can't open passive listener.");
    co_return;
  }
  const protocol::control::HostPort host_port{announced_address(listen_, address).to_string(),
                                              *endpoint, false};
  replies_.send(rc::kEnteringPassive, "Entering Passive Mode (" +
                                          protocol::control::format_port_argument(host_port) + ")");
}

transport::awaitable<void> DataSetupCommands::on_epsv(const std::string& argument) {
  channels_.cached_streams.drop();  // a new address means new connections (GFD.20 caching ends)
  if (channels_.movers != nullptr) channels_.movers->forget();  // not striped across movers
  if (argument == "ALL" || argument == "all") {
    replies_.send(rc::kCommandOk, "EPSV ALL Successful.");
    co_return;
  }
  const auto address = data_address();
  if ((argument == "1" && !address.is_v4()) || (argument == "2" && !address.is_v6())) {
    replies_.send_error(Condition::UnsupportedNetworkProtocol,
                        address.is_v4() ? "Network protocol not supported, use (1)."
                                        : "Network protocol not supported, use (2).");
    co_return;
  }
  if (!argument.empty() && argument != "1" && argument != "2") {
    replies_.send_error(Condition::BadSyntax, "Bad EPSV argument.");
    co_return;
  }
  const auto endpoint = listen_passive(address);
  if (!endpoint) {
    log_->warn("{} passive listen failed: {}", tag_, endpoint.error().message());
    replies_.send_error(Condition::DataConnection, "Can't open passive listener.");
    co_return;
  }
  replies_.send(rc::kEnteringExtendedPassive,
                "Entering Extended Passive Mode (|||" + std::to_string(*endpoint) + "|)");
}

void DataSetupCommands::take_active_peer(const char* verb, const std::string& argument,
                                         const asio::ip::address& address, std::uint16_t port) {
  if (const auto why = refuse_active_peer(address, port)) {
    log_->warn("{} {} {} refused: {}", tag_, verb, argument, *why);
    replies_.send_error(Condition::BadAddress,
                        std::string("Illegal ") + verb + " command: " + *why + ".");
    return;
  }
  if (on_session_mover()) {
    channels_.tcp.cancel();
    channels_.movers->connect_one(std::string(verb) + " " + argument);
  } else {
    set_active_peer(address, port);
  }
  replies_.send(rc::kCommandOk, std::string(verb) + " Command successful.");
}

transport::awaitable<void> DataSetupCommands::on_port(const std::string& argument) {
  channels_.cached_streams.drop();  // a new address means new connections (GFD.20 caching ends)
  if (channels_.movers != nullptr) channels_.movers->forget();  // not striped across movers
  const auto host_port = protocol::control::parse_port_argument(argument);
  boost::system::error_code ec;
  const auto address =
      host_port ? asio::ip::make_address(host_port->address, ec) : asio::ip::address();
  if (!host_port || ec) {
    replies_.send_error(Condition::BadAddress);
    co_return;
  }
  take_active_peer("PORT", argument, address, host_port->port);
}

transport::awaitable<void> DataSetupCommands::on_eprt(const std::string& argument) {
  channels_.cached_streams.drop();  // a new address means new connections (GFD.20 caching ends)
  if (channels_.movers != nullptr) channels_.movers->forget();  // not striped across movers
  const auto host_port = protocol::control::parse_eprt_argument(argument);
  if (!host_port) {
    replies_.send_error(host_port.error());
    co_return;
  }
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(host_port->address, ec);
  if (ec) {
    replies_.send_error(Condition::BadAddress, "Illegal EPRT command.");
    co_return;
  }
  take_active_peer("EPRT", argument, address, host_port->port);
}

transport::awaitable<void> DataSetupCommands::on_spas(const std::string&) {
  channels_.cached_streams.drop();  // a new address means new connections (GFD.20 caching ends)
  if (channels_.movers != nullptr && channels_.movers->enabled()) {
    co_await listen_on_movers();
    co_return;
  }
  // GFD.20 striped passive: a single-stripe server answers with one address line.
  const auto address = data_address();
  const auto endpoint = channels_.tcp.listen_passive(address);
  if (!endpoint) {
    log_->warn("{} passive listen failed: {}", tag_, endpoint.error().message());
    replies_.send_error(Condition::DataConnection, "Can't open passive listener.");
    co_return;
  }
  const auto announced = announced_address(listen_, address);
  const protocol::control::HostPort host_port{announced.to_string(), endpoint->port(),
                                              announced.is_v6()};
  const auto line = announced.is_v4() ? protocol::control::format_port_argument(host_port)
                                      : protocol::control::format_eprt_argument(host_port);
  replies_.send(protocol::control::Reply{rc::kEnteringExtendedPassive,
                                         {"Entering Striped Passive Mode.", " " + line, "End"}});
}

transport::awaitable<void> DataSetupCommands::listen_on_movers() {
  channels_.tcp.cancel();
  auto addresses = co_await channels_.movers->listen();
  if (!addresses) {
    replies_.send_error(addresses.error(),
                        "Striped passive failed: " + channels_.movers->failure() + ".");
    co_return;
  }
  std::vector<std::string> lines{"Entering Striped Passive Mode."};
  for (const auto& address : *addresses) {
    lines.push_back(" " + (address.is_ipv6 ? protocol::control::format_eprt_argument(address)
                                           : protocol::control::format_port_argument(address)));
  }
  lines.emplace_back("End");
  replies_.send(protocol::control::Reply{rc::kEnteringExtendedPassive, std::move(lines)});
}

transport::awaitable<void> DataSetupCommands::listen_on_session_mover() {
  channels_.tcp.cancel();
  auto address = co_await channels_.movers->listen_on_one();
  if (!address) {
    replies_.send_error(address.error(), "Passive failed: " + channels_.movers->failure() + ".");
    co_return;
  }
  replies_.send(rc::kEnteringPassive, "Entering Passive Mode (" +
                                          protocol::control::format_port_argument(*address) + ")");
}

transport::awaitable<void> DataSetupCommands::on_spor(const std::string& argument) {
  channels_.cached_streams.drop();  // a new address means new connections (GFD.20 caching ends)
  if (channels_.movers != nullptr) channels_.movers->forget();  // not striped across movers
  // GFD.20: space-separated host-ports, each in PORT or EPRT form; one stripe per address.
  std::vector<tcp::endpoint> peers;
  std::vector<std::string> items;  // as the client wrote them, for a frontend's movers
  std::size_t start = 0;
  while (start < argument.size()) {
    auto end = argument.find(' ', start);
    if (end == std::string::npos) end = argument.size();
    const auto item = argument.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    auto host_port = item.front() == '|' ? protocol::control::parse_eprt_argument(item)
                                         : protocol::control::parse_port_argument(item);
    boost::system::error_code ec;
    const auto address =
        host_port ? asio::ip::make_address(host_port->address, ec) : asio::ip::address();
    if (!host_port || ec) {
      replies_.send_error(Condition::BadAddress, "Illegal SPOR command.");
      co_return;
    }
    if (const auto why = refuse_active_peer(address, host_port->port)) {
      log_->warn("{} SPOR {} refused: {}", tag_, item, *why);
      replies_.send_error(Condition::BadAddress, "Illegal SPOR command: " + *why + ".");
      co_return;
    }
    peers.emplace_back(address, host_port->port);
    items.push_back(item);
  }
  if (peers.empty()) {
    replies_.send_error(Condition::BadAddress, "Illegal SPOR command.");
    co_return;
  }
  if (channels_.movers != nullptr && channels_.movers->enabled()) {
    // The movers connect: each is given its stripes' addresses as the client wrote them.
    channels_.tcp.cancel();
    channels_.movers->connect_to(std::move(items));
    replies_.send(rc::kCommandOk, "PORT Command successful.");
    co_return;
  }
  channels_.tcp.set_active(std::move(peers));
  replies_.send(rc::kCommandOk, "PORT Command successful.");
}

transport::awaitable<void> DataSetupCommands::on_sbuf(const std::string& argument) {
  // "SBUF <bytes>" (GFD.20): socket buffers for this session's next data connections. 0 hands
  // the choice back to the kernel's autotuning.
  const auto bytes = parse_decimal(argument);
  if (!bytes || *bytes > std::numeric_limits<std::uint32_t>::max()) {
    replies_.send_error(Condition::BadSyntax);
    co_return;
  }
  channels_.tcp.set_socket_buffer(static_cast<std::uint32_t>(*bytes));
  log_->info("{} SBUF {}: buffer size of the next data sockets", tag_, *bytes);
  replies_.send(rc::kCommandOk, "SBUF Command Successful.");
}

}  // namespace gridftp::server
