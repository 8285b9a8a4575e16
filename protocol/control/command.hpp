// A parsed control-channel command: the verb as an enum and its raw argument text.
// Verbs are RFC 959/2228/2389/2428/3659 and GFD.20/GFD.47 names; see command_parser.cpp.
#pragma once

#include <string>
#include <string_view>

namespace gridftp::protocol::control {

enum class Verb {
  User,
  Pass,
  Acct,
  Quit,
  Noop,
  Syst,
  Feat,
  Opts,
  Help,
  Stat,
  Type,
  Mode,
  Stru,
  Pasv,
  Epsv,
  Port,
  Eprt,
  Spas,
  Spor,
  Retr,
  Stor,
  Appe,
  Eret,
  Esto,
  Rest,
  Abor,
  Allo,
  Size,
  Mdtm,
  Mfmt,
  Mlst,
  Mlsd,
  List,
  Nlst,
  Cwd,
  Cdup,
  Pwd,
  Mkd,
  Rmd,
  Dele,
  Rnfr,
  Rnto,
  Site,
  Auth,
  Adat,
  Pbsz,
  Prot,
  Dcau,
  Sbuf,
  Cksm,
  Trev,
  Lang,
  Enc,
  Mic,
  Conf,
  Ccc,   // RFC 2228 protected commands
  Bret,  // gridftpd batch retrieve and its restart point (docs/WIRE.md §7)
  Brst,
  Bsto,
};

struct Command {
  Verb verb;
  std::string argument;  // text after the first space, exactly as sent (file names keep spaces)
};

std::string_view verb_name(Verb verb);

}  // namespace gridftp::protocol::control
