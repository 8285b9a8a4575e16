#include "server/data/mode_e_streams.hpp"

#include <array>
#include <vector>

#include "protocol/core/errors.hpp"
#include "protocol/mode_e/block_decoder.hpp"
#include "protocol/mode_e/block_header.hpp"
#include "server/data/disk_writer.hpp"
#include "server/data/stall_watch.hpp"
#include "transport/aligned_buffer.hpp"
#include "transport/deadline.hpp"
#include "transport/file_send.hpp"

namespace gridftp::server {
namespace {

namespace mode_e = protocol::mode_e;
using transport::use_awaitable;

}  // namespace

namespace {

// The DCAU handshake, once per new connection (MODE E senders connect, receivers accept).
transport::awaitable<Result<void>> prepare_link(DataStream& stream, const StreamLimits& limits,
                                                transport::Deadline& deadline, bool we_connected) {
  if (stream.link_ready || !limits.security) co_return Result<void>{};
  deadline.expires_after(limits.stall_timeout);
  auto secured =
      co_await secure_data_link(stream.link, *stream.socket, *limits.security, we_connected);
  if (!secured) co_return make_error(stall_or(deadline, secured.error()));
  stream.link_ready = true;
  co_return Result<void>{};
}

}  // namespace

std::optional<mode_e::Block> SenderShared::next_block() {
  const std::lock_guard lock(mutex);
  return planner.next_block();
}

Result<void> ReceiverShared::on_data(std::uint64_t offset, std::uint64_t length) {
  const std::lock_guard lock(mutex);
  if (auto ok = tracker.on_data(); !ok) return ok;
  received.insert(offset, offset + length);
  return {};
}

Result<void> ReceiverShared::on_eod() {
  std::function<void()> notify;
  {
    const std::lock_guard lock(mutex);
    if (auto ok = tracker.on_eod(); !ok) return ok;
    if (tracker.is_complete() && !completion_reported) {
      completion_reported = true;
      notify = on_complete;
    }
  }
  if (notify) notify();
  return {};
}

Result<void> ReceiverShared::on_eof(std::uint64_t expected) {
  std::function<void()> notify;
  {
    const std::lock_guard lock(mutex);
    if (auto ok = tracker.on_eof(expected); !ok) return ok;
    if (tracker.is_complete() && !completion_reported) {
      completion_reported = true;
      notify = on_complete;
    }
  }
  if (notify) notify();
  return {};
}

bool ReceiverShared::is_complete() const {
  const std::lock_guard lock(mutex);
  return tracker.is_complete();
}

protocol::restart::ByteRangeSet ReceiverShared::received_ranges() const {
  const std::lock_guard lock(mutex);
  return received;
}

namespace {

// Well inside a core's L2 cache (512 KiB on the machines we measure on, docs/ARCHITECTURE.md).
constexpr std::size_t kSealSliceBytes = 128 * 1024;

// A block piece through TLS (PROT S/P): header, payload and trailer as plaintext records.
transport::awaitable<Result<std::size_t>> send_piece_tls(
    tcp::socket& socket, transport::DataLink& link, const BlockSource& source,
    std::uint64_t wire_offset, std::size_t want, std::span<char> buffer,
    std::span<const std::uint8_t> header, std::optional<std::span<const std::uint8_t>> trailer,
    transport::Deadline& deadline) {
  boost::system::error_code ec;
  co_await link.write_all(socket, {reinterpret_cast<const char*>(header.data()), header.size()}, ec,
                          true);
  // Read and seal the payload a slice at a time through the same bytes of `buffer`, so what the
  // read brought in is still in the core's cache when it is sealed.
  for (std::size_t done = 0; done < want && !ec;) {
    const auto slice = buffer.first(std::min(want - done, kSealSliceBytes));
    auto got = source.read_at(wire_offset + done, slice);
    if (!got) co_return make_error(got.error());
    if (*got < slice.size())
      co_return make_error(error_code_for(Condition::TransferFailed));  // file shrank
    done += slice.size();
    co_await link.write_all(socket, slice, ec, done < want || trailer.has_value());
  }
  if (!ec && trailer)
    co_await link.write_all(socket,
                            {reinterpret_cast<const char*>(trailer->data()), trailer->size()}, ec);
  if (ec) co_return make_error(data_socket_error(ec, deadline));
  co_return want;
}

// One MODE E block piece on a clear connection: the header, then the payload straight from a
// regular file with sendfile (no user-space copy; `buffer` stages everything else), and the trailer
// when this is the stream's last piece. MSG_MORE keeps header, payload and trailer in the same
// segments. Returns the payload bytes sent.
transport::awaitable<Result<std::size_t>> send_piece(
    tcp::socket& socket, transport::DataLink& link, const BlockSource& source,
    std::uint64_t wire_offset, std::size_t want, std::span<char> buffer,
    std::optional<std::span<const std::uint8_t>> trailer, transport::Deadline& deadline) {
  const auto as_chars = [](std::span<const std::uint8_t> bytes) {
    return std::span<const char>(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  };
  const auto header = mode_e::encode_header({0, want, wire_offset});
  boost::system::error_code ec;
  if (!link.is_clear())
    co_return co_await send_piece_tls(socket, link, source, wire_offset, want, buffer, header,
                                      trailer, deadline);
  co_await transport::async_send_all(socket, as_chars(header), true, ec);
  std::size_t sent = 0;
  bool staged = source.splice_descriptor() < 0;
  if (!ec && !staged) {
    sent = co_await transport::async_send_file(socket, source.splice_descriptor(),
                                               source.file_offset(wire_offset), want, ec);
    staged = sent == 0 && transport::is_sendfile_unsupported(ec);
    if (staged) ec.clear();
  }
  if (!ec && staged) {
    auto got = source.read_at(wire_offset, buffer.first(want));
    if (!got) co_return make_error(got.error());
    co_await transport::async_send_all(socket, buffer.first(*got), trailer.has_value(), ec);
    sent = *got;
  }
  if (!ec && sent < want)
    co_return make_error(error_code_for(Condition::TransferFailed));  // file shrank
  if (!ec && trailer) co_await transport::async_send_all(socket, as_chars(*trailer), false, ec);
  if (ec) co_return make_error(data_socket_error(ec, deadline));
  co_return sent;
}

}  // namespace

transport::awaitable<Result<void>> with_figures(DataStreamPtr stream,
                                                transport::awaitable<Result<void>> transfer) {
  auto outcome = co_await std::move(transfer);
  stream->figures = transport::read_socket_figures(*stream->socket);
  co_return outcome;
}

transport::awaitable<Result<void>> send_stream(DataStreamPtr stream, BlockSource source,
                                               std::shared_ptr<SenderShared> shared,
                                               std::optional<std::uint64_t> eof_count,
                                               StreamLimits limits, StreamFailureHook on_failure) {
  const auto& socket = stream->socket;
  auto deadline = close_on_stall(co_await asio::this_coro::executor, *socket, limits.stall_timeout);
  // Staging for in-memory sources (and files that cannot be spliced), one per stream for the
  // whole transfer: no allocation per block.
  transport::AlignedBuffer payload(limits.block_bytes);
  const auto trailer = mode_e::encode_header(
      eof_count
          ? mode_e::BlockHeader{mode_e::kDescriptorEof | mode_e::kDescriptorEod, 0, *eof_count}
          : mode_e::BlockHeader{mode_e::kDescriptorEod, 0, 0});
  bool trailer_sent = false;
  Result<void> outcome = co_await prepare_link(*stream, limits, *deadline, true);
  std::optional<protocol::mode_e::Block> block;
  if (outcome) block = shared->next_block();
  while (block && outcome) {
    const auto next = shared->next_block();  // known ahead, so the last block can carry the trailer
    std::uint64_t sent = 0;
    while (sent < block->length && outcome) {
      const auto want = static_cast<std::size_t>(
          std::min<std::uint64_t>(block->length - sent, limits.block_bytes));
      const bool last_piece = !next && sent + want == block->length;
      deadline->expires_after(limits.stall_timeout);
      auto piece = co_await send_piece(
          *socket, stream->link, source, block->offset + sent, want, payload.span(),
          last_piece ? std::optional<std::span<const std::uint8_t>>(trailer) : std::nullopt,
          *deadline);
      if (!piece) {
        outcome = make_error(piece.error());
        break;
      }
      trailer_sent = last_piece;
      sent += *piece;
      if (shared->bytes != nullptr) *shared->bytes += *piece;
    }
    block = next;
  }
  if (outcome && !trailer_sent) {
    deadline->expires_after(limits.stall_timeout);
    boost::system::error_code ec;
    co_await stream->link.write_all(
        *socket, {reinterpret_cast<const char*>(trailer.data()), trailer.size()}, ec);
    if (ec) outcome = make_error(data_socket_error(ec, *deadline));
  }
  deadline->stop();
  if (!outcome && on_failure) on_failure();
  co_return outcome;
}

namespace {

// Where the next read goes. Payload should land cache-line aligned, as the kernel's copy to user
// memory slows sharply otherwise: inside a payload, read to the buffer's start (taking the next
// header too); between blocks, read so that the header ends, and the payload begins, at byte 64.
std::span<char> read_window(const mode_e::BlockDecoder& decoder, transport::AlignedBuffer& buffer) {
  constexpr std::size_t kPayloadAlignment = 64;
  if (const auto remaining = decoder.payload_remaining(); remaining > 0) {
    return buffer.span().first(static_cast<std::size_t>(
        std::min<std::uint64_t>(remaining + mode_e::kHeaderBytes, buffer.size())));
  }
  return buffer.span().subspan(kPayloadAlignment - decoder.header_bytes_needed());
}

// Feeds `input` to the decoder until it needs more or this connection's EOD arrives; bytes after
// the EOD belong to the next transfer and are kept in `stream.pending`. Payload goes to disk
// through `writer`, off the data loop.
transport::awaitable<Result<bool>> consume(std::span<const char> input,
                                           mode_e::BlockDecoder& decoder, DataStream& stream,
                                           storage::Upload& upload, ReceiverShared& shared,
                                           DiskWriter& writer, const transport::Deadline& watch) {
  using Kind = mode_e::DecoderEvent::Kind;
  mode_e::DecoderEvent event;
  do {
    auto consumed = decoder.next(input, event);
    if (!consumed) co_return make_error(consumed.error());
    input = input.subspan(*consumed);
    if (event.kind == Kind::Data) {
      const auto written = co_await writer.write_at(upload, event.offset, event.payload, watch);
      if (!written) co_return make_error(written.error());
      if (auto ok = shared.on_data(event.offset, event.payload.size()); !ok)
        co_return make_error(ok.error());
      if (shared.bytes != nullptr) *shared.bytes += event.payload.size();
    } else if (event.kind == Kind::Eof) {
      if (auto ok = shared.on_eof(event.eod_count); !ok) co_return make_error(ok.error());
    } else if (event.kind == Kind::Eod) {
      stream.pending.assign(input.begin(), input.end());
      if (auto ok = shared.on_eod(); !ok) co_return make_error(ok.error());
      co_return true;
    }
  } while (event.kind != Kind::NeedMore);
  co_return false;
}

}  // namespace

transport::awaitable<Result<void>> receive_stream(DataStreamPtr stream,
                                                  std::shared_ptr<storage::Upload> upload,
                                                  std::shared_ptr<ReceiverShared> shared,
                                                  StreamLimits limits,
                                                  StreamFailureHook on_failure) {
  const auto& socket = stream->socket;
  auto deadline = close_on_stall(co_await asio::this_coro::executor, *socket, limits.stall_timeout);
  DiskWriter writer;
  transport::AlignedBuffer buffer(limits.block_bytes + 64);
  mode_e::BlockDecoder decoder;
  Result<bool> at_eod = false;
  if (auto ready = co_await prepare_link(*stream, limits, *deadline, false); !ready)
    at_eod = make_error(ready.error());
  stream->pending += stream->link.take_pending();  // PROT C: raw bytes that followed the handshake
  if (at_eod && !stream->pending.empty()) {
    const std::string early = std::exchange(stream->pending, {});
    at_eod = co_await consume(early, decoder, *stream, *upload, *shared, writer, *deadline);
  }
  while (at_eod && !*at_eod) {
    deadline->expires_after(limits.stall_timeout);
    boost::system::error_code ec;
    const auto into = read_window(decoder, buffer);
    const auto got = co_await stream->link.read_some(*socket, into, ec);
    if (ec) {
      // A close before this connection's EOD loses whatever the sender still meant to send.
      at_eod = make_error(data_socket_error(ec, *deadline));
      break;
    }
    at_eod =
        co_await consume(into.first(got), decoder, *stream, *upload, *shared, writer, *deadline);
  }
  deadline->stop();
  if (!at_eod && on_failure) on_failure();
  if (!at_eod) co_return make_error(at_eod.error());
  co_return Result<void>{};
}

}  // namespace gridftp::server
