#include "server/data/batch_transfer.hpp"

#include <string>

#include "server/data/disk_writer.hpp"
#include "server/data/stall_watch.hpp"
#include "transport/aligned_buffer.hpp"
#include "transport/error_conversion.hpp"

namespace gridftp::server {
namespace {

namespace asio = transport::asio;

// Records are gathered into writes of about this size: many small files per TLS record batch
// and per syscall.
constexpr std::size_t kWriteBytes = 256 << 10;

}  // namespace

transport::awaitable<Result<void>> send_batch(transport::ByteStream& stream, BatchSource& source,
                                              std::chrono::seconds stall_timeout,
                                              TransferProgress& progress) {
  auto deadline = close_on_stall(stream, stall_timeout);
  std::string out;
  out.reserve(kWriteBytes + std::size_t{64} * 1024);
  Result<void> outcome;
  for (bool ended = false; !ended;) {
    out.clear();
    auto filled = source.encoder.fill(out, kWriteBytes);
    if (!filled) {
      outcome = make_error(filled.error());
      break;
    }
    ended = *filled;
    outcome =
        co_await write_all(stream, out.data(), out.size(), *deadline, stall_timeout, progress);
    if (!outcome) break;
  }
  deadline->stop();
  co_return outcome;
}

transport::awaitable<Result<void>> receive_batch(transport::ByteStream& stream, BatchSink& sink,
                                                 std::chrono::seconds stall_timeout,
                                                 TransferProgress& progress) {
  using Kind = protocol::batch::BatchEvent::Kind;
  auto deadline = close_on_stall(stream, stall_timeout);
  DiskWriter writer;
  transport::AlignedBuffer buffer(kWriteBytes);
  Result<void> outcome;
  while (outcome) {
    deadline->expires_after(stall_timeout);
    std::error_code ec;
    const auto got = co_await stream.read_some(buffer.span(), ec);
    if (ec == transport::TransportErrc::EndOfStream) {
      outcome = sink.decoder().finish();
      break;
    }
    if (ec) {
      outcome = make_error(data_socket_error(ec, *deadline));
      break;
    }
    progress.bytes += got;
    std::span<const char> input(buffer.data(), got);
    protocol::batch::BatchEvent event;
    do {
      auto used = sink.decoder().next(input, event);
      if (!used) {
        outcome = make_error(used.error());
        break;
      }
      input = input.subspan(*used);
      if (event.kind == Kind::Data) {
        if (auto written =
                co_await writer.write_at(*sink.upload(), sink.position(), event.payload, *deadline);
            !written) {
          outcome = make_error(written.error());
          break;
        }
        sink.wrote(event.payload);
      } else if (auto handled = sink.handle(event); !handled) {
        outcome = handled;
        break;
      }
    } while (event.kind != Kind::NeedMore);
  }
  if (!outcome) sink.abort();
  deadline->stop();
  co_return outcome;
}

Result<void> take_batch_bytes(BatchSink& sink, std::span<const char> input) {
  using Kind = protocol::batch::BatchEvent::Kind;
  protocol::batch::BatchEvent event;
  do {
    auto used = sink.decoder().next(input, event);
    if (!used) return make_error(used.error());
    input = input.subspan(*used);
    if (event.kind == Kind::Data) {
      if (auto written = sink.upload()->write_at(sink.position(), event.payload); !written)
        return written;
      sink.wrote(event.payload);
    } else if (auto handled = sink.handle(event); !handled) {
      return handled;
    }
  } while (event.kind != Kind::NeedMore);
  return {};
}

}  // namespace gridftp::server
