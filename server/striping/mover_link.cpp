#include "server/striping/mover_link.hpp"

#include <array>
#include <utility>

#include "protocol/core/errors.hpp"
#include "security/gsi_handshake.hpp"
#include "transport/deadline.hpp"
#include "transport/error_conversion.hpp"
#include "transport/handshake_driver.hpp"
#include "transport/tcp_stream.hpp"
#include "transport/tls_stream.hpp"

namespace gridftp::server::striping {

namespace asio = transport::asio;
using protocol::control::ParsedReply;
using transport::tcp;

transport::awaitable<Result<std::unique_ptr<MoverLink>>> MoverLink::open(
    asio::any_io_executor executor, tcp::endpoint mover, const security::SslCtxPtr& context,
    std::chrono::seconds timeout) {
  auto socket = std::make_shared<tcp::socket>(executor);
  auto deadline = std::make_shared<transport::Deadline>(executor);
  deadline->expires_after(timeout);
  // The watch closes whatever is open when time runs out; the pending step then fails.
  auto stream_slot = std::make_shared<transport::ByteStream*>(nullptr);
  transport::start_watch(deadline, [socket, stream_slot] {
    if (*stream_slot != nullptr) (*stream_slot)->close();
    boost::system::error_code ignored;
    socket->close(ignored);
  });
  const auto fail = [&](std::error_code ec) -> Result<std::unique_ptr<MoverLink>> {
    deadline->stop();
    return make_error(deadline->expired() ? make_error_code(transport::TransportErrc::TimedOut)
                                          : ec);
  };
  boost::system::error_code ec;
  co_await socket->async_connect(mover, asio::redirect_error(transport::use_awaitable, ec));
  if (ec) co_return fail(transport::to_error_code(ec));
  socket->set_option(tcp::no_delay(true), ec);
  auto clear = std::make_unique<transport::TcpStream>(std::move(*socket));
  *stream_slot = clear.get();

  // Plain TLS with both certificates checked (no GSI token framing, no delegation): the mover's
  // chain must lead to our CA directory, ours to its.
  security::GsiOptions options;
  options.ssl_compatible = true;
  auto handshake =
      security::GsiHandshake::create(context.get(), security::GsiHandshake::Role::Client, options);
  if (!handshake) co_return fail(handshake.error());
  auto leftover = co_await transport::drive_handshake(*clear, *handshake, /*initiator=*/true);
  if (!leftover) co_return fail(leftover.error());
  auto identity = handshake->peer_identity();
  auto tls = std::make_unique<transport::TlsStream>(
      std::move(clear), std::move(handshake->engine()), std::move(*leftover));
  *stream_slot = tls.get();
  auto link = std::make_unique<MoverLink>(std::move(tls), mover, std::move(identity));
  auto greeting = co_await link->read_reply();
  *stream_slot = nullptr;
  if (!greeting) co_return fail(greeting.error());
  if (greeting->code != 220) co_return fail(make_error_code(protocol::Errc::BadReply));
  deadline->stop();
  co_return link;
}

MoverLink::MoverLink(std::unique_ptr<transport::ByteStream> stream, tcp::endpoint mover,
                     std::string identity)
    : stream_(std::move(stream)), mover_(std::move(mover)), identity_(std::move(identity)) {}

transport::awaitable<Result<void>> MoverLink::send_only(std::string line) {
  line += "\r\n";
  std::error_code ec;
  co_await stream_->write_all(line, ec);
  if (ec) {
    open_ = false;
    co_return make_error(ec);
  }
  co_return Result<void>{};
}

transport::awaitable<Result<ParsedReply>> MoverLink::command(std::string line) {
  if (auto sent = co_await send_only(std::move(line)); !sent) co_return make_error(sent.error());
  co_return co_await read_reply();
}

transport::awaitable<Result<ParsedReply>> MoverLink::read_reply() {
  std::array<char, 4096> buffer{};
  for (;;) {
    if (!unread_.empty()) {
      auto used = parser_.feed(unread_);
      if (!used) {
        open_ = false;
        co_return make_error(used.error());
      }
      unread_.erase(0, *used);
      if (parser_.has_reply()) co_return parser_.take_reply();
    }
    std::error_code ec;
    const auto got = co_await stream_->read_some(buffer, ec);
    if (ec) {
      open_ = false;
      co_return make_error(ec == transport::TransportErrc::EndOfStream
                               ? make_error_code(transport::TransportErrc::PeerClosed)
                               : ec);
    }
    unread_.append(buffer.data(), got);
  }
}

void MoverLink::close() {
  open_ = false;
  stream_->close();
}

}  // namespace gridftp::server::striping
