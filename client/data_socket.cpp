#include "client/data_socket.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "client/client_errors.hpp"
#include "client/timed_io.hpp"
#include "client/tls_record_framing.hpp"
#include "protocol/core/errors.hpp"
#include "security/gsi_handshake.hpp"
#include "security/x509_identity.hpp"

namespace gridftp::client {
namespace {

using security::GsiHandshake;

// Handshake flights are a few KB; one TLS record is at most ~18 KB.
constexpr std::size_t kHandshakeReadBytes = 32 * 1024;

Result<void> send_bytes(transport::asio::io_context& io, transport::tcp::socket& socket,
                        std::string_view bytes, Clock::duration timeout) {
  if (bytes.empty()) {
    return {};
  }
  return write_all_with_deadline(io, socket, bytes, timeout);
}

// Hands whole records from the front of `pending` to the handshake, sending what it answers,
// until it completes or needs more bytes. Whole records only: under PROT C the peer's raw data
// may follow the flag record in the same read (docs/WIRE.md §5.7).
Result<void> feed_whole_records(GsiHandshake& handshake, std::string& pending,
                                transport::asio::io_context& io, transport::tcp::socket& socket,
                                Clock::duration timeout) {
  while (!handshake.complete()) {
    auto length = first_tls_record_length(pending);
    if (!length) {
      return make_error(length.error());
    }
    if (!*length) {
      return {};
    }
    auto answer = handshake.step(std::string_view(pending).substr(0, **length));
    pending.erase(0, **length);
    if (!answer) {
      return make_error(answer.error());
    }
    if (auto sent = send_bytes(io, socket, *answer, timeout); !sent) {
      return sent;
    }
  }
  return {};
}

// Runs the exchange to completion, the initiator speaking first. On return `pending` holds what
// arrived behind the last handshake record: raw data (PROT C) or TLS records (PROT S/P).
Result<void> run_exchange(GsiHandshake& handshake, bool initiator, std::string& pending,
                          transport::asio::io_context& io, transport::tcp::socket& socket,
                          Clock::duration timeout) {
  if (initiator) {
    auto hello = handshake.step({});
    if (!hello) {
      return make_error(hello.error());
    }
    if (auto sent = send_bytes(io, socket, *hello, timeout); !sent) {
      return sent;
    }
  }
  std::array<char, kHandshakeReadBytes> chunk{};
  for (;;) {
    if (auto fed = feed_whole_records(handshake, pending, io, socket, timeout); !fed) {
      return fed;
    }
    if (handshake.complete()) {
      return {};
    }
    auto count = read_some_with_deadline(io, socket, chunk, timeout);
    if (!count || *count == 0) {
      return make_error(count ? make_error_code(std::errc::connection_reset) : count.error());
    }
    pending.append(chunk.data(), *count);
  }
}

}  // namespace

DataSocket::DataSocket(transport::asio::io_context& io) : io_(io), socket_(io) {}

Result<void> DataSocket::secure(const DataChannelSecurity& security, security::TlsRole role,
                                Clock::duration timeout) {
  if (!security.is_enabled()) {
    return {};
  }
  if (security.ftps) {
    return run_ftps_handshake(*security.ftps, role, timeout);
  }
  return run_handshake(security, role, timeout);
}

Result<void> DataSocket::run_ftps_handshake(const FtpsDataTls& ftps, security::TlsRole role,
                                            Clock::duration timeout) {
  // We hold no certificate, so a connection the server opens to us (MODE E gets, third-party)
  // cannot be secured from our side.
  if (role != security::TlsRole::Client) {
    failure_detail_ = "ftps:// data connections that the server opens need a certificate of ours";
    return make_error(make_error_code(protocol::Errc::BadArgument));
  }
  auto engine = security::TlsEngine::create(ftps.context.get(), security::TlsEngine::Role::Client);
  if (!engine) {
    return make_error(engine.error());
  }
  if (auto named = engine->expect_host(ftps.host); !named) {
    return named;
  }
  engine_.emplace(std::move(*engine));
  const auto deadline = Clock::now() + timeout;
  std::array<char, kHandshakeReadBytes> chunk{};
  for (;;) {
    auto step = engine_->handshake();
    if (auto sent = send_tls_output(timeout); !sent) {
      return sent;
    }
    if (!step) {
      failure_detail_ = engine_->last_error();
      engine_.reset();
      return make_error(step.error());
    }
    if (*step == security::TlsEngine::Progress::Done) {
      sends_close_notify_ = true;
      return {};
    }
    const auto left = deadline - Clock::now();
    auto count = read_some_with_deadline(
        io_, socket_, chunk, left > Clock::duration::zero() ? left : Clock::duration::zero());
    if (!count || *count == 0) {
      return make_error(count ? make_error_code(std::errc::connection_reset) : count.error());
    }
    if (auto fed = engine_->feed(std::span<const char>(chunk.data(), *count)); !fed) {
      return fed;
    }
  }
}

Result<void> DataSocket::run_handshake(const DataChannelSecurity& security, security::TlsRole role,
                                       Clock::duration timeout) {
  security::GsiOptions options;
  // PROT S/P: plain TLS; PROT C: GSI sync and flag bytes, then no TLS (docs/WIRE.md §5.7).
  options.ssl_compatible = security.protection != security::DataProtection::Clear;
  const bool initiator = role == security::TlsRole::Client;
  auto handshake = GsiHandshake::create(
      security.credentials->data_context(role, security.protection),
      initiator ? GsiHandshake::Role::Client : GsiHandshake::Role::Server, options);
  if (!handshake) {
    return make_error(handshake.error());
  }
  std::string pending;
  if (auto done = run_exchange(*handshake, initiator, pending, io_, socket_, timeout); !done) {
    failure_detail_ = handshake->engine().last_error();
    return done;
  }
  // DCAU A: the peer must hold our identity (GFD.20; the server uses the proxy we delegated).
  if (!security::same_identity(handshake->peer_identity(), security.credentials->identity())) {
    failure_detail_ = "data connection peer is " + handshake->peer_identity() + ", expected " +
                      security.credentials->identity();
    return make_error(make_error_code(ClientErrc::DataPeerMismatch));
  }
  if (!options.ssl_compatible) {
    unread_ = handshake->engine().take_unprocessed_input() + pending;
    return {};
  }
  engine_.emplace(std::move(handshake->engine()));
  return engine_->feed(pending);
}

Result<void> DataSocket::send_tls_output(Clock::duration timeout) {
  for (auto out = engine_->pending_output(); !out.empty(); out = engine_->pending_output()) {
    if (auto sent = write_all_with_deadline(io_, socket_, std::string_view(out.data(), out.size()),
                                            timeout);
        !sent) {
      return sent;
    }
    engine_->consume_output(out.size());
  }
  return {};
}

Result<void> DataSocket::end_sending(Clock::duration timeout) {
  if (engine_ && sends_close_notify_) {
    engine_->shutdown();
    if (auto sent = send_tls_output(timeout); !sent) {
      return sent;
    }
  }
  boost::system::error_code ec;
  socket_.shutdown(transport::tcp::socket::shutdown_send, ec);
  if (ec) {
    return make_error(static_cast<std::error_code>(ec));
  }
  return {};
}

Result<void> DataSocket::write_all(std::string_view bytes, Clock::duration timeout) {
  if (!engine_) {
    return write_all_with_deadline(io_, socket_, bytes, timeout);
  }
  while (!bytes.empty()) {
    auto written = engine_->write(std::span(bytes.data(), bytes.size()));
    if (!written) {
      return make_error(written.error());
    }
    bytes.remove_prefix(*written);
    if (auto sent = send_tls_output(timeout); !sent) {
      return sent;
    }
  }
  return {};
}

Result<std::size_t> DataSocket::read_some(std::span<char> buffer, Clock::duration timeout) {
  if (engine_) {
    return read_tls(buffer, timeout);
  }
  if (!unread_.empty()) {
    const auto n = std::min(buffer.size(), unread_.size());
    std::memcpy(buffer.data(), unread_.data(), n);
    unread_.erase(0, n);
    return n;
  }
  return read_some_with_deadline(io_, socket_, buffer, timeout);
}

Result<std::size_t> DataSocket::read_tls(std::span<char> buffer, Clock::duration timeout) {
  for (;;) {
    std::size_t total = 0;
    // Several records per call: SSL_read hands out one record at a time.
    while (total < buffer.size()) {
      auto got = engine_->read(buffer.subspan(total));
      if (!got && got.error() == security::TlsErrc::PeerClosed) {
        return total;  // close_notify: the end of the stream once what came before is read
      }
      if (!got) {
        return got;
      }
      if (*got == 0) {
        break;
      }
      total += *got;
    }
    if (total > 0) {
      return total;
    }
    if (auto sent = send_tls_output(timeout); !sent) {  // e.g. a TLS 1.3 KeyUpdate answer
      return make_error(sent.error());
    }
    const auto space = engine_->input_space();
    if (space.empty()) {
      return make_error(make_error_code(security::TlsErrc::InputOverflow));
    }
    auto count = read_some_with_deadline(io_, socket_, space, timeout);
    if (!count || *count == 0) {
      return count;  // Globus sends no close_notify: FIN ends the stream (docs/WIRE.md §5.7)
    }
    engine_->commit_input(*count);
  }
}

}  // namespace gridftp::client
