#include "transport/handshake_driver.hpp"

#include <array>

#include "security/tls_record_framing.hpp"
#include "transport/error_conversion.hpp"

namespace gridftp::transport {
namespace {

// Handshake flights are a few KB; one TLS record is at most ~18 KB.
constexpr std::size_t kReadChunkBytes = 32 * 1024;

awaitable<Result<void>> send(tcp::socket& socket, const std::string& bytes) {
  if (bytes.empty()) co_return Result<void>{};
  boost::system::error_code ec;
  co_await asio::async_write(socket, asio::buffer(bytes), asio::redirect_error(use_awaitable, ec));
  if (ec) co_return make_error(to_error_code(ec));
  co_return Result<void>{};
}

}  // namespace

awaitable<Result<std::string>> drive_handshake(tcp::socket& socket, security::Handshake& handshake,
                                               bool initiator) {
  std::string pending;
  if (initiator) {
    auto hello = handshake.step({});
    if (!hello) co_return make_error(hello.error());
    if (auto sent = co_await send(socket, *hello); !sent) co_return make_error(sent.error());
  }
  std::array<char, kReadChunkBytes> chunk{};
  while (!handshake.complete()) {
    auto length = security::first_tls_record_length(pending);
    if (!length) co_return make_error(length.error());
    if (!*length) {
      boost::system::error_code ec;
      const auto got = co_await socket.async_read_some(asio::buffer(chunk),
                                                       asio::redirect_error(use_awaitable, ec));
      if (ec) co_return make_error(to_error_code(ec));
      pending.append(chunk.data(), got);
      continue;
    }
    auto answer = handshake.step(std::string_view(pending).substr(0, **length));
    pending.erase(0, **length);
    if (!answer) {
      // An alert queued by the failure tells the peer why; losing it is harmless.
      co_await send(socket, handshake.engine().take_output());
      co_return make_error(answer.error());
    }
    if (auto sent = co_await send(socket, *answer); !sent) co_return make_error(sent.error());
  }
  co_return handshake.engine().take_unprocessed_input() + pending;
}

}  // namespace gridftp::transport
