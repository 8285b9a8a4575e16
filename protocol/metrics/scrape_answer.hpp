// The HTTP side of the metrics endpoint: what to answer a request head with. Only `GET /metrics`
// (HEAD too) gets the exposition; anything else a short error. HTTP/1.1 with Connection: close,
// one request per connection, which is all a Prometheus scrape needs. Pure.
#pragma once

#include <string>
#include <string_view>

namespace gridftp::protocol::metrics {

// The most a request head may take; a longer one gets 431.
inline constexpr std::size_t kMaxRequestHead = 8192;

// The whole response to `head` (the request line and headers, up to the blank line), with
// `exposition` as the body of a successful scrape.
std::string answer_scrape(std::string_view head, std::string_view exposition);

}  // namespace gridftp::protocol::metrics
