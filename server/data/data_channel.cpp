#include "server/data/data_channel.hpp"

#include "protocol/core/errors.hpp"
#include "server/data/passive_ports.hpp"
#include "transport/deadline.hpp"
#include "transport/error_conversion.hpp"
#include "transport/peer_address.hpp"
#include "transport/socket_buffer.hpp"

namespace gridftp::server {
namespace {

// Connects `socket` to `peer`, its buffers sized first. With a source port range configured
// (GLOBUS_TCP_SOURCE_RANGE: firewalls that allow outgoing data from known ports only) it binds a
// port of the range first, walking on while a port cannot be bound, or cannot reach `peer`:
// SO_REUSEADDR, needed to reuse ports left in TIME_WAIT, also lets a port already carrying a
// connection to this very peer (another stream of the same transfer) be bound again, and then
// connect() fails with EADDRNOTAVAIL. Stops early once `deadline` has closed the socket.
transport::awaitable<boost::system::error_code> connect_outgoing(
    tcp::socket& socket, const tcp::endpoint& peer, std::uint32_t buffer,
    const ListenConfig& listen, const transport::Deadline& deadline) {
  const PassivePortWalk ports(listen.source_port_min, listen.source_port_max);
  const auto any = peer.address().is_v4() ? asio::ip::address(asio::ip::address_v4::any())
                                          : asio::ip::address(asio::ip::address_v6::any());
  boost::system::error_code ec;
  for (unsigned i = 0; i < ports.size() && !deadline.expired(); ++i) {
    boost::system::error_code ignored;
    socket.close(ignored);
    socket.open(peer.protocol(), ec);
    if (ec) co_return ec;
    transport::apply_socket_buffer(socket, buffer);
    if (listen.source_port_min != 0) {
      socket.set_option(tcp::acceptor::reuse_address(true), ec);
      if (!ec) socket.bind(tcp::endpoint(any, ports[i]), ec);
      if (ec) continue;  // taken: the next port
    }
    co_await socket.async_connect(peer, asio::redirect_error(transport::use_awaitable, ec));
    if (ec != boost::system::errc::address_not_available && ec != asio::error::address_in_use)
      break;
  }
  co_return ec;
}

}  // namespace

Result<tcp::endpoint> DataChannel::listen_passive(const asio::ip::address& local_address) {
  cancel();
  const PassivePortWalk ports(listen_);
  boost::system::error_code ec;
  for (unsigned i = 0; i < ports.size(); ++i) {
    auto acceptor = std::make_shared<tcp::acceptor>(executor_);
    const tcp::endpoint endpoint(local_address, ports[i]);
    acceptor->open(endpoint.protocol(), ec);
    if (ec) return make_error(transport::to_error_code(ec));
    // Closed data connections leave their port in TIME_WAIT; without this a small passive range
    // runs dry after a handful of transfers.
    acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
    transport::apply_socket_buffer(*acceptor, socket_buffer_bytes_);  // accepted sockets inherit it
    acceptor->bind(endpoint, ec);
    if (ec) continue;
    acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) continue;
    const auto bound = acceptor->local_endpoint(ec);
    if (ec) return make_error(transport::to_error_code(ec));
    acceptor_ = std::move(acceptor);
    return bound;
  }
  return make_error(ec ? transport::to_error_code(ec)
                       : std::make_error_code(std::errc::address_in_use));
}

void DataChannel::set_active(std::vector<tcp::endpoint> peers) {
  cancel();
  active_peers_ = std::move(peers);
}

void DataChannel::cancel() {
  boost::system::error_code ignored;
  if (acceptor_) acceptor_->close(ignored);
  for (const auto& socket : opening_sockets_) socket->close(ignored);
  acceptor_.reset();
  opening_sockets_.clear();
  active_peers_.clear();
}

bool DataChannel::is_expected_peer(const tcp::socket& socket) const {
  if (!expected_peer_) return true;
  boost::system::error_code ec;
  const auto peer = socket.remote_endpoint(ec).address();
  if (ec) return false;
  return transport::unmapped(peer) == *expected_peer_;
}

std::shared_ptr<tcp::acceptor> DataChannel::take_acceptor() {
  return std::exchange(acceptor_, nullptr);
}

SocketPtr DataChannel::new_stream_socket() {
  return std::make_shared<tcp::socket>(data_loops_.next());
}

transport::awaitable<Result<SocketPtr>> DataChannel::open(std::chrono::seconds timeout) {
  const auto acceptor = acceptor_;
  const auto peers = std::exchange(active_peers_, {});
  if (!acceptor && peers.empty()) co_return make_error(error_code_for(Condition::BadSequence));
  auto socket = std::make_shared<tcp::socket>(executor_);
  opening_sockets_ = {socket};

  auto deadline = std::make_shared<transport::Deadline>(executor_);
  deadline->expires_after(timeout);
  transport::start_watch(deadline, [acceptor, socket] {
    boost::system::error_code ignored;
    if (acceptor) acceptor->close(ignored);
    socket->close(ignored);
  });

  boost::system::error_code ec;
  if (acceptor) {
    co_await acceptor->async_accept(*socket, asio::redirect_error(transport::use_awaitable, ec));
    boost::system::error_code ignored;
    acceptor->close(ignored);
    if (acceptor_ == acceptor) acceptor_.reset();
  } else {
    ec =
        co_await connect_outgoing(*socket, peers.front(), socket_buffer_bytes_, listen_, *deadline);
  }
  opening_sockets_.clear();
  const bool timed_out = deadline->expired();
  deadline->stop();
  if (ec || timed_out || !socket->is_open())
    co_return make_error(error_code_for(Condition::DataConnection));
  if (acceptor && !is_expected_peer(*socket))
    co_return make_error(error_code_for(Condition::UnexpectedDataPeer));
  socket->set_option(tcp::no_delay(true), ec);
  co_return socket;
}

transport::awaitable<Result<std::vector<SocketPtr>>> DataChannel::connect_streams(
    unsigned per_peer, std::chrono::seconds timeout) {
  const auto peers = std::exchange(active_peers_, {});
  if (peers.empty()) co_return make_error(error_code_for(Condition::BadSequence));
  std::vector<SocketPtr> sockets;
  for (std::size_t i = 0; i < peers.size() * per_peer; ++i) sockets.push_back(new_stream_socket());
  opening_sockets_ = sockets;
  auto deadline = std::make_shared<transport::Deadline>(executor_);
  deadline->expires_after(timeout);
  transport::start_watch(deadline, [sockets] {
    boost::system::error_code ignored;
    for (const auto& socket : sockets) socket->close(ignored);
  });
  // Connects run one after another; each is a loopback or LAN round trip, and serial connects
  // keep the accounting simple. The peer accepts them in any order.
  boost::system::error_code ec;
  for (std::size_t i = 0; i < sockets.size() && !ec; ++i) {
    ec = co_await connect_outgoing(*sockets[i], peers[i / per_peer], socket_buffer_bytes_, listen_,
                                   *deadline);
    if (!ec) sockets[i]->set_option(tcp::no_delay(true), ec);
  }
  opening_sockets_.clear();
  const bool timed_out = deadline->expired();
  deadline->stop();
  if (ec || timed_out) {
    boost::system::error_code ignored;
    for (const auto& socket : sockets) socket->close(ignored);
    co_return make_error(error_code_for(Condition::DataConnection));
  }
  co_return sockets;
}

}  // namespace gridftp::server
