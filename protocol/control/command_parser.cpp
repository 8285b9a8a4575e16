#include "protocol/control/command_parser.hpp"

#include <array>
#include <cctype>
#include <utility>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol::control {
namespace {

struct VerbName {
  Verb verb;
  std::string_view name;
};

// One row per verb; XPWD/XMKD/... are the RFC 775 aliases some clients still send.
constexpr std::array kVerbNames{
    VerbName{Verb::User, "USER"}, VerbName{Verb::Pass, "PASS"}, VerbName{Verb::Acct, "ACCT"},
    VerbName{Verb::Quit, "QUIT"}, VerbName{Verb::Noop, "NOOP"}, VerbName{Verb::Syst, "SYST"},
    VerbName{Verb::Feat, "FEAT"}, VerbName{Verb::Opts, "OPTS"}, VerbName{Verb::Help, "HELP"},
    VerbName{Verb::Stat, "STAT"}, VerbName{Verb::Type, "TYPE"}, VerbName{Verb::Mode, "MODE"},
    VerbName{Verb::Stru, "STRU"}, VerbName{Verb::Pasv, "PASV"}, VerbName{Verb::Epsv, "EPSV"},
    VerbName{Verb::Port, "PORT"}, VerbName{Verb::Eprt, "EPRT"}, VerbName{Verb::Spas, "SPAS"},
    VerbName{Verb::Spor, "SPOR"}, VerbName{Verb::Retr, "RETR"}, VerbName{Verb::Stor, "STOR"},
    VerbName{Verb::Appe, "APPE"}, VerbName{Verb::Eret, "ERET"}, VerbName{Verb::Esto, "ESTO"},
    VerbName{Verb::Rest, "REST"}, VerbName{Verb::Abor, "ABOR"}, VerbName{Verb::Allo, "ALLO"},
    VerbName{Verb::Size, "SIZE"}, VerbName{Verb::Mdtm, "MDTM"}, VerbName{Verb::Mfmt, "MFMT"},
    VerbName{Verb::Mlst, "MLST"}, VerbName{Verb::Mlsd, "MLSD"}, VerbName{Verb::List, "LIST"},
    VerbName{Verb::Nlst, "NLST"}, VerbName{Verb::Cwd, "CWD"},   VerbName{Verb::Cdup, "CDUP"},
    VerbName{Verb::Pwd, "PWD"},   VerbName{Verb::Mkd, "MKD"},   VerbName{Verb::Rmd, "RMD"},
    VerbName{Verb::Dele, "DELE"}, VerbName{Verb::Rnfr, "RNFR"}, VerbName{Verb::Rnto, "RNTO"},
    VerbName{Verb::Site, "SITE"}, VerbName{Verb::Auth, "AUTH"}, VerbName{Verb::Adat, "ADAT"},
    VerbName{Verb::Pbsz, "PBSZ"}, VerbName{Verb::Prot, "PROT"}, VerbName{Verb::Dcau, "DCAU"},
    VerbName{Verb::Sbuf, "SBUF"}, VerbName{Verb::Cksm, "CKSM"}, VerbName{Verb::Trev, "TREV"},
    VerbName{Verb::Lang, "LANG"}, VerbName{Verb::Pwd, "XPWD"},  VerbName{Verb::Cwd, "XCWD"},
    VerbName{Verb::Cdup, "XCUP"}, VerbName{Verb::Mkd, "XMKD"},  VerbName{Verb::Rmd, "XRMD"},
    VerbName{Verb::Enc, "ENC"},   VerbName{Verb::Mic, "MIC"},   VerbName{Verb::Conf, "CONF"},
    VerbName{Verb::Ccc, "CCC"},   VerbName{Verb::Bret, "BRET"}, VerbName{Verb::Brst, "BRST"},
    VerbName{Verb::Bsto, "BSTO"},
};

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) != static_cast<unsigned char>(b[i])) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<Verb> find_verb(std::string_view name) {
  for (const auto& row : kVerbNames) {
    if (equals_ignoring_case(name, row.name)) return row.verb;
  }
  return std::nullopt;
}

std::string_view verb_name(Verb verb) {
  for (const auto& row : kVerbNames) {
    if (row.verb == verb) return row.name;
  }
  return "?";
}

Result<Command> parse_command(std::string_view line) {
  // Leading spaces are tolerated (some clients pad); a blank line is not a command.
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  if (line.empty()) return make_error(Errc::EmptyCommand);
  const auto space = line.find(' ');
  const auto name = line.substr(0, space);
  const auto verb = find_verb(name);
  if (!verb) return make_error(Errc::UnknownVerb);
  std::string argument;
  if (space != std::string_view::npos) argument = std::string(line.substr(space + 1));
  return Command{*verb, std::move(argument)};
}

}  // namespace gridftp::protocol::control
