// The argument of `SITE SETNETSTACK` (docs/UDPX.md §7): Globus's way to pick the data channel's
// network stack, a comma-separated list of XIO driver names, each optionally followed by
// ':' and its options. globus-url-copy sends it for -udt ("udt", or "udt,gsi" with DCAU on) and
// for -dcstack STACK verbatim; "default" goes back to TCP. gridftpd knows three drivers:
//   default | tcp            TCP data connections (what every other command already assumes)
//   udpx[:k=v;k=v...]        the UDPX channel; keys rate and min (bit/s with optional decimal
//                            k, M or G), policy (fixed, high, fair or low), mtu (bytes)
//   gsi                      after udpx: protection by UDPX's own keys (accepted, no effect)
// "udt" is recognised only to be refused with advice: UDT4 bytes are not what UDPX sends.
// Parsing only; whether the server allows the stack is the session's business.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "protocol/core/result.hpp"
#include "protocol/udpx/control_bodies.hpp"

namespace gridftp::protocol::control {

enum class NetStackKind { Tcp, Udpx };
using udpx::Policy;  // the HELLO's policy: one enum from the command line to the wire

struct NetStack {
  NetStackKind kind = NetStackKind::Tcp;
  std::optional<std::uint64_t> rate_bps;  // udpx: target rate
  std::optional<std::uint64_t> min_bps;   // udpx: minimum rate
  std::optional<Policy> policy;
  std::optional<unsigned> mtu;  // udpx: largest UDP payload, 576..9000

  friend bool operator==(const NetStack&, const NetStack&) = default;
};

// What went wrong, so the reply can say it: an unknown driver, a known but refused driver
// (udt), or a bad udpx option.
struct NetStackError {
  enum class Kind { UnknownDriver, UdtRefused, BadOption } kind;
  std::string detail;  // the driver or option at fault, as the client wrote it
};

// Returns the stack, or the reason it is refused.
std::variant<NetStack, NetStackError> parse_net_stack(std::string_view argument);

// "rate=900000000;min=10000000;policy=fair": the effective settings, as the 200 reply shows them.
std::string describe_udpx(std::uint64_t rate_bps, std::uint64_t min_bps, Policy policy);

// "fixed", "high", "fair" or "low", any case (SETNETSTACK's policy=, gridcp --policy).
std::optional<Policy> parse_policy(std::string_view text);

// A rate with an optional decimal suffix: "900M" is 900,000,000. Errors: BadArgument.
Result<std::uint64_t> parse_rate(std::string_view text);

}  // namespace gridftp::protocol::control
