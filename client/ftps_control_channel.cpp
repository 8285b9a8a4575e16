#include "client/ftps_control_channel.hpp"

#include <array>

namespace gridftp::client {
namespace {

constexpr std::size_t kReadChunkBytes = 16 * 1024;

Clock::duration left_until(Clock::time_point deadline) {
  const auto left = deadline - Clock::now();
  return left > Clock::duration::zero() ? left : Clock::duration::zero();
}

}  // namespace

FtpsControlChannel::FtpsControlChannel(std::unique_ptr<TcpControlChannel> inner)
    : LayeredControlChannel(std::move(inner)) {}

// Sends what TLS produced (the inner channel's write timeout applies).
Result<void> FtpsControlChannel::flush() {
  for (auto out = engine_->pending_output(); !out.empty(); out = engine_->pending_output()) {
    if (auto sent = inner_->write_bytes(std::string_view(out.data(), out.size())); !sent) {
      return sent;
    }
    engine_->consume_output(out.size());
  }
  return {};
}

// Reads what the server sent next into the engine. A clean close is connection_reset: nothing
// in FTPS ends the control connection without a reply first.
Result<void> FtpsControlChannel::receive(Clock::duration timeout) {
  std::array<char, kReadChunkBytes> chunk{};
  auto count = inner_->read_some(chunk, timeout);
  if (!count) {
    return make_error(count.error());
  }
  if (*count == 0) {
    return make_error(make_error_code(std::errc::connection_reset));
  }
  return engine_->feed(std::span<const char>(chunk.data(), *count));
}

Result<void> FtpsControlChannel::start_tls(security::TlsEngine engine, Clock::duration timeout) {
  engine_.emplace(std::move(engine));
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    auto step = engine_->handshake();
    if (auto sent = flush(); !sent) {
      return sent;
    }
    if (!step) {
      handshake_detail_ = engine_->last_error();
      return make_error(step.error());
    }
    if (*step == security::TlsEngine::Progress::Done) {
      return {};
    }
    if (auto got = receive(left_until(deadline)); !got) {
      return got;
    }
  }
}

std::string FtpsControlChannel::describe_tls() const {
  return engine_ ? engine_->protocol_version() + " " + engine_->cipher_name() : "clear";
}

Result<void> FtpsControlChannel::write_line(std::string_view line) {
  if (!engine_) {
    return inner_->write_line(line);
  }
  std::string plain(line);
  plain += "\r\n";
  std::span<const char> rest(plain.data(), plain.size());
  while (!rest.empty()) {
    auto taken = engine_->write(rest);
    if (!taken) {
      return make_error(taken.error());
    }
    rest = rest.subspan(*taken);
    if (auto sent = flush(); !sent) {
      return sent;
    }
  }
  return {};
}

Result<std::size_t> FtpsControlChannel::read_some(std::span<char> buffer, Clock::duration timeout) {
  if (!engine_) {
    return inner_->read_some(buffer, timeout);
  }
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    auto got = engine_->read(buffer);
    if (!got) {
      if (got.error() == security::TlsErrc::PeerClosed) {
        return std::size_t{0};
      }
      return got;
    }
    if (auto sent = flush(); !sent) {  // TLS 1.3 may answer (key update) while reading
      return make_error(sent.error());
    }
    if (*got > 0) {
      return got;
    }
    if (auto received = receive(left_until(deadline)); !received) {
      if (received.error() == std::errc::connection_reset) {
        return std::size_t{0};
      }
      return make_error(received.error());
    }
  }
}

}  // namespace gridftp::client
