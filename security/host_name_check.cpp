#include "security/host_name_check.hpp"

#include <algorithm>

namespace gridftp::security {
namespace {

constexpr std::string_view kCommonNameTag = "/CN=";
constexpr std::string_view kHostServicePrefix = "host/";

char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return to_lower(x) == to_lower(y);
         });
}

bool is_attribute_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.';
}

// True when `text` (just after a '/') reads "name=".
bool starts_attribute(std::string_view text) {
  const auto equals = text.find('=');
  return equals != std::string_view::npos && equals > 0 &&
         std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(equals),
                     is_attribute_name_char);
}

}  // namespace

std::optional<std::string> last_common_name(std::string_view slash_dn) {
  std::size_t found = std::string_view::npos;
  for (auto at = slash_dn.find(kCommonNameTag); at != std::string_view::npos;
       at = slash_dn.find(kCommonNameTag, at + 1)) {
    found = at;
  }
  if (found == std::string_view::npos) {
    return std::nullopt;
  }
  auto value = slash_dn.substr(found + kCommonNameTag.size());
  for (auto slash = value.find('/'); slash != std::string_view::npos;
       slash = value.find('/', slash + 1)) {
    if (starts_attribute(value.substr(slash + 1))) {
      value = value.substr(0, slash);
      break;
    }
  }
  return std::string(value);
}

bool certificate_names_host(std::string_view slash_dn, std::string_view host) {
  const auto name = last_common_name(slash_dn);
  if (!name || host.empty() || name->find('*') != std::string::npos) {
    return false;
  }
  std::string_view common_name(*name);
  if (common_name.size() > kHostServicePrefix.size() &&
      equals_ignoring_case(common_name.substr(0, kHostServicePrefix.size()), kHostServicePrefix)) {
    common_name.remove_prefix(kHostServicePrefix.size());
  }
  return equals_ignoring_case(common_name, host);
}

}  // namespace gridftp::security
