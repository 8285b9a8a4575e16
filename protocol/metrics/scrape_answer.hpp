// The HTTP side of the metrics endpoint: what to answer a request head with. `GET /metrics`
// (HEAD too) gets the exposition; `/healthz` and `/readyz` are the probes an orchestrator asks
// (docs/METRICS.md, "Probes"); anything else a short error. HTTP/1.1 with Connection: close,
// one request per connection, which is all a Prometheus scrape or a kubelet probe needs. Pure.
#pragma once

#include <string>
#include <string_view>

namespace gridftp::protocol::metrics {

// The most a request head may take; a longer one gets 431.
inline constexpr std::size_t kMaxRequestHead = 8192;

// Whether the server takes new control connections: /readyz answers 200 only when it does.
enum class Readiness { Accepting, NotAccepting };

// The whole response to `head` (the request line and headers, up to the blank line), with
// `exposition` as the body of a successful scrape and `readiness` deciding /readyz.
std::string answer_scrape(std::string_view head, Readiness readiness, std::string_view exposition);

}  // namespace gridftp::protocol::metrics
