#include "server/data/mode_e_streams.hpp"

#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "protocol/core/errors.hpp"
#include "protocol/mode_e/block_decoder.hpp"
#include "protocol/mode_e/block_header.hpp"
#include "server/data/disk_writer.hpp"
#include "server/data/stall_watch.hpp"
#include "transport/aligned_buffer.hpp"
#include "transport/deadline.hpp"
#include "transport/error_conversion.hpp"
#include "transport/file_send.hpp"
#include "transport/socket_stream.hpp"

namespace gridftp::server {
namespace {

namespace mode_e = protocol::mode_e;

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

Result<std::vector<std::shared_ptr<SenderShared>>> plan_stripe_senders(
    const protocol::mode_e::StripeLayout& layout, unsigned stripes, std::uint64_t total,
    const protocol::restart::ByteRangeSet& present, std::uint64_t block_bytes) {
  auto planners = protocol::mode_e::stripe_planners(layout, stripes, total, present, block_bytes);
  if (!planners) return make_error(planners.error());
  std::vector<std::shared_ptr<SenderShared>> senders;
  for (auto& planner : *planners)
    senders.push_back(std::make_shared<SenderShared>(std::move(planner)));
  return senders;
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

// One MODE E block piece: the header, the payload, and the trailer when this is the stream's last
// piece, with `more` on every write but the last so they leave in the same segments (or TLS
// records). A clear connection sends the payload of a regular file with sendfile when
// `use_sendfile` (no user-space copy); otherwise it is read through `buffer` a slice at a time,
// each sent (or sealed) while the read has left it in the core's cache. Returns the payload bytes
// sent.
transport::awaitable<Result<std::size_t>> send_piece(
    transport::ByteStream& bytes, const BlockSource& source, std::uint64_t wire_offset,
    std::size_t want, std::span<char> buffer, bool use_sendfile,
    std::optional<std::span<const std::uint8_t>> trailer, transport::Deadline& deadline) {
  const auto as_chars = [](std::span<const std::uint8_t> raw) {
    return std::span<const char>(reinterpret_cast<const char*>(raw.data()), raw.size());
  };
  const auto header = mode_e::encode_header({0, want, wire_offset});
  std::error_code ec;
  co_await bytes.write_all(as_chars(header), ec, true);
  std::size_t sent = 0;
  // sendfile feeds the socket beneath the stream, which a clear stream alone exposes.
  auto* const clear = bytes.clear_socket();
  bool staged = clear == nullptr || !use_sendfile || source.splice_descriptor() < 0;
  if (!ec && !staged) {
    boost::system::error_code send_ec;
    sent = co_await transport::async_send_file(*clear, source.splice_descriptor(),
                                               source.file_offset(wire_offset), want, send_ec);
    staged = sent == 0 && transport::is_sendfile_unsupported(send_ec);
    if (!staged && send_ec) ec = transport::to_error_code(send_ec);
  }
  while (!ec && staged && sent < want) {
    const auto slice_bytes =
        clear != nullptr ? transport::kClearSliceBytes : transport::kSealSliceBytes;
    const auto slice = buffer.first(std::min(want - sent, slice_bytes));
    auto got = source.read_at(wire_offset + sent, slice);
    if (!got) co_return make_error(got.error());
    if (*got < slice.size()) break;  // the file shrank
    sent += slice.size();
    co_await bytes.write_all(slice, ec, sent < want || trailer.has_value());
  }
  if (!ec && sent < want)
    co_return make_error(error_code_for(Condition::TransferFailed));  // file shrank
  if (!ec && trailer) co_await bytes.write_all(as_chars(*trailer), ec);
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
  const bool use_sendfile = transport::sendfile_wanted(limits.sendfile, *socket);
  transport::SocketStream bytes(*socket, stream->link);
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
          bytes, source, block->offset + sent, want, payload.span(), use_sendfile,
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
    std::error_code ec;
    co_await bytes.write_all({reinterpret_cast<const char*>(trailer.data()), trailer.size()}, ec);
    if (ec) outcome = make_error(data_socket_error(ec, *deadline));
  }
  deadline->stop();
  if (!outcome && on_failure) on_failure();
  co_return outcome;
}

namespace {

// One connection's receiving side. Payload is read straight into a page-aligned buffer, a block
// at a time (headers are read on their own, 17 bytes, so no read crosses into the next block),
// and blocks that continue each other (one stream's consecutive blocks, e.g. Globus's 256 KiB
// ones at -p 1) join one run. A run goes to the DiskWriter as one pwrite while the next one is
// read into the other buffer; it is recorded as received (111 markers, EOD accounting) only once
// written.
class StreamReceiver {
 public:
  static constexpr std::size_t kRunBytes = 1 << 20;

  StreamReceiver(DataStream& stream, std::shared_ptr<storage::Upload> upload,
                 ReceiverShared& shared, transport::Deadline& watch,
                 transport::asio::any_io_executor executor)
      : stream_(stream),
        bytes_(*stream.socket, stream.link),
        upload_(std::move(upload)),
        shared_(shared),
        watch_(watch),
        executor_(std::move(executor)),
        // One thread for all streams of a regular file (DiskWriter says why); a device such as
        // /dev/null has no inode lock to queue for, and one thread would only serialize them.
        writer_(upload_->writes_regular_file() ? shared.disk_thread : nullptr) {}

  // Reads and stores until this connection's EOD. Whatever was read is written even when the
  // connection fails, so a restart can go on from there.
  transport::awaitable<Result<void>> run(std::chrono::seconds stall_timeout) {
    Result<bool> at_eod = false;
    if (!stream_.pending.empty()) {
      const std::string early = std::exchange(stream_.pending, {});
      at_eod = co_await consume(early);
    }
    while (at_eod && !*at_eod) {
      const auto into = co_await next_window();
      if (!into) {
        at_eod = make_error(into.error());
        break;
      }
      watch_.expires_after(stall_timeout);
      std::error_code ec;
      const auto got = co_await bytes_.read_some(*into, ec);
      if (ec) {
        // A close before this connection's EOD loses whatever the sender still meant to send.
        at_eod = make_error(data_socket_error(ec, watch_));
        break;
      }
      at_eod = co_await consume(into->first(got));
    }
    if (!at_eod) {
      // What is already here still reaches the file; the connection's error is the one reported.
      static_cast<void>(co_await store_all());
      co_return make_error(at_eod.error());
    }
    co_return Result<void>{};
  }

 private:
  std::span<char> run_buffer() { return (*buffers_)[current_].span(); }

  // Where the next read goes: the rest of the current block's payload (after the run, when it
  // continues it; else in a fresh run), or the next header.
  transport::awaitable<Result<std::span<char>>> next_window() {
    const auto remaining = decoder_.payload_remaining();
    if (remaining == 0) {
      // Between blocks a full run goes to the writer; so does any run when no byte waits on
      // the socket (the read would wait anyway): a paused sender's last bytes, or those of one
      // waiting for 111 markers, reach the disk and the next marker.
      boost::system::error_code ec;
      if (run_bytes_ == kRunBytes || stream_.socket->available(ec) == 0) {
        if (auto handed = co_await hand_off(); !handed) co_return make_error(handed.error());
      }
      const auto needed = decoder_.header_bytes_needed();
      co_return std::span<char>(header_).subspan(header_.size() - needed);
    }
    const bool continues = run_bytes_ > 0 && decoder_.payload_offset() == run_offset_ + run_bytes_;
    if ((run_bytes_ > 0 && !continues) || run_bytes_ == kRunBytes) {
      if (auto handed = co_await hand_off(); !handed) co_return make_error(handed.error());
    }
    const auto space = kRunBytes - run_bytes_;
    co_return run_buffer().subspan(
        run_bytes_, static_cast<std::size_t>(std::min<std::uint64_t>(remaining, space)));
  }

  // Feeds bytes to the decoder until it needs more or this connection's EOD arrives; bytes after
  // the EOD belong to the next transfer and are kept in `stream.pending`.
  transport::awaitable<Result<bool>> consume(std::span<const char> input) {
    using Kind = mode_e::DecoderEvent::Kind;
    mode_e::DecoderEvent event;
    do {
      auto consumed = decoder_.next(input, event);
      if (!consumed) co_return make_error(consumed.error());
      input = input.subspan(*consumed);
      if (event.kind == Kind::Data) {
        if (auto kept = co_await keep(event.offset, event.payload); !kept)
          co_return make_error(kept.error());
      } else if (event.kind == Kind::Eof) {
        if (auto ok = shared_.on_eof(event.eod_count); !ok) co_return make_error(ok.error());
      } else if (event.kind == Kind::Eod) {
        if (auto stored = co_await store_all(); !stored) co_return make_error(stored.error());
        stream_.pending.assign(input.begin(), input.end());
        if (auto ok = shared_.on_eod(); !ok) co_return make_error(ok.error());
        co_return true;
      }
    } while (event.kind != Kind::NeedMore);
    co_return false;
  }

  // Payload read into the run buffer extends the run; bytes from elsewhere (what arrived with
  // the handshake) are written at once.
  transport::awaitable<Result<void>> keep(std::uint64_t offset, std::span<const char> payload) {
    if (payload.data() == run_buffer().data() + run_bytes_) {
      if (run_bytes_ == 0) run_offset_ = offset;
      run_bytes_ += payload.size();
      co_return Result<void>{};
    }
    if (auto stored = co_await store_all(); !stored) co_return stored;
    if (auto written = co_await writer_.write_at(*upload_, offset, payload, watch_); !written)
      co_return written;
    co_return record(offset, payload.size());
  }

  Result<void> record(std::uint64_t offset, std::uint64_t length) {
    if (auto ok = shared_.on_data(offset, length); !ok) return ok;
    if (shared_.bytes != nullptr) *shared_.bytes += length;
    return {};
  }

  // Waits for the write in flight (recorded by the writer's thread as it succeeded).
  transport::awaitable<Result<void>> finish_write() { co_return co_await writer_.finish(watch_); }

  // The run goes to the writer (after the previous write), and reading goes on in the other
  // buffer.
  transport::awaitable<Result<void>> hand_off() {
    if (auto finished = co_await finish_write(); !finished) co_return finished;
    if (run_bytes_ == 0) co_return Result<void>{};
    // The write keeps the buffers and the upload alive: the upload's disk thread is shared,
    // so no destructor here can wait for it.
    auto hold =
        std::make_shared<std::pair<std::shared_ptr<Buffers>, std::shared_ptr<storage::Upload>>>(
            buffers_, upload_);
    writer_.start(
        executor_, *upload_, run_offset_, run_buffer().first(run_bytes_),
        [this](std::uint64_t offset, std::size_t length) {
          if (auto ok = record(offset, length); !ok) record_failure_ = ok.error();
        },
        std::move(hold));
    current_ ^= 1;
    run_bytes_ = 0;
    co_return Result<void>{};
  }

  // Everything read is written and recorded.
  transport::awaitable<Result<void>> store_all() {
    auto handed = co_await hand_off();
    auto finished = co_await finish_write();
    if (!handed) co_return handed;
    if (!finished) co_return finished;
    if (record_failure_) co_return make_error(record_failure_);
    co_return Result<void>{};
  }

  using Buffers = std::array<transport::AlignedBuffer, 2>;

  DataStream& stream_;
  transport::SocketStream bytes_;  // the connection's bytes, through the seam
  std::shared_ptr<storage::Upload> upload_;
  ReceiverShared& shared_;
  transport::Deadline& watch_;
  transport::asio::any_io_executor executor_;
  mode_e::BlockDecoder decoder_;
  std::array<char, mode_e::kHeaderBytes> header_{};
  std::shared_ptr<Buffers> buffers_ = std::make_shared<Buffers>(
      Buffers{transport::AlignedBuffer(kRunBytes), transport::AlignedBuffer(kRunBytes)});
  std::size_t current_ = 0;
  std::uint64_t run_offset_ = 0;
  std::size_t run_bytes_ = 0;
  // Set on the writer's thread when recording a written run failed (data after this
  // connection's EOD count closed), read after finish_write() joined it.
  std::error_code record_failure_;
  DiskWriter writer_;
};

}  // namespace

transport::awaitable<Result<void>> receive_stream(DataStreamPtr stream,
                                                  std::shared_ptr<storage::Upload> upload,
                                                  std::shared_ptr<ReceiverShared> shared,
                                                  StreamLimits limits,
                                                  StreamFailureHook on_failure) {
  const auto& socket = stream->socket;
  const auto executor = co_await asio::this_coro::executor;
  auto deadline = close_on_stall(executor, *socket, limits.stall_timeout);
  Result<void> outcome = co_await prepare_link(*stream, limits, *deadline, false);
  stream->pending += stream->link.take_pending();  // PROT C: raw bytes that followed the handshake
  if (outcome) {
    StreamReceiver receiver(*stream, upload, *shared, *deadline, executor);
    outcome = co_await receiver.run(limits.stall_timeout);
  }
  deadline->stop();
  if (!outcome && on_failure) on_failure();
  co_return outcome;
}

}  // namespace gridftp::server
