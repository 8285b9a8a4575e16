// The Prometheus scrape endpoint ([metrics], off by default, a local address): one coroutine
// accepting on the listener's io_context, one short exchange per connection
// (protocol/metrics/scrape_answer), the counters read from the shared page.
#pragma once

#include <memory>

#include "protocol/core/result.hpp"
#include "server/metrics/metrics_page.hpp"
#include "transport/asio.hpp"

namespace gridftp::server {

class MetricsEndpoint : public std::enable_shared_from_this<MetricsEndpoint> {
 public:
  // Binds `address`:`port` (0: any free port). Errors: bad address, errno from bind/listen.
  static Result<std::shared_ptr<MetricsEndpoint>> open(transport::asio::io_context& io,
                                                       const std::string& address,
                                                       std::uint16_t port,
                                                       std::shared_ptr<MetricsPage> page);
  transport::tcp::endpoint local_endpoint() const;
  void start();
  void stop();

 private:
  MetricsEndpoint(transport::tcp::acceptor acceptor, std::shared_ptr<MetricsPage> page)
      : acceptor_(std::move(acceptor)), page_(std::move(page)) {}
  transport::awaitable<void> accept_loop();
  static transport::awaitable<void> answer(transport::tcp::socket socket,
                                           std::shared_ptr<MetricsPage> page);

  transport::tcp::acceptor acceptor_;
  std::shared_ptr<MetricsPage> page_;
};

}  // namespace gridftp::server
