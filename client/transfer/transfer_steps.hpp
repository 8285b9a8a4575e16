// Steps that get, put and third-party transfers share (docs/WIRE.md §1.5): preparing TYPE, MODE and
// the data-channel security, starting a stream-mode transfer on a (secured) connection, and the
// -verify-checksum digests before and after, reading a stream-mode connection to its end.
// Internal to the transfer files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/session/session.hpp"
#include "client/transfer/transfer.hpp"
#include "client/transfer/transfer_plan.hpp"

namespace gridftp::client {

// TYPE I, then MODE E or S, the buffer size (-tcp-bs), then DCAU/PBSZ/PROT on gsiftp
// (docs/WIRE.md §1.5: TYPE → MODE → CKSM/SIZE → buffer size → … → DCAU → PBSZ → PROT →
// PASV/PORT). A server without MODE E turns -p into stream mode: `options.parallelism` is
// then cleared, and options.on_shape hears of the one stream.
Result<void> prepare_session(Session& session, TransferOptions& options);

// Reads a stream-mode data connection to its end into `sink(bytes)` (which returns Result<void>)
// in pieces of at most kDrainChunkBytes; returns the byte count. Errors: the connection's and
// the sink's.
inline constexpr std::size_t kDrainChunkBytes = std::size_t{256} * 1024;
template <typename Sink>
Result<std::uint64_t> drain(DataConnection& data, Sink&& sink) {
  std::vector<char> buffer(kDrainChunkBytes);
  std::uint64_t total = 0;
  for (;;) {
    auto count = data.read_some(buffer);
    if (!count) {
      return make_error(count.error());
    }
    if (*count == 0) {
      return total;
    }
    if (auto written = sink(std::string_view(buffer.data(), *count)); !written) {
      return make_error(written.error());
    }
    total += *count;
  }
}

// What a batch (docs/WIRE.md §7) runs on: `options` in stream mode, since a batch is one
// stream-mode connection whatever -p says for single files, or one UDPX stream with -udp.
TransferOptions batch_options(const TransferOptions& options);

// Sends `command` (RETR, STOR, MLSD, …) for a stream-mode transfer on `data` and waits for its
// 1xx. On a secured session the data handshake runs meanwhile on its own thread: a Globus server
// starts it only once the command is in (docs/WIRE.md §5.7), and a refusal must not leave us
// waiting for a handshake that never comes. Errors: those of Session::begin_transfer and
// DataConnection::secure.
Result<ParsedReply> begin_stream_transfer(Session& session, DataConnection& data,
                                          const std::string& command);

// Digest of the source before the transfer: CKSM on a server (`session`), computed locally when
// `session` is null. nullopt without -verify-checksum.
Result<std::optional<std::string>> source_checksum(Session* session, const std::string& path,
                                                   const std::optional<PartialRange>& range,
                                                   const TransferOptions& options);

// CKSM on the destination after its 226, compared with `expected` (nothing when nullopt).
// Errors: ClientErrc::ChecksumMismatch, and those of Session::checksum().
Result<void> verify_remote(Session& session, const std::string& path,
                           const std::optional<PartialRange>& range,
                           const std::optional<std::string>& expected,
                           const TransferOptions& options);

}  // namespace gridftp::client
