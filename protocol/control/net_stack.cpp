#include "protocol/control/net_stack.hpp"

#include <charconv>
#include <limits>

#include "protocol/core/decimal.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/core/text_case.hpp"

namespace gridftp::protocol::control {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

const char* policy_name(Policy policy) {
  switch (policy) {
    case Policy::Fixed:
      return "fixed";
    case Policy::High:
      return "high";
    case Policy::Fair:
      return "fair";
    case Policy::Low:
      return "low";
  }
  return "fair";
}

// Applies "k=v;k=v" to `stack`; returns the offending option on failure.
std::optional<std::string> apply_udpx_options(std::string_view options, NetStack& stack) {
  while (!options.empty()) {
    const auto end = options.find(';');
    const auto option = options.substr(0, end);
    options = end == std::string_view::npos ? std::string_view{} : options.substr(end + 1);
    if (option.empty()) continue;  // "rate=1G;" ends with a separator
    const auto equals = option.find('=');
    if (equals == std::string_view::npos) return std::string(option);
    const auto key = ascii_upper(std::string(option.substr(0, equals)));
    const auto value = option.substr(equals + 1);
    if (key == "RATE" || key == "MIN") {
      auto rate = parse_rate(value);
      if (!rate || *rate == 0) return std::string(option);
      (key == "RATE" ? stack.rate_bps : stack.min_bps) = *rate;
    } else if (key == "POLICY") {
      stack.policy = parse_policy(value);
      if (!stack.policy) return std::string(option);
    } else if (key == "MTU") {
      unsigned mtu = 0;
      const auto [end_of_number, error] =
          std::from_chars(value.data(), value.data() + value.size(), mtu);
      if (error != std::errc{} || end_of_number != value.data() + value.size() || mtu < 576 ||
          mtu > 9000) {
        return std::string(option);
      }
      stack.mtu = mtu;
    } else {
      return std::string(option);
    }
  }
  if (stack.rate_bps && stack.min_bps && *stack.min_bps > *stack.rate_bps) {
    return "min above rate";
  }
  return std::nullopt;
}

}  // namespace

Result<std::uint64_t> parse_rate(std::string_view text) {
  const auto rate = parse_scaled_decimal(text, 1000);
  if (!rate) return make_error(Errc::BadArgument);
  return *rate;
}

std::variant<NetStack, NetStackError> parse_net_stack(std::string_view argument) {
  NetStack stack;
  bool first = true;
  argument = trim(argument);
  if (argument.empty()) return NetStackError{NetStackError::Kind::UnknownDriver, ""};
  while (!argument.empty() || first) {
    const auto comma = argument.find(',');
    const auto element = trim(argument.substr(0, comma));
    argument = comma == std::string_view::npos ? std::string_view{} : argument.substr(comma + 1);
    const auto colon = element.find(':');
    const auto driver = ascii_upper(std::string(element.substr(0, colon)));
    const auto options =
        colon == std::string_view::npos ? std::string_view{} : element.substr(colon + 1);
    if (driver == "UDT") return NetStackError{NetStackError::Kind::UdtRefused, "udt"};
    if (first && (driver == "DEFAULT" || driver == "TCP") && options.empty()) {
      stack.kind = NetStackKind::Tcp;
    } else if (first && driver == "UDPX") {
      stack.kind = NetStackKind::Udpx;
      if (auto bad = apply_udpx_options(options, stack)) {
        return NetStackError{NetStackError::Kind::BadOption, *bad};
      }
    } else if (!first && driver == "GSI" && options.empty() && stack.kind == NetStackKind::Udpx) {
      // UDPX protects its packets itself; Globus names the GSI driver above the transport.
    } else {
      return NetStackError{NetStackError::Kind::UnknownDriver, std::string(element)};
    }
    first = false;
  }
  return stack;
}

std::optional<Policy> parse_policy(std::string_view text) {
  const auto name = ascii_upper(std::string(text));
  if (name == "FIXED") return Policy::Fixed;
  if (name == "HIGH") return Policy::High;
  if (name == "FAIR") return Policy::Fair;
  if (name == "LOW") return Policy::Low;
  return std::nullopt;
}

std::string describe_udpx(std::uint64_t rate_bps, std::uint64_t min_bps, Policy policy) {
  return "rate=" + std::to_string(rate_bps) + ";min=" + std::to_string(min_bps) +
         ";policy=" + policy_name(policy);
}

}  // namespace gridftp::protocol::control
