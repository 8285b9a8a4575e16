// How a session's next data connections are made: passive (PASV/EPSV/SPAS: we listen, the peer
// connects) or active (PORT/EPRT/SPOR: we connect). Stream mode uses one connection per transfer;
// MODE E opens several, each on its own strand so parallel streams run on different threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "protocol/core/result.hpp"
#include "server/config/server_config.hpp"
#include "transport/asio.hpp"
#include "transport/loop_pool.hpp"

namespace gridftp::server {

namespace asio = transport::asio;
using transport::tcp;
using SocketPtr = std::shared_ptr<tcp::socket>;

class DataChannel {
 public:
  // `session_executor` is the session's strand; each MODE E stream's socket lives on one of
  // `data_loops` (single-threaded loops, so a stream needs no strand of its own).
  DataChannel(const asio::any_io_executor& session_executor, transport::LoopPool& data_loops,
              const ListenConfig& listen)
      : executor_(session_executor),
        data_loops_(data_loops),
        listen_(listen),
        socket_buffer_bytes_(listen.data_socket_buffer) {}

  // Opens a listener on `local_address` within the passive port range and returns its endpoint.
  // Errors: errno from bind/listen (EADDRINUSE when the whole range is taken).
  Result<tcp::endpoint> listen_passive(const asio::ip::address& local_address);
  // When set, accepted connections must come from this address (listen.require_data_peer_match).
  void set_expected_peer(std::optional<asio::ip::address> address) {
    expected_peer_ = std::move(address);
  }
  // False when a peer check is configured and `socket`'s peer is someone else.
  bool is_expected_peer(const tcp::socket& socket) const;
  // PORT/EPRT give one peer, SPOR several (one stripe each).
  void set_active(std::vector<tcp::endpoint> peers);
  bool is_configured() const { return is_passive() || is_active(); }
  bool is_passive() const { return acceptor_ != nullptr; }
  bool is_active() const { return !active_peers_.empty(); }
  const std::vector<tcp::endpoint>& active_peers() const { return active_peers_; }
  // Closes a pending listener or connection attempts (used by ABOR and at session end).
  void cancel();

  // Stream mode: accepts or connects one connection within `timeout`; the setup is consumed.
  // Errors: Condition::DataConnection.
  transport::awaitable<Result<SocketPtr>> open(std::chrono::seconds timeout);
  // MODE E sender: `per_peer` connections to every active peer, each on its own data loop.
  // Result is grouped by peer: all of peer 0's sockets, then peer 1's, ...
  transport::awaitable<Result<std::vector<SocketPtr>>> connect_streams(
      unsigned per_peer, std::chrono::seconds timeout);
  // MODE E receiver: the listener, which the receiver keeps accepting on until EOF accounting
  // completes. Consumes the passive setup.
  std::shared_ptr<tcp::acceptor> take_acceptor();
  // A socket on the next data loop, for accepting a MODE E stream.
  SocketPtr new_stream_socket();
  // SO_SNDBUF/SO_RCVBUF for the next data sockets (SBUF, listen.data_socket_buffer); 0 leaves
  // the kernel's autotuning alone. Applied to listeners before listen() and to outgoing sockets
  // before connect(), so the window scale offered in the SYN can use it.
  void set_socket_buffer(std::uint32_t bytes) { socket_buffer_bytes_ = bytes; }
  std::uint32_t socket_buffer() const { return socket_buffer_bytes_; }

 private:
  asio::any_io_executor executor_;
  transport::LoopPool& data_loops_;
  const ListenConfig& listen_;
  // Shared with open()'s watchdog; cancel() closes whichever is live so ABOR ends a pending open.
  std::shared_ptr<tcp::acceptor> acceptor_;
  std::vector<SocketPtr> opening_sockets_;
  std::vector<tcp::endpoint> active_peers_;
  std::optional<asio::ip::address> expected_peer_;
  std::uint32_t socket_buffer_bytes_ = 0;
};

}  // namespace gridftp::server
