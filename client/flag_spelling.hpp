// gridcp takes the words users type to globus-url-copy: every flag of `globus-url-copy -help`
// either works or is refused by name with a reason, and a one-dash word gridcp does not know is
// refused as a whole word ("-rp" never becomes "-r -p", as CLI11's short-flag bundling would
// read it). Multi-letter flags are given the second dash CLI11 needs. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gridftp::client {

enum class FlagKind {
  Accepted,  // gridcp does what globus-url-copy does with it
  Refused,   // a globus-url-copy flag gridcp does not offer; FlagWord::reason says why
  Unknown,   // neither globus-url-copy's nor gridcp's
};

struct FlagWord {
  FlagKind kind = FlagKind::Unknown;
  bool takes_value = false;
  std::string_view reason;  // Refused only
};

// What gridcp makes of the flag `name`, given without its dash(es) and without "=value":
// "tcp-bs", "p", "rp". Case matters, as in globus-url-copy (-dp is not -DP).
FlagWord classify_flag_word(std::string_view name);

struct SpelledArguments {
  std::vector<std::string> arguments;  // for CLI11; empty when `error` is set
  std::string error;                   // "unknown option -rp", ...; empty when all is well
};

// Checks every one-dash word against classify_flag_word and returns the arguments with each
// accepted multi-letter flag given two dashes ("-vb" -> "--vb", "-tcp-bs=1M" -> "--tcp-bs=1M").
// The word after a flag that takes a value is that value and passes unchanged, as does
// everything after "--" (so a file named "-vb" can still be given) and "-" alone. Unknown
// two-dash words are left to CLI11, which names them. The first unknown or refused word, a missing
// value or a value given to a flag that takes none ends the scan with `error` set.
SpelledArguments spell_flags(const std::vector<std::string_view>& arguments);

}  // namespace gridftp::client
