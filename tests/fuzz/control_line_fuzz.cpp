// Control channel input as the server reads it: bytes from the peer through the line reader
// (telnet IAC handling, the line cap), then each line through the command parser and the
// parsers of the arguments that carry structure (PORT, EPRT, REST range lists).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "protocol/control/command_parser.hpp"
#include "protocol/control/host_port.hpp"
#include "protocol/control/line_reader.hpp"
#include "protocol/restart/byte_range_set.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using gridftp::protocol::control::LineEvent;
using gridftp::protocol::control::LineReader;

constexpr std::size_t kMaxLine = 512;

std::vector<LineEvent> read_lines(std::string_view bytes, std::size_t split) {
  LineReader reader(kMaxLine);
  std::vector<LineEvent> events;
  reader.feed(std::span(bytes.data(), split), events);
  reader.feed(std::span(bytes.data() + split, bytes.size() - split), events);
  return events;
}

void parse_arguments(std::string_view line) {
  namespace pc = gridftp::protocol::control;
  auto command = pc::parse_command(line);
  if (!command) return;
  if (auto port = pc::parse_port_argument(command->argument)) {
    // What we parsed formats back to a PORT argument that parses to the same endpoint.
    auto again = pc::parse_port_argument(pc::format_port_argument(*port));
    FUZZ_CHECK(again && again->address == port->address && again->port == port->port);
  }
  if (auto eprt = pc::parse_eprt_argument(command->argument)) {
    auto again = pc::parse_eprt_argument(pc::format_eprt_argument(*eprt));
    FUZZ_CHECK(again && again->port == eprt->port && again->is_ipv6 == eprt->is_ipv6);
  }
  if (auto ranges = gridftp::protocol::restart::parse_range_list(command->argument)) {
    auto again = gridftp::protocol::restart::parse_range_list(ranges->format_range_list());
    FUZZ_CHECK(again && *again == *ranges);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = gridftp::fuzz::as_text(data, size);
  const auto whole = read_lines(bytes, size);
  // However the bytes are split across reads, the reader sees the same lines.
  const auto split = read_lines(bytes, size / 2);
  FUZZ_CHECK(whole.size() == split.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    FUZZ_CHECK(whole[i].line == split[i].line && whole[i].too_long == split[i].too_long);
    FUZZ_CHECK(whole[i].line.size() <= kMaxLine);
    FUZZ_CHECK(whole[i].line.find('\n') == std::string::npos);
    if (!whole[i].too_long) parse_arguments(whole[i].line);
  }
  return 0;
}
