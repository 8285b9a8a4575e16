#include "client/data/udpx_data.hpp"

#include <future>
#include <thread>

#include "client/client_errors.hpp"
#include "client/data/mode_e_transfer.hpp"
#include "client/data/udpx_path_memory.hpp"
#include "protocol/control/net_stack.hpp"
#include "protocol/core/errors.hpp"
#include "transport/udpx/file_blocks.hpp"
#include "transport/udpx/restart_blocks.hpp"
#include "transport/udpx/stream_blocks.hpp"
#include "transport/udpx/udpx_transfer.hpp"

namespace gridftp::client {
namespace {

namespace udpx = transport::udpx;

class StagedFileSink final : public udpx::BlockSink {
 public:
  explicit StagedFileSink(const StagedFile& staged) : staged_(staged) {}
  Result<void> write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) override {
    return staged_.write_at(
        offset, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }

 private:
  const StagedFile& staged_;
};

class LocalFileSource final : public udpx::BlockSource {
 public:
  LocalFileSource(const LocalSource& source, std::uint64_t end) : source_(source), end_(end) {}
  Result<std::size_t> read_at(std::uint64_t offset, std::span<std::uint8_t> out) override {
    if (offset >= end_) return std::size_t{0};
    const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), end_ - offset));
    auto read = source_.read_at(offset, std::span(reinterpret_cast<char*>(out.data()), count));
    if (!read) return make_error(read.error());
    return count;
  }

 private:
  const LocalSource& source_;
  std::uint64_t end_;
};

// The active side's key exchange: DCAU's TLS with our credential, expecting our own identity
// back; without DCAU (--udp-unauthenticated) unauthenticated TLS (docs/UDPX.md §4.1).
Result<udpx::InBandTls> key_exchange(const DataChannelSecurity& security) {
  if (!security.credentials) return udpx::unauthenticated_tls(udpx::Side::Active);
  return udpx::dcau_tls(
      security.credentials->data_context(security::TlsRole::Client, security.protection),
      udpx::Side::Active, security.credentials->identity());
}

// Everything but the file: the active side's key exchange with our credential, rates and
// protection as asked. Errors: UdpxNeedsDcau, and the handshake's creation errors.
Result<udpx::UdpxTransferSpec> active_spec(Session& session,
                                           const protocol::control::HostPort& server,
                                           const UdpxRequest& request) {
  const auto security = session.data_channel_security();
  if (!security.credentials && !request.unauthenticated)
    return make_error(make_error_code(ClientErrc::UdpxNeedsDcau));
  auto tls = key_exchange(security);
  if (!tls) return make_error(tls.error());
  boost::system::error_code ec;
  const auto address = transport::asio::ip::make_address(server.address, ec);
  if (ec) return make_error(make_error_code(protocol::Errc::BadHostPort));
  udpx::UdpxTransferSpec spec;
  spec.side = udpx::Side::Active;
  spec.peer = udpx::udp::endpoint(address, server.port);
  spec.tls = std::move(*tls);
  spec.offer.target_rate_bps = request.rate_bps.value_or(0);
  spec.offer.min_rate_bps = request.min_bps.value_or(0);
  spec.offer.policy = protocol::control::parse_policy(request.policy.value_or("fair"))
                          .value_or(protocol::udpx::Policy::Fair);
  spec.offer.encrypt = security.protection == security::DataProtection::Private;
  spec.shape.transfer_id = 1;
  spec.shape.block_bytes = static_cast<std::size_t>(spec.offer.max_udp_payload) - 48;
  spec.idle_timeout =
      std::chrono::duration_cast<std::chrono::microseconds>(session.options().data_timeout).count();
  spec.idle_timeout = std::min<udpx::Microseconds>(spec.idle_timeout, 30'000'000);
  return spec;
}

// PASV, the transfer command, the engine (progress from its live counter) and, while its key
// exchange runs, the command's 1xx; then the server's final reply, the markers before it going
// to `on_marker`. On a GridFTP session PASV, REST and the command go in one flight, so the key
// exchange starts one round trip after the settings were sent (docs/UDPX.md §8).
Result<NetworkFigures> run_active(
    Session& session, const std::string& command, const std::optional<std::string>& rest,
    const UdpxRequest& request, ProgressTicker& progress,
    const std::function<void(udpx::UdpxTransferSpec&)>& fill,
    const std::function<void(const udpx::UdpxTransferReport&)>& on_failure = {},
    const Session::MarkerCallback& on_marker = {}) {
  if (auto sent = session.send_transfer_ahead(rest, command); !sent)
    return make_error(sent.error());
  auto server = session.request_passive();
  if (!server) return make_error(server.error());
  auto spec = active_spec(session, *server, request);
  if (!spec) return make_error(spec.error());
  fill(*spec);
  // The path's last rate (docs/UDPX.md §2.3): a get's goes to the server, which sends, in our
  // HELLO; a put's is our own sender's.
  const auto path = std::string(spec->source ? "put@" : "get@") + server->address;
  spec->offer.start_rate_bps = remembered_udpx_rate(path).value_or(0);
  auto socket = udpx::DatagramSocket::open(session.io().get_executor(),
                                           spec->peer->address().is_v6()
                                               ? udpx::udp::endpoint(udpx::udp::v6(), 0)
                                               : udpx::udp::endpoint(udpx::udp::v4(), 0));
  if (!socket) return make_error(socket.error());
  // REST goes right before the transfer command (RFC 3659 §5.3).
  if (rest) {
    if (auto restarted = session.restart_at(*rest); !restarted)
      return make_error(restarted.error());
  }
  if (auto sent = session.send_transfer_command(command); !sent) return make_error(sent.error());
  udpx::UdpxLive live;
  // The engine hands its report over as soon as the outcome is known and may stay on a little
  // for the server's end (docs/UDPX.md §6): the server's reply is read meanwhile, and the
  // engine is stopped and joined on every way out.
  std::promise<udpx::UdpxTransferReport> settled;
  auto settled_report = settled.get_future();
  std::thread engine([&] {
    (void)udpx::run_udpx_transfer(*socket, *spec, &live,
                                  [&](const udpx::UdpxTransferReport& r) { settled.set_value(r); });
  });
  struct StopAndJoin {
    udpx::UdpxLive& live;
    std::thread& engine;
    ~StopAndJoin() {
      live.stop.store(true);
      engine.join();
    }
  } stop_and_join{live, engine};
  if (auto begun = session.expect_transfer_start(); !begun) return make_error(begun.error());
  std::atomic<bool> done{false};
  std::uint64_t reported = 0;
  std::thread watch([&] {
    while (!done.load()) {
      const auto bytes = live.bytes.load();
      if (bytes > reported) {
        progress.add(bytes - reported, Clock::now());
        reported = bytes;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  const udpx::UdpxTransferReport report = settled_report.get();
  done.store(true);
  watch.join();
  if (report.figures.bytes > reported) progress.add(report.figures.bytes - reported, Clock::now());
  if (!report.ok) {
    if (on_failure) on_failure(report);
    // The server's final reply (read here, kept as the failure's detail) says why in its words.
    return make_error(
        with_server_reason(session, make_error_code(ClientErrc::UdpxFailed), on_marker));
  }
  if (auto finished = session.finish_transfer(session.options().data_timeout, on_marker);
      !finished) {
    return make_error(finished.error());
  }
  if (auto found = rate_worth_remembering(report.figures)) remember_udpx_rate(path, *found);
  return report.figures;
}

}  // namespace

Result<NetworkFigures> receive_udpx(Session& session, const std::string& command,
                                    const StagedFile& staged,
                                    const std::optional<std::string>& rest,
                                    protocol::restart::ByteRangeSet* held,
                                    const UdpxRequest& request, ProgressTicker& progress) {
  // The server sends the stream of what `held` lacks (REST), so blocks land through the same
  // layout; with nothing held it is the file itself.
  const protocol::restart::ByteRangeSet nothing;
  udpx::LaidOutSink* sink = nullptr;
  return run_active(
      session, command, rest, request, progress,
      [&](udpx::UdpxTransferSpec& spec) {
        auto laid = std::make_unique<udpx::LaidOutSink>(
            std::make_unique<StagedFileSink>(staged),
            protocol::udpx::RestartLayout(held != nullptr ? *held : nothing, 0,
                                          protocol::udpx::RestartLayout::kOpenEnd));
        sink = laid.get();
        // Writes gathered before the layout, which records only what reached the file.
        spec.sink = std::make_unique<udpx::CoalescingSink>(std::move(laid));
      },
      [&](const udpx::UdpxTransferReport&) {
        // Every block written stays, wherever it lies: the retry's REST names them all.
        if (held != nullptr && sink != nullptr) held->insert(sink->written());
      });
}

Result<NetworkFigures> send_udpx(Session& session, const std::string& command,
                                 const LocalSource& source, std::uint64_t offset,
                                 std::uint64_t length, RestartState* restart,
                                 const UdpxRequest& request, ProgressTicker& progress) {
  // A -rst retry sends only what the server's 111 markers did not confirm (REST first); the
  // server lays the stream out from the same list (docs/UDPX.md §8).
  std::optional<std::string> rest;
  std::optional<protocol::udpx::RestartLayout> layout;
  if (restart != nullptr && restart->resume) {
    rest = restart_argument(true, restart->dest_ranges);
    if (rest) layout.emplace(restart->dest_ranges, 0, offset + length);
  } else if (restart != nullptr) {
    restart->dest_ranges = {};
  }
  return run_active(
      session, command, rest, request, progress,
      [&](udpx::UdpxTransferSpec& spec) {
        std::unique_ptr<udpx::BlockSource> file = std::make_unique<udpx::ReadAheadSource>(
            std::make_unique<LocalFileSource>(source, offset + length));
        if (layout) {
          spec.shape.length = layout->length();
          spec.source = std::make_unique<udpx::LaidOutSource>(std::move(file), *layout);
        } else {
          spec.shape.base = offset;
          spec.shape.length = length;
          spec.source = std::move(file);
        }
      },
      {},
      [restart](const ParsedReply& reply) {
        if (restart != nullptr) (void)record_range_marker(reply, *restart);
      });
}

Result<NetworkFigures> receive_udpx_stream(
    Session& session, const std::string& command,
    const std::function<Result<void>(std::span<const char>)>& consume, const UdpxRequest& request,
    ProgressTicker& progress) {
  std::error_code failure;  // the consumer's own error, which the get fails with
  auto received = run_active(
      session, command, std::nullopt, request, progress,
      [&](udpx::UdpxTransferSpec& spec) {
        spec.shape.length = udpx::TransferShape::kUnknownLength;
        spec.receiver.window_blocks = udpx::kOrderedWindowBlocks;
        spec.sink = std::make_unique<udpx::OrderedStreamSink>(consume, 0, spec.shape.block_bytes,
                                                              udpx::kOrderedWindowBlocks);
      },
      [&](const udpx::UdpxTransferReport& report) { failure = report.storage_error; });
  if (failure) return make_error(failure);
  return received;
}

Result<NetworkFigures> send_udpx_stream(
    Session& session, const std::string& command,
    const std::function<Result<bool>(std::string& out, std::size_t want)>& produce,
    const UdpxRequest& request, ProgressTicker& progress) {
  std::error_code failure;  // the producer's own error, which the put fails with
  auto sent = run_active(
      session, command, std::nullopt, request, progress,
      [&](udpx::UdpxTransferSpec& spec) {
        spec.shape.length = udpx::TransferShape::kUnknownLength;
        spec.source = std::make_unique<udpx::SpooledStreamSource>(produce);
      },
      [&](const udpx::UdpxTransferReport& report) { failure = report.storage_error; });
  if (failure) return make_error(failure);
  return sent;
}

}  // namespace gridftp::client
