// Moving a batch (BRET, BSTO; docs/WIRE.md §7) over one stream-mode data connection: the records of
// many files go out in large writes, so a small file costs a few hundred bytes of a write, not
// a data connection, a handshake and a reply of its own.
#pragma once

#include <chrono>

#include "protocol/core/result.hpp"
#include "server/data/batch_sink.hpp"
#include "server/data/storage_tree_reader.hpp"
#include "server/data/stream_transfer.hpp"

namespace gridftp::server {

// Sends every record of `source`. Errors: those of BatchSource::fill(), socket errors, and
// Condition::DataConnection on a stall past `stall_timeout`.
transport::awaitable<Result<void>> send_batch(transport::ByteStream& stream, BatchSource& source,
                                              std::chrono::seconds stall_timeout,
                                              TransferProgress& progress);

// Receives a batch into `sink` until the peer closes, the file bytes written off this thread
// (DiskWriter). Errors: those of BatchSink::handle(), the decoder's (Errc::Truncated when the
// end record never came), socket errors, Condition::TransferAborted on a stall past
// `stall_timeout` and Condition::DiskStalled when a disk write outlasted it.
transport::awaitable<Result<void>> receive_batch(transport::ByteStream& stream, BatchSink& sink,
                                                 std::chrono::seconds stall_timeout,
                                                 TransferProgress& progress);

// The next bytes of a batch that arrives in order over UDPX (transport/udpx/stream_blocks),
// decoded and written on the calling thread, the UDPX engine's. Errors: those of
// BatchSink::handle(), the decoder's and the file's writes.
Result<void> take_batch_bytes(BatchSink& sink, std::span<const char> input);

}  // namespace gridftp::server
