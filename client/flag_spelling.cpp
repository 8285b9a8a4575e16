#include "client/flag_spelling.hpp"

#include <algorithm>
#include <array>

namespace gridftp::client {
namespace {

// One flag under each of its names. `reason` empty: accepted.
struct FlagSpec {
  std::string_view name;
  bool takes_value;
  std::string_view reason;
};

constexpr std::string_view kModules =
    "gridcp names no storage module to the servers; each uses its configured one";
constexpr std::string_view kAssertions = "no authorization assertions are sent";
constexpr std::string_view kStacks =
    "XIO driver stacks cannot be chosen; -udp selects gridftpd's UDPX data channel";
constexpr std::string_view kPipes = "gridcp runs no commands on the servers (popen)";
constexpr std::string_view kDumps =
    "gridcp writes no URL dump files; failed files are listed on "
    "stderr and -rst retries them";
constexpr std::string_view kRoleCredentials =
    "one credential serves both servers; give it with -cred";

// Every flag of `globus-url-copy -help` (10.12), then gridcp's own (also taken with one dash so
// that scripts need not care). "h" is CLI11's help.
constexpr std::array kFlags{
    FlagSpec{"help", false, {}},
    FlagSpec{"usage", false, {}},
    FlagSpec{"h", false, {}},
    FlagSpec{"version", false, {}},
    FlagSpec{"versions", false, {}},
    FlagSpec{"c", false, {}},
    FlagSpec{"continue-on-error", false, {}},
    FlagSpec{"a", false, "gridcp copies bytes unchanged (TYPE I); no ASCII conversion"},
    FlagSpec{"ascii", false, "gridcp copies bytes unchanged (TYPE I); no ASCII conversion"},
    FlagSpec{"b", false, {}},
    FlagSpec{"binary", false, {}},
    FlagSpec{"f", true, {}},
    FlagSpec{"cd", false, {}},
    FlagSpec{"create-dest", false, {}},
    FlagSpec{"r", false, {}},
    FlagSpec{"recurse", false, {}},
    FlagSpec{"fast", false, {}},
    FlagSpec{"t", true, "no timed runs; bound a run with timeout(1)"},
    FlagSpec{"q", false, {}},
    FlagSpec{"quiet", false, {}},
    FlagSpec{"v", false, {}},
    FlagSpec{"verbose", false, {}},
    FlagSpec{"vb", false, {}},
    FlagSpec{"verbose-perf", false, {}},
    FlagSpec{"dbg", false, {}},
    FlagSpec{"debugftp", false, {}},
    FlagSpec{"rst", false, {}},
    FlagSpec{"restart", false, {}},
    FlagSpec{"rst-retries", true, {}},
    FlagSpec{"rst-interval", true, {}},
    FlagSpec{"rst-timeout", true, {}},
    FlagSpec{"stall-timeout", true, {}},
    FlagSpec{"st", true, {}},
    FlagSpec{"df", true, kDumps},
    FlagSpec{"dumpfile", true, kDumps},
    FlagSpec{"do", true, kDumps},
    FlagSpec{"dump-only", true, kDumps},
    FlagSpec{"rp", false, "URL paths are always taken from the server's root"},
    FlagSpec{"relative-paths", false, "URL paths are always taken from the server's root"},
    FlagSpec{"s", true, {}},
    FlagSpec{"subject", true, {}},
    FlagSpec{"ss", true, {}},
    FlagSpec{"source-subject", true, {}},
    FlagSpec{"ds", true, {}},
    FlagSpec{"dest-subject", true, {}},
    FlagSpec{"tcp-bs", true, {}},
    FlagSpec{"tcp-buffer-size", true, {}},
    FlagSpec{"bs", true, {}},
    FlagSpec{"block-size", true, {}},
    FlagSpec{"p", true, {}},
    FlagSpec{"parallel", true, {}},
    FlagSpec{"notpt", false, "gridcp always has the servers copy directly to each other"},
    FlagSpec{"no-third-party-transfers", false,
             "gridcp always has the servers copy directly to each other"},
    FlagSpec{"nodcau", false, {}},
    FlagSpec{"no-data-channel-authentication", false, {}},
    FlagSpec{"dcsafe", false, {}},
    FlagSpec{"data-channel-safe", false, {}},
    FlagSpec{"dcpriv", false, {}},
    FlagSpec{"data-channel-private", false, {}},
    FlagSpec{"off", true, {}},
    FlagSpec{"partial-offset", true, {}},
    FlagSpec{"len", true, {}},
    FlagSpec{"partial-length", true, {}},
    FlagSpec{"list", true, {}},
    FlagSpec{"stripe", false, {}},
    FlagSpec{"striped-block-size", true, {}},
    FlagSpec{"sbs", true, {}},
    FlagSpec{"ipv6", false, {}},
    FlagSpec{"udt", false, "no UDT; -udp selects gridftpd's UDPX data channel"},
    FlagSpec{"no-g2", false, {}},
    FlagSpec{"nogridftp2", false, {}},
    FlagSpec{"dp", false, {}},
    FlagSpec{"delayed-pasv", false, {}},
    FlagSpec{"mn", true, kModules},
    FlagSpec{"module-name", true, kModules},
    FlagSpec{"mp", true, kModules},
    FlagSpec{"module-parameters", true, kModules},
    FlagSpec{"smn", true, kModules},
    FlagSpec{"src-module-name", true, kModules},
    FlagSpec{"smp", true, kModules},
    FlagSpec{"src-module-parameters", true, kModules},
    FlagSpec{"dmn", true, kModules},
    FlagSpec{"dst-module-name", true, kModules},
    FlagSpec{"dmp", true, kModules},
    FlagSpec{"dst-module-parameters", true, kModules},
    FlagSpec{"aa", true, kAssertions},
    FlagSpec{"authz-assert", true, kAssertions},
    FlagSpec{"saa", true, kAssertions},
    FlagSpec{"src-authz-assert", true, kAssertions},
    FlagSpec{"daa", true, kAssertions},
    FlagSpec{"dst-authz-assert", true, kAssertions},
    FlagSpec{"cache-aa", false, kAssertions},
    FlagSpec{"cache-authz-assert", false, kAssertions},
    FlagSpec{"cache-saa", false, kAssertions},
    FlagSpec{"cache-src-authz-assert", false, kAssertions},
    FlagSpec{"cache-daa", false, kAssertions},
    FlagSpec{"cache-dst-authz-assert", false, kAssertions},
    FlagSpec{"pipeline", false, {}},
    FlagSpec{"pp", false, {}},
    FlagSpec{"concurrency", true, {}},
    FlagSpec{"cc", true, {}},
    FlagSpec{"nl-bottleneck", false, "NetLogger is not built in"},
    FlagSpec{"nlb", false, "NetLogger is not built in"},
    FlagSpec{"src-pipe", true, kPipes},
    FlagSpec{"SP", true, kPipes},
    FlagSpec{"dst-pipe", true, kPipes},
    FlagSpec{"DP", true, kPipes},
    FlagSpec{"pipe", true, kPipes},
    FlagSpec{"dcstack", true, kStacks},
    FlagSpec{"data-channel-stack", true, kStacks},
    FlagSpec{"fsstack", true, kStacks},
    FlagSpec{"file-system-stack", true, kStacks},
    FlagSpec{"src-dcstack", true, kStacks},
    FlagSpec{"source-data-channel-stack", true, kStacks},
    FlagSpec{"src-fsstack", true, kStacks},
    FlagSpec{"source-file-system-stack", true, kStacks},
    FlagSpec{"dst-dcstack", true, kStacks},
    FlagSpec{"dest-data-channel-stack", true, kStacks},
    FlagSpec{"dst-fsstack", true, kStacks},
    FlagSpec{"dest-file-system-stack", true, kStacks},
    FlagSpec{"cred", true, {}},
    FlagSpec{"src-cred", true, kRoleCredentials},
    FlagSpec{"sc", true, kRoleCredentials},
    FlagSpec{"dst-cred", true, kRoleCredentials},
    FlagSpec{"dc", true, kRoleCredentials},
    FlagSpec{"data-cred", true, "data channels always use the login credential (no DCSC)"},
    FlagSpec{"af", true, "no host alias files; name each server in its URL"},
    FlagSpec{"alias-file", true, "no host alias files; name each server in its URL"},
    FlagSpec{"sync", false, {}},
    FlagSpec{"sync-level", true, {}},
    FlagSpec{"checksum-alg", true, {}},
    FlagSpec{"verify-checksum", false, {}},
    // gridcp's own.
    FlagSpec{"no-batch", false, {}},
    FlagSpec{"json", false, {}},
    FlagSpec{"no-progress", false, {}},
    FlagSpec{"udp", false, {}},
    FlagSpec{"udp-unauthenticated", false, {}},
    FlagSpec{"rate", true, {}},
    FlagSpec{"min-rate", true, {}},
    FlagSpec{"policy", true, {}},
    FlagSpec{"ftps-ca", true, {}},
    FlagSpec{"ftps-insecure", false, {}},
};

}  // namespace

FlagWord classify_flag_word(std::string_view name) {
  const auto* found = std::find_if(kFlags.begin(), kFlags.end(),
                                   [name](const FlagSpec& spec) { return spec.name == name; });
  if (found == kFlags.end()) {
    return {};
  }
  return {found->reason.empty() ? FlagKind::Accepted : FlagKind::Refused, found->takes_value,
          found->reason};
}

SpelledArguments spell_flags(const std::vector<std::string_view>& arguments) {
  SpelledArguments out;
  const auto fail = [&out](std::string message) {
    out.arguments.clear();
    out.error = std::move(message);
    return out;
  };
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const auto word = arguments[i];
    if (word == "--") {
      out.arguments.insert(out.arguments.end(), arguments.begin() + static_cast<long>(i),
                           arguments.end());
      break;
    }
    if (word.size() < 2 || word[0] != '-') {
      out.arguments.emplace_back(word);  // a URL, a value, or "-"
      continue;
    }
    const bool two_dashes = word[1] == '-';
    const auto body = word.substr(two_dashes ? 2 : 1);
    const auto equals = body.find('=');
    const auto name = body.substr(0, equals);
    const bool attached = equals != std::string_view::npos;
    const auto typed = word.substr(0, word.size() - body.size() + name.size());
    const auto flag = classify_flag_word(name);
    if (two_dashes && flag.kind == FlagKind::Unknown) {
      out.arguments.emplace_back(word);  // CLI11 names an unknown --word itself
      continue;
    }
    if (flag.kind == FlagKind::Unknown) {
      return fail("unknown option " + std::string(typed) + " (gridcp --help lists the options)");
    }
    if (flag.kind == FlagKind::Refused) {
      return fail("option " + std::string(typed) +
                  " is not supported: " + std::string(flag.reason));
    }
    if (attached && !flag.takes_value) {
      return fail("option " + std::string(typed) + " takes no value");
    }
    if (flag.takes_value && !attached && i + 1 == arguments.size()) {
      return fail("option " + std::string(typed) + " needs a value");
    }
    if (name.size() == 1) {
      // CLI11 takes one letter after one dash; "-p=4" is split as "-p 4".
      out.arguments.push_back("-" + std::string(name));
      if (attached) out.arguments.emplace_back(body.substr(equals + 1));
    } else {
      out.arguments.push_back("--" + std::string(body));
    }
    if (flag.takes_value && !attached) {
      out.arguments.emplace_back(arguments[++i]);
    }
  }
  return out;
}

}  // namespace gridftp::client
