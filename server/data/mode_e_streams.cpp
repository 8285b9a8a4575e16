#include "server/data/mode_e_streams.hpp"

#include <array>
#include <vector>

#include "protocol/core/errors.hpp"
#include "protocol/mode_e/block_decoder.hpp"
#include "protocol/mode_e/block_header.hpp"
#include "server/data/stall_watch.hpp"
#include "transport/deadline.hpp"

namespace gridftp::server {
namespace {

namespace mode_e = protocol::mode_e;
using transport::use_awaitable;

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

transport::awaitable<Result<void>> send_stream(DataStreamPtr stream, BlockSource source,
                                               std::shared_ptr<SenderShared> shared,
                                               std::optional<std::uint64_t> eof_count, StreamLimits limits,
                                               StreamFailureHook on_failure) {
  const auto& socket = stream->socket;
  auto deadline = close_on_stall(co_await asio::this_coro::executor, *socket, limits.stall_timeout);
  // One buffer per stream for the whole transfer: no allocation per block.
  std::vector<char> payload(limits.block_bytes);
  const auto trailer = mode_e::encode_header(eof_count ? mode_e::BlockHeader{mode_e::kDescriptorEof | mode_e::kDescriptorEod, 0, *eof_count}
                                                       : mode_e::BlockHeader{mode_e::kDescriptorEod, 0, 0});
  bool trailer_sent = false;
  Result<void> outcome;
  auto block = shared->next_block();
  while (block && outcome) {
    const auto next = shared->next_block();  // known ahead, so the last block can carry the trailer
    std::uint64_t sent = 0;
    while (sent < block->length) {
      const auto want = std::min<std::uint64_t>(block->length - sent, payload.size());
      auto got = source.read_at(block->offset + sent, {payload.data(), static_cast<std::size_t>(want)});
      if (!got) {
        outcome = make_error(got.error());
        break;
      }
      if (*got == 0) {
        outcome = make_error(error_code_for(Condition::TransferFailed));  // file shrank under us
        break;
      }
      const bool last_piece = !next && sent + *got == block->length;
      const auto header = mode_e::encode_header({0, *got, block->offset + sent});
      const std::array<asio::const_buffer, 3> buffers{asio::buffer(header), asio::buffer(payload.data(), *got),
                                                      asio::buffer(trailer.data(), last_piece ? trailer.size() : 0)};
      deadline->expires_after(limits.stall_timeout);
      boost::system::error_code ec;
      co_await asio::async_write(*socket, buffers, asio::redirect_error(use_awaitable, ec));
      if (ec) {
        outcome = make_error(data_socket_error(ec, *deadline));
        break;
      }
      trailer_sent = last_piece;
      sent += *got;
      if (shared->bytes != nullptr) *shared->bytes += *got;
    }
    block = next;
  }
  if (outcome && !trailer_sent) {
    deadline->expires_after(limits.stall_timeout);
    boost::system::error_code ec;
    co_await asio::async_write(*socket, asio::buffer(trailer), asio::redirect_error(use_awaitable, ec));
    if (ec) outcome = make_error(data_socket_error(ec, *deadline));
  }
  deadline->stop();
  if (!outcome && on_failure) on_failure();
  co_return outcome;
}

namespace {

// Feeds `input` to the decoder until it needs more or this connection's EOD arrives; bytes after
// the EOD belong to the next transfer and are kept in `stream.pending`.
Result<bool> consume(std::span<const char> input, mode_e::BlockDecoder& decoder, DataStream& stream,
                     storage::Upload& upload, ReceiverShared& shared) {
  using Kind = mode_e::DecoderEvent::Kind;
  mode_e::DecoderEvent event;
  do {
    auto consumed = decoder.next(input, event);
    if (!consumed) return make_error(consumed.error());
    input = input.subspan(*consumed);
    if (event.kind == Kind::Data) {
      if (auto ok = upload.write_at(event.offset, event.payload); !ok) return make_error(ok.error());
      if (auto ok = shared.on_data(event.offset, event.payload.size()); !ok) return make_error(ok.error());
      if (shared.bytes != nullptr) *shared.bytes += event.payload.size();
    } else if (event.kind == Kind::Eof) {
      if (auto ok = shared.on_eof(event.eod_count); !ok) return make_error(ok.error());
    } else if (event.kind == Kind::Eod) {
      stream.pending.assign(input.begin(), input.end());
      if (auto ok = shared.on_eod(); !ok) return make_error(ok.error());
      return true;
    }
  } while (event.kind != Kind::NeedMore);
  return false;
}

}  // namespace

transport::awaitable<Result<void>> receive_stream(DataStreamPtr stream, std::shared_ptr<storage::Upload> upload,
                                                  std::shared_ptr<ReceiverShared> shared, StreamLimits limits,
                                                  StreamFailureHook on_failure) {
  const auto& socket = stream->socket;
  auto deadline = close_on_stall(co_await asio::this_coro::executor, *socket, limits.stall_timeout);
  std::vector<char> buffer(limits.block_bytes);
  mode_e::BlockDecoder decoder;
  Result<bool> at_eod = false;
  if (!stream->pending.empty()) {
    const std::string early = std::exchange(stream->pending, {});
    at_eod = consume(early, decoder, *stream, *upload, *shared);
  }
  while (at_eod && !*at_eod) {
    deadline->expires_after(limits.stall_timeout);
    boost::system::error_code ec;
    const auto got = co_await socket->async_read_some(asio::buffer(buffer), asio::redirect_error(use_awaitable, ec));
    if (ec) {
      // A close before this connection's EOD loses whatever the sender still meant to send.
      at_eod = make_error(ec == asio::error::eof ? error_code_for(Condition::TransferFailed) : data_socket_error(ec, *deadline));
      break;
    }
    at_eod = consume({buffer.data(), got}, decoder, *stream, *upload, *shared);
  }
  deadline->stop();
  if (!at_eod && on_failure) on_failure();
  if (!at_eod) co_return make_error(at_eod.error());
  co_return Result<void>{};
}

}  // namespace gridftp::server
