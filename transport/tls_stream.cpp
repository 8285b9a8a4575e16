#include "transport/tls_stream.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "transport/error_conversion.hpp"

namespace gridftp::transport {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{16} * 1024;  // one TLS record's plaintext

}  // namespace

TlsStream::TlsStream(std::unique_ptr<ByteStream> inner, security::TlsEngine engine,
                     std::string received)
    : inner_(std::move(inner)), engine_(std::move(engine)), received_(std::move(received)) {}

std::error_code TlsStream::decrypt_received() {
  if (!received_.empty()) {
    if (auto fed = engine_.feed(received_); !fed) return fed.error();
    received_.clear();
  }
  std::array<char, kChunkBytes> chunk{};
  for (;;) {
    auto got = engine_.read(chunk);
    if (!got) {
      if (got.error() == security::TlsErrc::PeerClosed) {
        peer_closed_ = true;
        return {};
      }
      return got.error();
    }
    if (*got == 0) return {};
    plain_.append(chunk.data(), *got);
  }
}

awaitable<std::size_t> TlsStream::read_some(std::span<char> out, std::error_code& ec) {
  ec.clear();
  std::array<char, kChunkBytes> chunk{};
  while (plain_.empty() && !peer_closed_) {
    if (received_.empty()) {
      const auto got = co_await inner_->read_some(chunk, ec);
      if (ec) co_return 0;
      received_.assign(chunk.data(), got);
    }
    ec = decrypt_received();
    if (ec) co_return 0;
    if (engine_.has_output() && !writing_) {  // e.g. a TLS 1.3 KeyUpdate answer
      co_await flush(ec);
      if (ec) co_return 0;
    }
  }
  if (plain_.empty()) {
    ec = make_error_code(TransportErrc::EndOfStream);
    co_return 0;
  }
  const auto n = std::min(out.size(), plain_.size());
  std::memcpy(out.data(), plain_.data(), n);
  plain_.erase(0, n);
  co_return n;
}

awaitable<void> TlsStream::flush(std::error_code& ec) {
  writing_ = true;
  while (!ec && engine_.has_output()) {
    const auto bytes = engine_.take_output();
    co_await inner_->write_all(bytes, ec);
  }
  writing_ = false;
}

awaitable<void> TlsStream::write_all(std::span<const char> bytes, std::error_code& ec, bool more) {
  ec.clear();
  auto rest = bytes;
  while (!rest.empty() && !ec) {
    auto taken = engine_.write(rest);
    if (!taken) {
      ec = taken.error();
      co_return;
    }
    if (*taken == 0 && !engine_.has_output()) {  // cannot happen: a full ring has output
      ec = make_error_code(security::TlsErrc::Fatal);
      co_return;
    }
    rest = rest.subspan(*taken);
    // 0 taken: the engine's output ring is full; sending it makes room.
    writing_ = true;
    while (!ec && engine_.has_output()) {
      const auto records = engine_.take_output();
      co_await inner_->write_all(records, ec, more || !rest.empty());
    }
    writing_ = false;
  }
}

awaitable<void> TlsStream::finish(std::error_code& ec) {
  ec.clear();
  engine_.shutdown();
  co_await flush(ec);
  if (ec) co_return;
  co_await inner_->finish(ec);
}

}  // namespace gridftp::transport
