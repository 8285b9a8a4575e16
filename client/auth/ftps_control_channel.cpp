#include "client/auth/ftps_control_channel.hpp"

#include "transport/error_conversion.hpp"

namespace gridftp::client {

FtpsControlChannel::FtpsControlChannel(std::unique_ptr<TcpControlChannel> inner)
    : LayeredControlChannel(std::move(inner)), stream_(inner_->socket(), link_) {}

Result<void> FtpsControlChannel::start_tls(security::TlsEngine engine, Clock::duration timeout) {
  auto handshake = std::make_unique<security::TlsHandshake>(std::move(engine));
  auto done = run_with_timeout(inner_->io(), inner_->socket(),
                               link_.handshake(inner_->socket(), std::move(handshake),
                                               /*initiator=*/true, /*keep_tls=*/true),
                               timeout);
  if (!done) {
    handshake_detail_ = link_.failure_detail();
    return done;
  }
  protected_ = true;
  return {};
}

std::string FtpsControlChannel::describe_tls() const {
  return protected_ ? link_.describe() : "clear";
}

transport::awaitable<Result<void>> FtpsControlChannel::write_once(std::string plain) {
  std::error_code ec;
  co_await stream_.write_all({plain.data(), plain.size()}, ec);
  if (ec) co_return make_error(ec);
  co_return Result<void>{};
}

transport::awaitable<Result<std::size_t>> FtpsControlChannel::read_once(std::span<char> buffer) {
  std::error_code ec;
  const auto count = co_await stream_.read_some(buffer, ec);
  if (ec == transport::TransportErrc::EndOfStream) co_return std::size_t{0};  // FIN, close_notify
  if (ec) co_return make_error(ec);
  co_return count;
}

Result<void> FtpsControlChannel::write_line(std::string_view line) {
  if (!protected_) return inner_->write_line(line);
  std::string plain(line);
  plain += "\r\n";
  return run_with_timeout(inner_->io(), inner_->socket(), write_once(std::move(plain)),
                          inner_->write_timeout());
}

Result<std::size_t> FtpsControlChannel::read_some(std::span<char> buffer, Clock::duration timeout) {
  if (!protected_) return inner_->read_some(buffer, timeout);
  return run_with_timeout(inner_->io(), inner_->socket(), read_once(buffer), timeout);
}

}  // namespace gridftp::client
