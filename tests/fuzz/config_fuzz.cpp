// Config files the server starts from: its TOML config and a Globus-format -c file. The first
// byte picks which; a TOML config that loads must print (--print-config) as TOML that loads to
// the same config.
#include <cstddef>
#include <cstdint>

#include "server/config/globus_options.hpp"
#include "server/config/server_config.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto text = gridftp::fuzz::as_text(data + 1, size - 1);
  if (data[0] & 1) {
    std::string why;
    auto file = gridftp::server::globus::parse_globus_config_file(text, "fuzz.conf", why);
    if (!file) FUZZ_CHECK(!why.empty());
    return 0;
  }
  const auto load = gridftp::server::parse_config(text, "fuzz.toml");
  if (!load.ok()) return 0;
  (void)gridftp::server::validate(load.config);
  const auto printed = gridftp::server::format_config(load.config);
  const auto again = gridftp::server::parse_config(printed, "printed.toml");
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(gridftp::server::format_config(again.config) == printed);
  return 0;
}
