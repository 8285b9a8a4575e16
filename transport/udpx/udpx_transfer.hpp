// One whole UDPX transfer, as gridftpd and gridcp both run it (docs/UDPX.md §6, §8): the
// handshake (TLS in KEY_EXCHANGE packets, then HELLO/HELLO_ACK), then this end's half of the
// transfer, sending or receiving, on a thread of its own; the caller's coroutine waits for it
// without blocking its event loop and may stop it or change its rate meanwhile.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "protocol/udpx/transfer_figures.hpp"
#include "transport/asio.hpp"
#include "transport/udpx/data_receiver.hpp"
#include "transport/udpx/data_sender.hpp"
#include "transport/udpx/datagram_socket.hpp"
#include "transport/udpx/endpoint_runner.hpp"
#include "transport/udpx/handshake.hpp"

namespace gridftp::transport::udpx {

struct UdpxTransferSpec {
  Side side = Side::Active;           // Active: we were given the peer's address (PORT)
  std::optional<udp::endpoint> peer;  // Active: where the passive side listens
  InBandTls tls;                      // DCAU's TLS, run in the handshake
  wire::HelloBody offer;              // our rates, policy and protection
  // Exactly one of these: we send the blocks of `shape` from `source`, or receive into `sink`.
  std::unique_ptr<BlockSource> source;
  TransferShape shape;
  std::unique_ptr<BlockSink> sink;
  // Tuning beyond the offer; target, minimum, policy and protection come from `offer`.
  SenderSettings sender;
  ReceiverSettings receiver;
  Microseconds idle_timeout = 30'000'000;
  // Optional: a limit held on top of the rate while it runs (a server's aggregate cap share).
  std::shared_ptr<const RateCeiling> ceiling;
};

// What the transfer log, SITE UDPX STAT and gridcp report (docs/UDPX.md §8).
struct UdpxTransferReport {
  // Where it ended, for the reply: no handshake (425), a refused identity (425 as over TCP),
  // a transfer broken after the handshake (426).
  enum class Failure { None, Handshake, PeerIdentity, Transfer };

  bool ok = false;
  Failure failure = Failure::None;
  std::string error;  // why not, in words
  // The source's or sink's own error, when one ended the transfer (a batch's decoder or
  // encoder, a file's read or write).
  std::error_code storage_error;
  wire::CloseCode code = wire::CloseCode::Ok;
  std::string peer_identity;
  std::uint64_t base = 0;  // where the transfer began in the file
  double seconds = 0;      // data phase, handshake excluded
  // Bytes (the sender counts what the receiver acknowledged), rates and costs: the sender
  // knows loss and sending cost, the receiver receiving cost.
  wire::TransferFigures figures;
};

// Live figures a running transfer publishes for the control side.
struct UdpxLive {
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<double> target_rate{0};  // bytes/s asked for mid-transfer (0: no change)
  std::atomic<bool> stop{false};
};

// Called once with the report as soon as the transfer's outcome is known.
using SettledCallback = std::function<void(const UdpxTransferReport&)>;

// Runs on the calling thread until the transfer ends. `live` may be null. `on_settled` gets the
// report when the outcome is known; the call itself returns (with the same report) once the end
// has stayed on for its peer: a receiver until its CLOSE is acknowledged, a sender while the
// receiver may still repeat its CLOSE (docs/UDPX.md §6). `live->stop` cuts that short.
UdpxTransferReport run_udpx_transfer(DatagramSocket& socket, UdpxTransferSpec& spec, UdpxLive* live,
                                     const SettledCallback& on_settled = {});

// The same on a thread of its own; the awaiting coroutine resumes on its executor with the report
// as soon as the outcome is known, while the thread may stay on a little for the peer.
// `live` outlives the transfer (shared with the thread).
awaitable<UdpxTransferReport> run_udpx_transfer_on_thread(DatagramSocket socket,
                                                          UdpxTransferSpec spec,
                                                          std::shared_ptr<UdpxLive> live);

}  // namespace gridftp::transport::udpx
