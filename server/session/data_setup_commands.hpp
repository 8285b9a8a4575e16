// Where the next data connections go: PASV EPSV PORT EPRT (RFC 959 §4.1.2, RFC 2428), the
// striped SPAS SPOR and their socket buffers, SBUF (GFD.20). Each new address drops the cached
// MODE E connections (StreamCache). It reaches the data channels it sets up (TCP's DataChannel, or
// UdpxChannel once SITE SETNETSTACK chose UDPX), the [listen] settings, the control connection's
// addresses (PASV's address, the FTP bounce check) and the replies; the transfers then use what it
// set up.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "protocol/core/result.hpp"
#include "server/config/server_config.hpp"
#include "server/data/data_channel.hpp"
#include "server/data/udpx_channel.hpp"
#include "server/session/control_endpoints.hpp"
#include "server/session/session_replies.hpp"
#include "server/session/stream_cache.hpp"
#include "server/striping/mover_stripes.hpp"
#include "transport/asio.hpp"

namespace spdlog {
class logger;
}

namespace gridftp::server {

// The data channels a DataSetupCommands sets up, and the cache a new address empties.
struct DataChannels {
  DataChannel& tcp;
  UdpxChannel& udpx;
  StreamCache& cached_streams;
  // A frontend's movers: SPAS and SPOR set them up instead of `tcp` (docs/STRIPING.md). Null or
  // not enabled: this server moves its own data.
  striping::MoverStripes* movers = nullptr;
};

class DataSetupCommands {
 public:
  // `executor` is the session strand (a UDPX socket is bound on it); `tag` prefixes this
  // session's log lines ("[s7]").
  DataSetupCommands(DataChannels channels, const ListenConfig& listen,
                    const ControlEndpoints& endpoints, transport::asio::any_io_executor executor,
                    SessionReplies& replies, std::shared_ptr<spdlog::logger> log, std::string tag);
  DataSetupCommands(const DataSetupCommands&) = delete;
  DataSetupCommands& operator=(const DataSetupCommands&) = delete;

  transport::awaitable<void> on_pasv(const std::string& argument);
  transport::awaitable<void> on_epsv(const std::string& argument);
  transport::awaitable<void> on_port(const std::string& argument);
  transport::awaitable<void> on_eprt(const std::string& argument);
  transport::awaitable<void> on_spas(const std::string& argument);
  transport::awaitable<void> on_spor(const std::string& argument);
  // SBUF (GFD.20): the socket buffer size of the next data connections.
  transport::awaitable<void> on_sbuf(const std::string& argument);
  // SPAS on a frontend: every mover listens, one stripe each.
  transport::awaitable<void> listen_on_movers();
  // PASV on a frontend that hands unstriped transfers to its movers: the session's mover
  // listens (docs/STRIPING.md).
  transport::awaitable<void> listen_on_session_mover();

 private:
  // [listen] data_interface, else the control connection's local address.
  transport::asio::ip::address data_address() const;
  // PASV/EPSV and PORT/EPRT for whichever data channel is chosen (TCP, or UDPX). The port bound.
  Result<std::uint16_t> listen_passive(const transport::asio::ip::address& address);
  void set_active_peer(const transport::asio::ip::address& address, std::uint16_t port);
  // This session's unstriped transfers run on a mover (a frontend, not hybrid; not UDPX).
  bool on_session_mover() const;
  // PORT and EPRT once their argument parsed: the peer refused (refuse_active_peer) or taken,
  // and the reply either way.
  void take_active_peer(const char* verb, const std::string& argument,
                        const transport::asio::ip::address& address, std::uint16_t port);
  // Why an active data connection to `address`:`port` (PORT, EPRT, SPOR) is refused, or
  // nothing when it is allowed: never a privileged port, and with require_data_peer_match
  // only the control peer's address (RFC 2577 §3, the FTP bounce).
  std::optional<std::string> refuse_active_peer(const transport::asio::ip::address& address,
                                                std::uint16_t port) const;

  DataChannels channels_;
  const ListenConfig& listen_;
  const ControlEndpoints& endpoints_;
  const transport::asio::any_io_executor executor_;
  SessionReplies& replies_;
  std::shared_ptr<spdlog::logger> log_;
  const std::string tag_;
};

}  // namespace gridftp::server
