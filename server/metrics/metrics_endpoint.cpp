#include "server/metrics/metrics_endpoint.hpp"

#include <chrono>

#include "protocol/metrics/scrape_answer.hpp"
#include "transport/deadline.hpp"
#include "transport/error_conversion.hpp"

namespace gridftp::server {

namespace asio = transport::asio;
using transport::tcp;

namespace {

// A scraper that connects and says nothing is cut off after this.
constexpr std::chrono::seconds kRequestTimeout{5};

}  // namespace

Result<std::shared_ptr<MetricsEndpoint>> MetricsEndpoint::open(asio::io_context& io,
                                                               const std::string& address,
                                                               std::uint16_t port,
                                                               std::shared_ptr<MetricsPage> page,
                                                               AcceptingCheck accepting) {
  boost::system::error_code ec;
  const auto ip = asio::ip::make_address(address, ec);
  if (ec) return make_error(std::make_error_code(std::errc::invalid_argument));
  tcp::acceptor acceptor(io);
  const tcp::endpoint endpoint(ip, port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return make_error(transport::to_error_code(ec));
  return std::shared_ptr<MetricsEndpoint>(
      new MetricsEndpoint(std::move(acceptor), std::move(page), std::move(accepting)));
}

tcp::endpoint MetricsEndpoint::local_endpoint() const {
  boost::system::error_code ec;
  return acceptor_.local_endpoint(ec);
}

void MetricsEndpoint::start() {
  asio::co_spawn(
      acceptor_.get_executor(), [self = shared_from_this()] { return self->accept_loop(); },
      asio::detached);
}

void MetricsEndpoint::stop() {
  boost::system::error_code ignored;
  acceptor_.close(ignored);
}

transport::awaitable<void> MetricsEndpoint::accept_loop() {
  while (acceptor_.is_open()) {
    boost::system::error_code ec;
    auto socket =
        co_await acceptor_.async_accept(asio::redirect_error(transport::use_awaitable, ec));
    if (ec) {
      if (ec == asio::error::operation_aborted) co_return;
      continue;
    }
    const auto executor = socket.get_executor();
    asio::co_spawn(executor, answer(std::move(socket), shared_from_this()), asio::detached);
  }
}

transport::awaitable<void> MetricsEndpoint::answer(tcp::socket socket,
                                                   std::shared_ptr<MetricsEndpoint> self) {
  auto deadline = std::make_shared<transport::Deadline>(socket.get_executor());
  deadline->expires_after(kRequestTimeout);
  auto* raw = &socket;
  transport::start_watch(deadline, [raw] {
    boost::system::error_code ignored;
    raw->close(ignored);
  });
  std::string head;
  boost::system::error_code ec;
  char buffer[1024];
  while (head.find("\r\n\r\n") == std::string::npos &&
         head.size() <= protocol::metrics::kMaxRequestHead) {
    const auto got = co_await socket.async_read_some(
        asio::buffer(buffer), asio::redirect_error(transport::use_awaitable, ec));
    if (ec) break;
    head.append(buffer, got);
  }
  if (!ec) {
    const auto readiness = self->accepting_() ? protocol::metrics::Readiness::Accepting
                                              : protocol::metrics::Readiness::NotAccepting;
    const auto reply = protocol::metrics::answer_scrape(
        head.substr(0, head.find("\r\n\r\n")), readiness,
        protocol::metrics::format_exposition(self->page_->snapshot()));
    co_await asio::async_write(socket, asio::buffer(reply),
                               asio::redirect_error(transport::use_awaitable, ec));
  }
  deadline->stop();
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

}  // namespace gridftp::server
