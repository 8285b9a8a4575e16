// The reliable byte stream that carries a TLS handshake inside UDPX's KEY_EXCHANGE packets
// (docs/UDPX.md §1.10, §4.1), as QUIC carries TLS in CRYPTO frames (RFC 9000 §19.6): each side's
// handshake bytes have offsets from 0; a packet carries how much of the peer's stream we hold
// without a gap, and a run of our bytes at an offset. Bytes not acknowledged are sent again
// after a retransmission timeout that doubles each time. Flights are a few kilobytes, so both
// sides simply keep everything. Pure: time is an argument, bytes in and out are the caller's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "protocol/core/result.hpp"
#include "protocol/udpx/packet_header.hpp"

namespace gridftp::protocol::udpx {

struct KeyExchangeBody {
  std::uint64_t acknowledged = 0;  // bytes of the peer's stream received without a gap
  std::uint64_t offset = 0;        // where `bytes` sit in the sender's stream
  std::span<const std::uint8_t> bytes;
};

Result<std::size_t> encode_key_exchange(const KeyExchangeBody& body, std::span<std::uint8_t> out);
// Errors: Truncated.
Result<KeyExchangeBody> decode_key_exchange(std::span<const std::uint8_t> body);

class KeyExchangeStream {
 public:
  static constexpr Microseconds kFirstTimeout = 250'000;
  static constexpr int kMaxTimeouts = 6;  // 250 ms doubling: about 16 s of silence
  static constexpr std::uint64_t kMaxStreamBytes =
      std::uint64_t{256} * 1024;  // certificate chains included

  // Our handshake's next bytes, to go out after what was appended before.
  void append(std::span<const char> bytes) { outgoing_.append(bytes.data(), bytes.size()); }
  // A peer's packet. Returns false for one that cannot belong to a sane handshake (bytes
  // beyond kMaxStreamBytes, an acknowledgement of bytes we never sent).
  bool on_body(const KeyExchangeBody& body, Microseconds now);
  // The peer's bytes that arrived in order since the last call.
  std::string take_received();

  // What to send now, if anything: a body with up to `max_bytes` of our stream (possibly
  // none, only to acknowledge). The caller seals and sends it, then calls sent().
  bool has_due(Microseconds now) const;
  KeyExchangeBody next_body(std::size_t max_bytes, Microseconds now);
  Microseconds next_wakeup(Microseconds now) const;

  bool all_acknowledged() const { return acknowledged_ == outgoing_.size(); }
  bool failed() const { return timeouts_ > kMaxTimeouts; }

 private:
  bool timed_out(Microseconds now) const;

  std::string outgoing_;
  std::uint64_t acknowledged_ = 0;   // of ours, by the peer
  std::uint64_t next_send_ = 0;      // first byte not yet sent since the last timeout
  Microseconds last_progress_ = -1;  // when we last sent new bytes or the peer acknowledged
  Microseconds timeout_ = kFirstTimeout;
  int timeouts_ = 0;

  std::string received_;  // the peer's stream, in order, not yet taken
  std::uint64_t received_end_ = 0;
  std::map<std::uint64_t, std::string> early_;  // runs beyond a gap
  bool owe_ack_ = false;
};

}  // namespace gridftp::protocol::udpx
