#include "protocol/control/striped_passive_reply.hpp"

#include <cctype>

#include "protocol/control/passive_reply.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::protocol::control {
namespace {

constexpr std::size_t kCodePrefix = 4;  // "229-" / "229 "

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

Result<HostPort> parse_stripe_line(std::string_view line) {
  const auto text = trimmed(line);
  if (!text.empty() && !std::isdigit(static_cast<unsigned char>(text.front())))
    return parse_eprt_argument(text);
  return parse_port_argument(text);
}

}  // namespace

Result<std::vector<HostPort>> parse_spas_reply(const std::vector<std::string>& lines) {
  std::vector<HostPort> stripes;
  if (lines.size() == 1) {
    // One line: the address sits in the text, as in a 227 ("... (h1,h2,h3,h4,p1,p2)").
    if (lines.front().size() <= kCodePrefix) return make_error(Errc::BadHostPort);
    auto only = parse_pasv_reply(std::string_view(lines.front()).substr(kCodePrefix));
    if (!only) return make_error(only.error());
    stripes.push_back(std::move(*only));
    return stripes;
  }
  // The first line is the text and the last "229 End"; every line between is one stripe.
  for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
    auto stripe = parse_stripe_line(lines[i]);
    if (!stripe) return make_error(stripe.error());
    stripes.push_back(std::move(*stripe));
  }
  if (stripes.empty()) return make_error(Errc::BadHostPort);
  return stripes;
}

Result<std::string> spor_argument_for(const std::vector<HostPort>& stripes) {
  if (stripes.empty()) return make_error(Errc::BadHostPort);
  std::string argument;
  for (const auto& stripe : stripes) {
    if (!argument.empty()) argument += ' ';
    argument += stripe.is_ipv6 ? format_eprt_argument(stripe) : format_port_argument(stripe);
  }
  return argument;
}

}  // namespace gridftp::protocol::control
