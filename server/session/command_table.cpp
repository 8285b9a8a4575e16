#include "server/session/command_table.hpp"

#include <array>

namespace gridftp::server {
namespace {

using protocol::control::Verb;
using S = ControlSession;

struct Row {
  Verb verb;
  ControlSession::Handler handler;
};

constexpr std::array kRows{
    Row{Verb::User, &S::on_user}, Row{Verb::Pass, &S::on_pass}, Row{Verb::Acct, &S::on_acct},
    Row{Verb::Quit, &S::on_quit}, Row{Verb::Auth, &S::on_auth}, Row{Verb::Adat, &S::on_adat},
    Row{Verb::Noop, &S::on_noop}, Row{Verb::Syst, &S::on_syst}, Row{Verb::Feat, &S::on_feat},
    Row{Verb::Opts, &S::on_opts}, Row{Verb::Help, &S::on_help}, Row{Verb::Stat, &S::on_stat},
    Row{Verb::Site, &S::on_site}, Row{Verb::Type, &S::on_type}, Row{Verb::Mode, &S::on_mode},
    Row{Verb::Stru, &S::on_stru}, Row{Verb::Allo, &S::on_allo}, Row{Verb::Lang, &S::on_lang},
    Row{Verb::Pbsz, &S::on_pbsz}, Row{Verb::Prot, &S::on_prot}, Row{Verb::Cwd, &S::on_cwd},
    Row{Verb::Cdup, &S::on_cdup}, Row{Verb::Pwd, &S::on_pwd},   Row{Verb::Mkd, &S::on_mkd},
    Row{Verb::Rmd, &S::on_rmd},   Row{Verb::Dele, &S::on_dele}, Row{Verb::Rnfr, &S::on_rnfr},
    Row{Verb::Rnto, &S::on_rnto}, Row{Verb::Size, &S::on_size}, Row{Verb::Mdtm, &S::on_mdtm},
    Row{Verb::Mfmt, &S::on_mfmt}, Row{Verb::Mlst, &S::on_mlst}, Row{Verb::Pasv, &S::on_pasv},
    Row{Verb::Epsv, &S::on_epsv}, Row{Verb::Port, &S::on_port}, Row{Verb::Eprt, &S::on_eprt},
    Row{Verb::Rest, &S::on_rest}, Row{Verb::Retr, &S::on_retr}, Row{Verb::Stor, &S::on_stor},
    Row{Verb::Appe, &S::on_appe}, Row{Verb::List, &S::on_list}, Row{Verb::Nlst, &S::on_nlst},
    Row{Verb::Mlsd, &S::on_mlsd}, Row{Verb::Abor, &S::on_abor}, Row{Verb::Eret, &S::on_eret},
    Row{Verb::Esto, &S::on_esto}, Row{Verb::Spas, &S::on_spas}, Row{Verb::Spor, &S::on_spor},
    Row{Verb::Dcau, &S::on_dcau}, Row{Verb::Sbuf, &S::on_sbuf}, Row{Verb::Cksm, &S::on_cksm},
    Row{Verb::Trev, &S::on_trev}, Row{Verb::Bret, &S::on_bret}, Row{Verb::Brst, &S::on_brst},
    Row{Verb::Bsto, &S::on_bsto},
};

}  // namespace

ControlSession::Handler handler_for(Verb verb) {
  for (const auto& row : kRows) {
    if (row.verb == verb) return row.handler;
  }
  return nullptr;
}

}  // namespace gridftp::server
