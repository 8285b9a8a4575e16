// globus-gridftp-server's options as its command line and its config files spell them
// (docs/GLOBUS.md §1, §2), read into (key, value) settings. What each setting does to gridftpd's
// own config is decided elsewhere; this only knows names, spellings and value syntax. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::server::globus {

enum class ValueKind { Flag, Number, Text };

struct OptionSpec {
  std::string_view key;         // config-file key, "restrict_paths"
  std::string_view long_flag;   // command line, "restrict-paths"
  std::string_view short_flag;  // "rp"; empty when there is none
  ValueKind kind;
};

// Every option of globus-gridftp-server 13 that a site's command line or config file may hold.
std::span<const OptionSpec> option_table();
const OptionSpec* option_by_key(std::string_view key);
const OptionSpec* option_by_flag(std::string_view flag);

struct Setting {
  std::string key;
  std::string value;   // a Flag's is "1" or "0"
  std::string origin;  // "command line", "/etc/gridftp.conf:12"
};

// Globus's numbers: decimal, with an optional b, k, M or G suffix (powers of 1024).
std::optional<std::uint64_t> parse_globus_number(std::string_view text);

// One command-line word as Globus reads it: one or two leading dashes; a flag negated by a
// `no-` or `n` prefix (`-no-fork`, `-nf`). The option and whether it was negated; nullopt when
// the word names no Globus option.
struct FlagWord {
  const OptionSpec* spec = nullptr;
  bool negated = false;
};
std::optional<FlagWord> read_flag_word(std::string_view word);

// Everything after the program name, all Globus options. Errors (Errc::BadArgument, `why`
// naming the word): an unknown option, a missing or malformed value.
Result<std::vector<Setting>> parse_globus_command_line(std::span<const std::string> words,
                                                       std::string& why);

// A config file in Globus's format: `key value` lines, `#` comment lines, values with spaces in
// double quotes, `$NAME value` setting an environment variable. Later lines win; nothing may
// follow a value. Errors name the file and line.
struct GlobusConfigFile {
  std::vector<Setting> settings;
  std::vector<std::pair<std::string, std::string>> environment;
};
Result<GlobusConfigFile> parse_globus_config_file(std::string_view text, std::string_view name,
                                                  std::string& why);

// Whether a config directory (`-C`, /etc/gridftp.d) entry is read: not dot files, editor
// backups (`~`) or package leftovers (.bak, .rpmnew, .rpmsave, .dpkg-dist/-new/-old).
bool is_config_dir_entry(std::string_view file_name);

}  // namespace gridftp::server::globus
