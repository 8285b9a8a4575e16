// The Prometheus scrape endpoint ([metrics], off by default, a local address): one coroutine
// accepting on the listener's io_context, one short exchange per connection
// (protocol/metrics/scrape_answer), the counters read from the shared page. It also answers the
// probes /healthz and /readyz, the latter from the server's own word on whether it accepts.
#pragma once

#include <functional>
#include <memory>

#include "protocol/core/result.hpp"
#include "server/metrics/metrics_page.hpp"
#include "transport/asio.hpp"

namespace gridftp::server {

class MetricsEndpoint : public std::enable_shared_from_this<MetricsEndpoint> {
 public:
  // Whether the server takes new control connections now; called on the endpoint's executor.
  using AcceptingCheck = std::function<bool()>;
  // Binds `address`:`port` (0: any free port). Errors: bad address, errno from bind/listen.
  static Result<std::shared_ptr<MetricsEndpoint>> open(transport::asio::io_context& io,
                                                       const std::string& address,
                                                       std::uint16_t port,
                                                       std::shared_ptr<MetricsPage> page,
                                                       AcceptingCheck accepting);
  transport::tcp::endpoint local_endpoint() const;
  void start();
  void stop();

 private:
  MetricsEndpoint(transport::tcp::acceptor acceptor, std::shared_ptr<MetricsPage> page,
                  AcceptingCheck accepting)
      : acceptor_(std::move(acceptor)), page_(std::move(page)), accepting_(std::move(accepting)) {}
  transport::awaitable<void> accept_loop();
  static transport::awaitable<void> answer(transport::tcp::socket socket,
                                           std::shared_ptr<MetricsEndpoint> self);

  transport::tcp::acceptor acceptor_;
  std::shared_ptr<MetricsPage> page_;
  AcceptingCheck accepting_;
};

}  // namespace gridftp::server
