// Runs one end of a UDPX transfer (a DataSender or a DataReceiver) over its DatagramSocket on
// the calling thread, until the transfer ends (docs/UDPX.md §5). Each turn: receive a batch,
// open each datagram (forged, replayed and malformed ones are dropped and counted), hand it to
// the endpoint; collect what the endpoint has due into a batch of send buffers and send them;
// then sleep until the endpoint's next deadline or a datagram arrives, whichever is first. The
// endpoint's own clock paces it; the thread is dedicated to the connection, so the wait is a
// plain ppoll on the socket with a microsecond timeout.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "protocol/core/result.hpp"
#include "transport/udpx/data_receiver.hpp"
#include "transport/udpx/data_sender.hpp"
#include "transport/udpx/datagram_socket.hpp"
#include "transport/udpx/handshake.hpp"
#include "transport/udpx/packet_path.hpp"

namespace gridftp::transport::udpx {

// A limit on a transfer's rate that changes while it runs (the server-wide UDPX cap's share):
// polled by the endpoint's thread, so it must be cheap and thread-safe.
class RateCeiling {
 public:
  virtual ~RateCeiling() = default;
  virtual double bytes_per_second() const = 0;  // 0: no limit now
};

struct RunOutcome {
  // A sender reached Done; a receiver wrote every block (its CLOSE may still await the ACK).
  bool completed = false;
  wire::CloseCode code = wire::CloseCode::Ok;
  Microseconds elapsed = 0;
  std::uint64_t datagrams_in = 0;
  std::uint64_t datagrams_out = 0;
  std::uint64_t dropped = 0;  // malformed, forged or replayed
};

struct RunLimits {
  Microseconds idle_timeout = 30'000'000;   // no authenticated packet for this long: give up
  const std::atomic<bool>* stop = nullptr;  // set from another thread to abort
  // Optional, shared with the control side: file bytes moved so far (published each turn),
  // and a new rate in bytes/s (SITE UDPX RATE; 0 leaves it): a sender's target, a receiver's
  // cap on what it asks its sender for.
  std::atomic<std::uint64_t>* progress = nullptr;
  const std::atomic<double>* target_rate = nullptr;
  const RateCeiling* ceiling = nullptr;  // optional, held to on top of the rate asked
  // Optional: called once, on the endpoint's thread, as soon as the outcome is known (a sender
  // done or failed; a receiver with every block written and its CLOSE sent, or failed), before
  // the run stays on for its peer's sake (docs/UDPX.md §6). The outcome passed is final.
  std::function<void(const RunOutcome&)> on_settled;
};

// Microseconds on the monotonic clock: the time every UDPX endpoint runs on.
Microseconds monotonic_now();

// Runs the handshake until it is Ready or Failed (outcome.completed says which). `peer` is the
// active side's destination; the passive side learns it from the HELLO and returns it in
// `peer` (knowing the keys is the authentication, docs/UDPX.md §4.1).
RunOutcome run_handshake(DatagramSocket& socket, Handshake& handshake,
                         std::optional<udp::endpoint>& peer, const RunLimits& limits = {});

// Then the transfer, over the handshake's path. On the passive side `handshake` answers a
// HELLO repeated because its HELLO_ACK was lost; the active side passes nullptr.
RunOutcome run_sender(DatagramSocket& socket, PacketPath& path, DataSender& sender,
                      std::optional<udp::endpoint> peer, const RunLimits& limits = {},
                      Handshake* handshake = nullptr);
RunOutcome run_receiver(DatagramSocket& socket, PacketPath& path, DataReceiver& receiver,
                        std::optional<udp::endpoint> peer, const RunLimits& limits = {},
                        Handshake* handshake = nullptr);

}  // namespace gridftp::transport::udpx
