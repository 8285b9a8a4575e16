#include "server/session/command_table.hpp"

#include <utility>

#include <catch2/catch.hpp>

namespace gridftp::server {
namespace {

using protocol::control::Verb;
using S = ControlSession;
using N = NamespaceCommands;
using D = DataSetupCommands;
using L = LoginCommands;
using T = TransferParameterCommands;
using P = ProtectionCommands;
using I = DiscoveryCommands;
using C = ChecksumCommands;
using X = TransferCommands;

std::pair<Verb, CommandHandler> row(Verb verb, CommandHandler handler) { return {verb, handler}; }

TEST_CASE("Each served verb runs its own handler, on the part that owns it", "[session][control]") {
  const auto [verb, expected] =
      GENERATE(row(Verb::User, handled_by<&L::on_user>), row(Verb::Pass, handled_by<&L::on_pass>),
               row(Verb::Acct, handled_by<&L::on_acct>), row(Verb::Quit, handled_by<&L::on_quit>),
               row(Verb::Auth, handled_by<&S::on_auth>), row(Verb::Adat, handled_by<&S::on_adat>),
               row(Verb::Noop, handled_by<&I::on_noop>), row(Verb::Syst, handled_by<&I::on_syst>),
               row(Verb::Feat, handled_by<&I::on_feat>), row(Verb::Opts, handled_by<&T::on_opts>),
               row(Verb::Help, handled_by<&I::on_help>), row(Verb::Stat, handled_by<&S::on_stat>),
               row(Verb::Site, handled_by<&S::on_site>), row(Verb::Type, handled_by<&T::on_type>),
               row(Verb::Mode, handled_by<&T::on_mode>), row(Verb::Stru, handled_by<&T::on_stru>),
               row(Verb::Allo, handled_by<&T::on_allo>), row(Verb::Lang, handled_by<&I::on_lang>),
               row(Verb::Pbsz, handled_by<&P::on_pbsz>), row(Verb::Prot, handled_by<&P::on_prot>),
               row(Verb::Cwd, handled_by<&N::on_cwd>), row(Verb::Cdup, handled_by<&N::on_cdup>),
               row(Verb::Pwd, handled_by<&N::on_pwd>), row(Verb::Mkd, handled_by<&N::on_mkd>),
               row(Verb::Rmd, handled_by<&N::on_rmd>), row(Verb::Dele, handled_by<&N::on_dele>),
               row(Verb::Rnfr, handled_by<&N::on_rnfr>), row(Verb::Rnto, handled_by<&N::on_rnto>),
               row(Verb::Size, handled_by<&N::on_size>), row(Verb::Mdtm, handled_by<&N::on_mdtm>),
               row(Verb::Mfmt, handled_by<&N::on_mfmt>), row(Verb::Mlst, handled_by<&N::on_mlst>),
               row(Verb::Pasv, handled_by<&D::on_pasv>), row(Verb::Epsv, handled_by<&D::on_epsv>),
               row(Verb::Port, handled_by<&D::on_port>), row(Verb::Eprt, handled_by<&D::on_eprt>),
               row(Verb::Rest, handled_by<&T::on_rest>), row(Verb::Retr, handled_by<&X::on_retr>),
               row(Verb::Stor, handled_by<&X::on_stor>), row(Verb::Appe, handled_by<&X::on_appe>),
               row(Verb::List, handled_by<&X::on_list>), row(Verb::Nlst, handled_by<&X::on_nlst>),
               row(Verb::Mlsd, handled_by<&X::on_mlsd>), row(Verb::Abor, handled_by<&X::on_abor>),
               row(Verb::Eret, handled_by<&X::on_eret>), row(Verb::Esto, handled_by<&X::on_esto>),
               row(Verb::Spas, handled_by<&D::on_spas>), row(Verb::Spor, handled_by<&D::on_spor>),
               row(Verb::Dcau, handled_by<&P::on_dcau>), row(Verb::Sbuf, handled_by<&D::on_sbuf>),
               row(Verb::Cksm, handled_by<&C::on_cksm>), row(Verb::Trev, handled_by<&T::on_trev>));
  INFO("verb " << protocol::control::verb_name(verb));
  CHECK((handler_for(verb) == expected));
}

TEST_CASE("Protected-command wrappers have no handler row", "[session][control]") {
  // ENC/MIC are unwrapped before dispatch; CONF and CCC are not served (RFC 2228).
  const auto verb = GENERATE(Verb::Enc, Verb::Mic, Verb::Conf, Verb::Ccc);
  INFO("verb " << protocol::control::verb_name(verb));
  CHECK(handler_for(verb) == nullptr);
}

}  // namespace
}  // namespace gridftp::server
