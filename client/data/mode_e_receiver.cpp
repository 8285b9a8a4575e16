#include "client/data/mode_e_receiver.hpp"

#include <vector>

#include "client/client_errors.hpp"
#include "client/data/timed_io.hpp"
#include "protocol/control/retr_options.hpp"
#include "transport/socket_buffer.hpp"

namespace gridftp::client {
namespace {

namespace asio = transport::asio;
using protocol::mode_e::DecoderEvent;
using transport::tcp;

// One read buffer per connection, reused for the whole transfer; payload is written straight
// from it (the decoder hands out views).
constexpr std::size_t kReadBufferBytes = std::size_t{256} * 1024;
// A sender uses at most Parallelism connections (≤ 64); allow slack for a striped sender.
constexpr std::size_t kMaxConnections = std::size_t{2} * protocol::control::kMaxParallelism;

std::error_code to_std(const boost::system::error_code& ec) {
  return static_cast<std::error_code>(ec);
}

}  // namespace

Result<std::unique_ptr<ModeEReceiver>> ModeEReceiver::listen(const std::string& host,
                                                             BlockWriter writer,
                                                             Clock::duration stall_timeout,
                                                             DataChannelSecurity security,
                                                             std::uint32_t socket_buffer) {
  auto receiver =
      std::make_unique<ModeEReceiver>(std::move(writer), stall_timeout, std::move(security));
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(host.empty() ? "127.0.0.1" : host, ec);
  if (ec) {
    return make_error(to_std(ec));
  }
  const tcp::endpoint endpoint(address, 0);
  receiver->acceptor_.open(endpoint.protocol(), ec);
  if (!ec) {
    // Before listen(): accepted sockets inherit the sizes, window scale included.
    transport::apply_socket_buffer(receiver->acceptor_, socket_buffer);
    receiver->acceptor_.bind(endpoint, ec);
  }
  if (!ec) {
    receiver->acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  }
  const auto bound = ec ? tcp::endpoint() : receiver->acceptor_.local_endpoint(ec);
  if (ec) {
    return make_error(to_std(ec));
  }
  receiver->address_ =
      protocol::control::HostPort{address.to_string(), bound.port(), address.is_v6()};
  return receiver;
}

ModeEReceiver::ModeEReceiver(BlockWriter writer, Clock::duration stall_timeout,
                             DataChannelSecurity security)
    : writer_(std::move(writer)),
      stall_timeout_(stall_timeout),
      security_(std::move(security)),
      accounting_(kMaxConnections) {}

ModeEReceiver::~ModeEReceiver() {
  cancel();
  if (accept_thread_.joinable()) {
    accept_thread_.join();
  }
  // No new stream can appear once the accept thread is gone.
  for (auto& stream : streams_) {
    if (stream.thread.joinable()) {
      stream.thread.join();
    }
  }
}

void ModeEReceiver::start() {
  accept_thread_ = std::thread([this] { accept_loop(); });
}

Result<std::uint64_t> ModeEReceiver::wait() {
  std::unique_lock lock(mutex_);
  finished_signal_.wait(lock, [this] { return finished_; });
  if (failure_) {
    return make_error(failure_);
  }
  return accounting_.contiguous_length();
}

void ModeEReceiver::cancel() { finish(make_error_code(ClientErrc::Cancelled)); }

bool ModeEReceiver::is_finished() const {
  std::lock_guard lock(mutex_);
  return finished_;
}

void ModeEReceiver::finish(std::error_code error) {
  std::lock_guard lock(mutex_);
  finish_locked(error);
}

void ModeEReceiver::finish_locked(std::error_code error) {
  if (finished_) {
    return;
  }
  finished_ = true;
  failure_ = error;
  stop_all_locked();
  finished_signal_.notify_all();
}

// Closing happens on each socket's own io_context thread (inside its run_for), so it is never
// concurrent with the blocked operation it aborts.
void ModeEReceiver::stop_all_locked() {
  asio::post(accept_io_, [this] {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
  });
  for (auto& stream : streams_) {
    asio::post(stream.io, [&stream] {
      boost::system::error_code ignored;
      stream.data.socket().close(ignored);
    });
  }
}

void ModeEReceiver::accept_loop() {
  while (!is_finished()) {
    std::list<Stream> incoming;
    Stream& fresh = incoming.emplace_back();
    auto accepted =
        accept_with_deadline(accept_io_, acceptor_, fresh.data.socket(), stall_timeout_);
    if (!accepted) {
      finish(accepted.error());
      return;
    }
    std::lock_guard lock(mutex_);
    if (finished_) {
      return;  // completed or cancelled while this connection arrived: it is not ours to read
    }
    if (auto counted = accounting_.on_connection_opened(); !counted) {
      finish_locked(counted.error());
      return;
    }
    streams_.splice(streams_.end(), incoming);
    Stream& owned = streams_.back();
    owned.thread = std::thread([this, &owned] { read_loop(owned); });
  }
}

void ModeEReceiver::read_loop(Stream& stream) {
  std::vector<char> buffer(kReadBufferBytes);
  protocol::mode_e::BlockDecoder decoder;
  bool saw_eod = false;
  const auto handle = [&](const DecoderEvent& event) { return on_event(event, saw_eod); };
  // The sender connected, so it is the TLS client and we the server (docs/WIRE.md §5.7).
  if (auto secured = stream.data.secure(security_, security::TlsRole::Server, stall_timeout_);
      !secured) {
    finish(secured.error());
    return;
  }
  while (!saw_eod) {
    auto count = stream.data.read_some(buffer, stall_timeout_);
    if (!count) {
      finish(count.error());
      return;
    }
    if (*count == 0) {
      std::lock_guard lock(mutex_);
      if (auto closed = accounting_.on_connection_closed(saw_eod); !closed) {
        finish_locked(closed.error());
      }
      return;
    }
    if (auto handled =
            protocol::mode_e::for_each_event(decoder, std::span(buffer.data(), *count), handle);
        !handled) {
      finish(handled.error());
      return;
    }
  }
  // This connection is at EOD; it stays open (the sender may cache it) until we are destroyed.
}

Result<void> ModeEReceiver::on_event(const DecoderEvent& event, bool& saw_eod) {
  switch (event.kind) {
    case DecoderEvent::Kind::Data: {
      // Written outside the lock: blocks on different connections land at disjoint offsets.
      if (auto written =
              writer_(event.offset, std::string_view(event.payload.data(), event.payload.size()));
          !written) {
        return written;
      }
      std::lock_guard lock(mutex_);
      return accounting_.on_data(event.offset, event.payload.size());
    }
    case DecoderEvent::Kind::Eof:
    case DecoderEvent::Kind::Eod: {
      saw_eod = saw_eod || event.kind == DecoderEvent::Kind::Eod;
      std::lock_guard lock(mutex_);
      auto counted = event.kind == DecoderEvent::Kind::Eof ? accounting_.on_eof(event.eod_count)
                                                           : accounting_.on_eod();
      if (counted && accounting_.is_complete()) {
        finish_locked({});
      }
      return counted;
    }
    case DecoderEvent::Kind::Close:
    case DecoderEvent::Kind::NeedMore:
      return {};
  }
  return {};
}

}  // namespace gridftp::client
