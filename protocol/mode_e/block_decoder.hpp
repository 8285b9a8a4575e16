// Incremental MODE E decoder for ONE data connection (GFD.20 "Extended Block Mode"; docs/WIRE.md
// §2.3). It turns bytes into Data/Eof/Eod/Close events without copying payload; it does not count
// EODs across connections (eod_tracker does) and does no I/O.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/core/result.hpp"
#include "protocol/mode_e/block_header.hpp"

namespace gridftp::protocol::mode_e {

struct DecoderEvent {
  enum class Kind { NeedMore, Data, Eod, Eof, Close } kind = Kind::NeedMore;
  std::uint64_t offset = 0;       // Data: absolute offset of payload[0]
  std::span<const char> payload;  // Data: a view into the caller's input; may be part of a block
  std::uint64_t eod_count = 0;    // Eof: the EOD count the sender announced
};

// Events one header produces, always in this order:
//   Data (count > 0, not EOF; one event per input chunk the payload arrives in)
//   Eof  (EOF flag; eod_count = the header's offset field; any payload is skipped unread, as
//         Globus does; see globus_ftp_control_data.c)
//   Eod  (EOD flag; for the usual 0x48 header this follows the Eof: it is this connection's EOD)
//   Close (CLOSE flag)
// A header with no flags and count 0 produces no event. EOR is ignored. After Eod the connection
// may carry the next transfer's blocks (connection reuse); the decoder simply continues.
class BlockDecoder {
 public:
  // Consumes bytes from the front of `input` and reports at most one event. Returns how many
  // bytes were consumed; the caller passes the rest (plus new bytes) to the next call.
  // NeedMore is reported only when all of `input` has been consumed. An event may be reported
  // with 0 bytes consumed when it was queued by an earlier header (Eod after Eof), so callers
  // loop until NeedMore:
  //   do { n = next(in, ev); in = in.subspan(*n); handle(ev); } while (ev.kind != NeedMore);
  // Header bytes split across calls are buffered here (17 bytes at most); payload never is.
  // Errors (sticky: every later call returns the same error):
  //   Errc::UnknownDescriptor  descriptor bit 0x01 or 0x02
  //   Errc::SuspectData        ERR (0x20): we will not write data the sender calls bad
  //   Errc::RestartBlock       RESTART (0x10), forbidden in MODE E by GFD.20
  //   Errc::OffsetOutOfRange   a non-EOF header whose offset + count overflows or exceeds 2^63
  //   Errc::DataAfterClose     any byte after a CLOSE header
  Result<std::size_t> next(std::span<const char> input, DecoderEvent& event);

  // True when no header or payload is partly consumed and no event is queued, i.e. the peer may
  // close the connection here without losing anything.
  bool at_block_boundary() const;

  // Where the decoder stands, so a reader can size and place its next read: payload bytes left
  // in the current block (0 between blocks), and header bytes still missing (0 inside payload).
  std::uint64_t payload_remaining() const { return payload_remaining_; }
  std::size_t header_bytes_needed() const {
    return payload_remaining_ > 0 ? 0 : kHeaderBytes - header_have_;
  }
  // The file offset of the next payload byte (meaningful while payload_remaining() > 0), so a
  // reader can tell before reading it whether a block continues the bytes it holds.
  std::uint64_t payload_offset() const { return payload_offset_; }

  // True after a CLOSE header was reported.
  bool is_closed() const { return closed_; }

 private:
  Result<void> start_block();
  bool take_pending(DecoderEvent& event);

  std::array<std::uint8_t, kHeaderBytes> header_bytes_{};
  std::size_t header_have_ = 0;
  std::uint64_t payload_remaining_ = 0;
  std::uint64_t payload_offset_ = 0;
  std::uint8_t pending_ = 0;  // EOF, EOD and CLOSE flags still to report after the payload
  std::uint64_t pending_eod_count_ = 0;
  bool closed_ = false;
  std::error_code failed_;
};

}  // namespace gridftp::protocol::mode_e
