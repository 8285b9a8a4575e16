#include "server/session/command_table.hpp"

#include <array>

namespace gridftp::server {
namespace {

using protocol::control::Verb;
using S = ControlSession;
using L = LoginCommands;
using N = NamespaceCommands;
using D = DataSetupCommands;
using T = TransferParameterCommands;
using P = ProtectionCommands;
using I = DiscoveryCommands;
using C = ChecksumCommands;
using X = TransferCommands;

struct Row {
  Verb verb;
  CommandHandler handler;
};

constexpr std::array kRows{
    Row{Verb::User, handled_by<&L::on_user>}, Row{Verb::Pass, handled_by<&L::on_pass>},
    Row{Verb::Acct, handled_by<&L::on_acct>}, Row{Verb::Quit, handled_by<&L::on_quit>},
    Row{Verb::Auth, handled_by<&S::on_auth>}, Row{Verb::Adat, handled_by<&S::on_adat>},
    Row{Verb::Noop, handled_by<&I::on_noop>}, Row{Verb::Syst, handled_by<&I::on_syst>},
    Row{Verb::Feat, handled_by<&I::on_feat>}, Row{Verb::Opts, handled_by<&T::on_opts>},
    Row{Verb::Help, handled_by<&I::on_help>}, Row{Verb::Stat, handled_by<&S::on_stat>},
    Row{Verb::Site, handled_by<&S::on_site>}, Row{Verb::Type, handled_by<&T::on_type>},
    Row{Verb::Mode, handled_by<&T::on_mode>}, Row{Verb::Stru, handled_by<&T::on_stru>},
    Row{Verb::Allo, handled_by<&T::on_allo>}, Row{Verb::Lang, handled_by<&I::on_lang>},
    Row{Verb::Pbsz, handled_by<&P::on_pbsz>}, Row{Verb::Prot, handled_by<&P::on_prot>},
    Row{Verb::Cwd, handled_by<&N::on_cwd>},   Row{Verb::Cdup, handled_by<&N::on_cdup>},
    Row{Verb::Pwd, handled_by<&N::on_pwd>},   Row{Verb::Mkd, handled_by<&N::on_mkd>},
    Row{Verb::Rmd, handled_by<&N::on_rmd>},   Row{Verb::Dele, handled_by<&N::on_dele>},
    Row{Verb::Rnfr, handled_by<&N::on_rnfr>}, Row{Verb::Rnto, handled_by<&N::on_rnto>},
    Row{Verb::Size, handled_by<&N::on_size>}, Row{Verb::Mdtm, handled_by<&N::on_mdtm>},
    Row{Verb::Mfmt, handled_by<&N::on_mfmt>}, Row{Verb::Mlst, handled_by<&N::on_mlst>},
    Row{Verb::Pasv, handled_by<&D::on_pasv>}, Row{Verb::Epsv, handled_by<&D::on_epsv>},
    Row{Verb::Port, handled_by<&D::on_port>}, Row{Verb::Eprt, handled_by<&D::on_eprt>},
    Row{Verb::Rest, handled_by<&T::on_rest>}, Row{Verb::Retr, handled_by<&X::on_retr>},
    Row{Verb::Stor, handled_by<&X::on_stor>}, Row{Verb::Appe, handled_by<&X::on_appe>},
    Row{Verb::List, handled_by<&X::on_list>}, Row{Verb::Nlst, handled_by<&X::on_nlst>},
    Row{Verb::Mlsd, handled_by<&X::on_mlsd>}, Row{Verb::Abor, handled_by<&X::on_abor>},
    Row{Verb::Eret, handled_by<&X::on_eret>}, Row{Verb::Esto, handled_by<&X::on_esto>},
    Row{Verb::Spas, handled_by<&D::on_spas>}, Row{Verb::Spor, handled_by<&D::on_spor>},
    Row{Verb::Dcau, handled_by<&P::on_dcau>}, Row{Verb::Sbuf, handled_by<&D::on_sbuf>},
    Row{Verb::Cksm, handled_by<&C::on_cksm>}, Row{Verb::Trev, handled_by<&T::on_trev>},
    Row{Verb::Bret, handled_by<&X::on_bret>}, Row{Verb::Brst, handled_by<&X::on_brst>},
    Row{Verb::Bsto, handled_by<&X::on_bsto>},
};

}  // namespace

CommandHandler handler_for(Verb verb) {
  for (const auto& row : kRows) {
    if (row.verb == verb) return row.handler;
  }
  return nullptr;
}

}  // namespace gridftp::server
