#include "server/config/globus_environment.hpp"

#include <charconv>
#include <cstdlib>
#include <system_error>
#include <tuple>

#include <fmt/format.h>

namespace gridftp::server::globus {
namespace {

std::optional<std::uint16_t> parse_port(std::string_view text) {
  unsigned value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || value == 0 || value > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// A range variable into (low, high) when the config left both at 0.
void apply_range(const EnvironmentView& env, std::string_view variable, std::uint16_t& low,
                 std::uint16_t& high, std::vector<std::string>& problems,
                 std::vector<std::string>& notes) {
  const auto value = env.variable(variable);
  if (!value || value->empty()) return;
  const auto range = parse_port_range(*value);
  if (!range) {
    problems.push_back(fmt::format("{}='{}' is not a port range MIN,MAX", variable, *value));
    return;
  }
  if (low != 0 || high != 0) {
    notes.push_back(fmt::format("{} ignored: the config sets the range", variable));
    return;
  }
  std::tie(low, high) = *range;
  notes.push_back(fmt::format("{}: data ports {}-{}", variable, low, high));
}

void apply_credential_locations(GsiConfig& gsi, const EnvironmentView& env,
                                std::vector<std::string>& notes) {
  const GsiConfig defaults;
  const auto cert = env.variable("X509_USER_CERT");
  const auto key = env.variable("X509_USER_KEY");
  // Globus takes the pair only together; one alone leaves the standard locations.
  if (cert && key && !cert->empty() && !key->empty()) {
    if (gsi.host_cert == defaults.host_cert && gsi.host_key == defaults.host_key) {
      gsi.host_cert = *cert;
      gsi.host_key = *key;
    } else {
      notes.emplace_back("X509_USER_CERT/X509_USER_KEY ignored: the config names the credential");
    }
  }
  if (const auto dir = env.variable("X509_CERT_DIR"); dir && !dir->empty()) {
    if (gsi.cert_dir == defaults.cert_dir) gsi.cert_dir = *dir;
  }
  if (const auto map = env.variable("GRIDMAP"); map && !map->empty()) {
    if (gsi.gridmap == defaults.gridmap) gsi.gridmap = *map;
  }
}

}  // namespace

EnvironmentView process_environment() {
  return {[](std::string_view name) -> std::optional<std::string> {
            const char* value = std::getenv(std::string(name).c_str());
            if (value == nullptr) return std::nullopt;
            return std::string(value);
          },
          [](const std::filesystem::path& path) {
            std::error_code ec;
            return std::filesystem::is_regular_file(path, ec);
          }};
}

std::optional<std::pair<std::uint16_t, std::uint16_t>> parse_port_range(std::string_view text) {
  text = trim(text);
  const auto split = text.find_first_of(", ");
  if (split == std::string_view::npos) return std::nullopt;
  const auto low = parse_port(trim(text.substr(0, split)));
  const auto high = parse_port(trim(text.substr(split + 1)));
  if (!low || !high || *low > *high) return std::nullopt;
  return std::pair{*low, *high};
}

std::vector<std::string> apply_globus_environment(ServerConfig& config, const EnvironmentView& env,
                                                  std::vector<std::string>& notes) {
  std::vector<std::string> problems;
  apply_credential_locations(config.gsi, env, notes);
  if (config.gsi.enabled_unset) {
    config.gsi.enabled =
        env.file_exists(config.gsi.host_cert) && env.file_exists(config.gsi.host_key);
    notes.push_back(
        config.gsi.enabled
            ? fmt::format("GSI on: host credential {} found", config.gsi.host_cert.string())
            : fmt::format("GSI off: no host credential at {} and {}", config.gsi.host_cert.string(),
                          config.gsi.host_key.string()));
  }
  apply_range(env, "GLOBUS_TCP_PORT_RANGE", config.listen.passive_port_min,
              config.listen.passive_port_max, problems, notes);
  apply_range(env, "GLOBUS_TCP_SOURCE_RANGE", config.listen.source_port_min,
              config.listen.source_port_max, problems, notes);
  if (const auto host = env.variable("GLOBUS_HOSTNAME");
      host && !host->empty() && config.listen.data_interface.empty()) {
    config.listen.data_interface = *host;
    notes.push_back(fmt::format("GLOBUS_HOSTNAME: data connections announce {}", *host));
  }
  return problems;
}

}  // namespace gridftp::server::globus
