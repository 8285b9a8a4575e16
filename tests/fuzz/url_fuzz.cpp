// URLs given to gridcp on its command line or in a -f list: scheme, user and password,
// bracketed IPv6 hosts, ports, percent-encoding.
#include <cstddef>
#include <cstdint>

#include "client/url.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace cl = gridftp::client;
  auto url = cl::parse_url(gridftp::fuzz::as_text(data, size));
  if (!url) return 0;
  if (url->is_remote()) {
    FUZZ_CHECK(!url->host.empty());
    FUZZ_CHECK(url->port != 0);
    FUZZ_CHECK(!url->path.empty() && url->path.front() == '/');
    // The origin never carries credentials, and parses back to the same host and port.
    auto again = cl::parse_url(url->origin() + "/");
    FUZZ_CHECK(again && again->host == url->host && again->port == url->port);
    FUZZ_CHECK(!again->has_user && again->user.empty() && again->password.empty());
  }
  (void)cl::display_url(*url);
  return 0;
}
