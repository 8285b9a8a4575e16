// Data-channel addressing: PASV, EPSV, PORT, EPRT (RFC 959 §4.1.2, RFC 2428) and REST (RFC 3659).
#include <charconv>

#include <spdlog/spdlog.h>

#include "protocol/control/host_port.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"
#include "server/session/control_session.hpp"
#include "transport/peer_address.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;

// Ports below 1024 are refused: PORT must not turn the server into a bounce to privileged
// services (RFC 2577 §3).
constexpr std::uint16_t kLowestActivePort = 1024;

}  // namespace

// The next data channel's listener: a UDP socket once SETNETSTACK chose UDPX, else TCP.
Result<std::uint16_t> ControlSession::listen_passive(const asio::ip::address& address) {
  if (udpx_.enabled()) {
    data_channel_.cancel();
    auto bound = udpx_.listen_passive(executor_, address, services_.config.listen);
    if (!bound) return make_error(bound.error());
    return bound->port();
  }
  auto bound = data_channel_.listen_passive(address);
  if (!bound) return make_error(bound.error());
  return bound->port();
}

void ControlSession::set_active_peer(const asio::ip::address& address, std::uint16_t port) {
  if (udpx_.enabled()) {
    data_channel_.cancel();
    udpx_.set_active(transport::udpx::udp::endpoint(address, port));
    return;
  }
  data_channel_.set_active({tcp::endpoint(address, port)});
}

std::optional<std::string> ControlSession::refuse_active_peer(const asio::ip::address& address,
                                                              std::uint16_t port) const {
  if (port < kLowestActivePort) return "data port below 1024 refused";
  if (!services_.config.listen.require_data_peer_match) return std::nullopt;
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

asio::ip::address ControlSession::data_address() const {
  const auto& configured = services_.config.listen.data_interface;
  if (!configured.empty()) {
    boost::system::error_code ec;
    auto address = asio::ip::make_address(configured, ec);
    if (!ec) return address;
  }
  // The control connection's local address: a client reaches us there (unspecified if unknown).
  return endpoints_.local ? transport::unmapped(endpoints_.local->address()) : asio::ip::address{};
}

transport::awaitable<void> ControlSession::on_pasv(const std::string&) {
  stream_cache_.drop();  // a new address means new connections (GFD.20 caching ends)
  const auto address = data_address();
  if (!address.is_v4()) {
    send_error(Condition::UnsupportedNetworkProtocol, "Network protocol not supported; use EPSV.");
    co_return;
  }
  const auto endpoint = listen_passive(address);
  if (!endpoint) {
    log_->warn("{} passive listen failed: {}", tag(), endpoint.error().message());
    send_error(Condition::DataConnection, "Can't open passive listener.");
    co_return;
  }
  const protocol::control::HostPort host_port{
      announced_address(services_.config.listen, address).to_string(), *endpoint, false};
  send(rc::kEnteringPassive,
       "Entering Passive Mode (" + protocol::control::format_port_argument(host_port) + ")");
}

transport::awaitable<void> ControlSession::on_epsv(const std::string& argument) {
  stream_cache_.drop();  // a new address means new connections (GFD.20 caching ends)
  if (argument == "ALL" || argument == "all") {
    send(rc::kCommandOk, "EPSV ALL Successful.");
    co_return;
  }
  const auto address = data_address();
  if ((argument == "1" && !address.is_v4()) || (argument == "2" && !address.is_v6())) {
    send_error(Condition::UnsupportedNetworkProtocol,
               address.is_v4() ? "Network protocol not supported, use (1)."
                               : "Network protocol not supported, use (2).");
    co_return;
  }
  if (!argument.empty() && argument != "1" && argument != "2") {
    send_error(Condition::BadSyntax, "Bad EPSV argument.");
    co_return;
  }
  const auto endpoint = listen_passive(address);
  if (!endpoint) {
    log_->warn("{} passive listen failed: {}", tag(), endpoint.error().message());
    send_error(Condition::DataConnection, "Can't open passive listener.");
    co_return;
  }
  send(rc::kEnteringExtendedPassive,
       "Entering Extended Passive Mode (|||" + std::to_string(*endpoint) + "|)");
}

transport::awaitable<void> ControlSession::on_port(const std::string& argument) {
  stream_cache_.drop();  // a new address means new connections (GFD.20 caching ends)
  const auto host_port = protocol::control::parse_port_argument(argument);
  boost::system::error_code ec;
  const auto address =
      host_port ? asio::ip::make_address(host_port->address, ec) : asio::ip::address();
  if (!host_port || ec) {
    send_error(Condition::BadAddress);
    co_return;
  }
  if (const auto why = refuse_active_peer(address, host_port->port)) {
    log_->warn("{} PORT {} refused: {}", tag(), argument, *why);
    send_error(Condition::BadAddress, "Illegal PORT command: " + *why + ".");
    co_return;
  }
  set_active_peer(address, host_port->port);
  send(rc::kCommandOk, "PORT Command successful.");
}

transport::awaitable<void> ControlSession::on_eprt(const std::string& argument) {
  stream_cache_.drop();  // a new address means new connections (GFD.20 caching ends)
  const auto host_port = protocol::control::parse_eprt_argument(argument);
  if (!host_port) {
    send_error(host_port.error());
    co_return;
  }
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(host_port->address, ec);
  if (ec) {
    send_error(Condition::BadAddress, "Illegal EPRT command.");
    co_return;
  }
  if (const auto why = refuse_active_peer(address, host_port->port)) {
    log_->warn("{} EPRT {} refused: {}", tag(), argument, *why);
    send_error(Condition::BadAddress, "Illegal EPRT command: " + *why + ".");
    co_return;
  }
  set_active_peer(address, host_port->port);
  send(rc::kCommandOk, "EPRT Command successful.");
}

transport::awaitable<void> ControlSession::on_spas(const std::string&) {
  stream_cache_.drop();  // a new address means new connections (GFD.20 caching ends)
  // GFD.20 striped passive: a single-stripe server answers with one address line.
  const auto address = data_address();
  const auto endpoint = data_channel_.listen_passive(address);
  if (!endpoint) {
    log_->warn("{} passive listen failed: {}", tag(), endpoint.error().message());
    send_error(Condition::DataConnection, "Can't open passive listener.");
    co_return;
  }
  const auto announced = announced_address(services_.config.listen, address);
  const protocol::control::HostPort host_port{announced.to_string(), endpoint->port(),
                                              announced.is_v6()};
  const auto line = announced.is_v4() ? protocol::control::format_port_argument(host_port)
                                      : protocol::control::format_eprt_argument(host_port);
  send(protocol::control::Reply{rc::kEnteringExtendedPassive,
                                {"Entering Striped Passive Mode.", " " + line, "End"}});
}

transport::awaitable<void> ControlSession::on_spor(const std::string& argument) {
  stream_cache_.drop();  // a new address means new connections (GFD.20 caching ends)
  // GFD.20: space-separated host-ports, each in PORT or EPRT form; one stripe per address.
  std::vector<tcp::endpoint> peers;
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
      send_error(Condition::BadAddress, "Illegal SPOR command.");
      co_return;
    }
    if (const auto why = refuse_active_peer(address, host_port->port)) {
      log_->warn("{} SPOR {} refused: {}", tag(), item, *why);
      send_error(Condition::BadAddress, "Illegal SPOR command: " + *why + ".");
      co_return;
    }
    peers.emplace_back(address, host_port->port);
  }
  if (peers.empty()) {
    send_error(Condition::BadAddress, "Illegal SPOR command.");
    co_return;
  }
  data_channel_.set_active(std::move(peers));
  send(rc::kCommandOk, "PORT Command successful.");
}

transport::awaitable<void> ControlSession::on_rest(const std::string& argument) {
  if (argument.find('-') != std::string::npos) {
    // MODE E form (docs/WIRE.md §4.3): the ranges already at the receiver,
    // "0-4980736,5242880-6000000".
    auto ranges = protocol::restart::parse_range_list(argument);
    if (!ranges) {
      send_error(Condition::BadSyntax, "bad parameter.");
      co_return;
    }
    settings_.restart_with(std::move(*ranges));
    send(rc::kPendingFurtherInfo, "Restart Marker OK. Send STORE or RETR to initiate transfer.");
    co_return;
  }
  std::uint64_t offset = 0;
  const auto* end = argument.data() + argument.size();
  const auto [ptr, ec] = std::from_chars(argument.data(), end, offset);
  if (argument.empty() || ec != std::errc() || ptr != end) {
    send_error(Condition::BadSyntax, "Bad REST parameter.");
    co_return;
  }
  settings_.restart_at(offset);
  send(rc::kPendingFurtherInfo,
       "Restarting at " + argument + ". Send STORE or RETRIEVE to initiate transfer.");
}

}  // namespace gridftp::server
