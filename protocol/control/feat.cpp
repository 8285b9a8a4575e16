#include "protocol/control/feat.hpp"

#include "protocol/control/reply_codes.hpp"

namespace gridftp::protocol::control {

Reply feat_reply(bool gsi, bool tls, bool udpx) {
  Reply reply{reply_code::kSystemStatus,
              {
                  "Extensions supported",
                  " UTF8",
                  " LANG EN",
                  " CKSM MD5;ADLER32;SHA1;SHA256;SHA512;CRC32C;",
                  " PARALLEL",
                  " ERET",
                  " ESTO",
                  " SPAS",
                  " SPOR",
                  " SBUF",
                  " MFMT",
                  " SIZE",
                  " MDTM",
                  " REST STREAM",
                  " TVFS",
                  " EPSV",
                  " EPRT",
                  // One facts line, split for width (not a missing comma).
                  // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
                  " MLST Type*;Size*;Modify*;Perm*;UNIX.mode*;UNIX.owner*;UNIX.uid*;UNIX.group*;"
                  "UNIX.gid*;Unique*;",
                  " BATCH BRET;BRST;BSTO;",
                  "End.",
              }};
  if (gsi) reply.lines.insert(reply.lines.end() - 1, " DCAU");
  if (udpx) reply.lines.insert(reply.lines.end() - 1, " UDPX");
  if (tls) reply.lines.insert(reply.lines.end() - 1, {" AUTH TLS", " PBSZ", " PROT"});
  return reply;
}

Reply help_reply() {
  return Reply{reply_code::kHelp,
               {
                   "The following commands are recognized:",
                   "    ALLO    APPE    REST    CWD     CDUP    EPSV    EPRT    FEAT",
                   "    MDTM    STAT    HELP    LIST    MODE    NLST    MLSD    PASV",
                   "    MLST    NOOP    OPTS    STOR    PASS    PORT    SITE    RETR",
                   "    MFMT    PWD     QUIT    SIZE    STRU    SYST    RNFR    RNTO",
                   "    TYPE    USER    MKD     RMD     DELE    ABOR    ACCT    LANG",
                   "    ERET    ESTO    SPAS    SPOR    CKSM    SBUF    TREV    DCAU",
                   "    BRET    BRST    BSTO",
                   "End",
               }};
}

Reply site_help_reply() {
  return Reply{reply_code::kHelp,
               {
                   "The following SITE commands are recognized:",
                   "    HELP    CLIENTINFO    WHOAMI    SETNETSTACK    UDPX    PARTIALS    DURABLE",
                   "End",
               }};
}

}  // namespace gridftp::protocol::control
