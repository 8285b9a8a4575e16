#include "server/session/command_table.hpp"

#include <utility>

#include <catch2/catch.hpp>

namespace gridftp::server {
namespace {

using protocol::control::Verb;
using S = ControlSession;

TEST_CASE("Each served verb runs its own handler", "[session][control]") {
  const auto [verb, expected] =
      GENERATE(std::pair{Verb::User, &S::on_user}, std::pair{Verb::Pass, &S::on_pass},
               std::pair{Verb::Acct, &S::on_acct}, std::pair{Verb::Quit, &S::on_quit},
               std::pair{Verb::Auth, &S::on_auth}, std::pair{Verb::Adat, &S::on_adat},
               std::pair{Verb::Noop, &S::on_noop}, std::pair{Verb::Syst, &S::on_syst},
               std::pair{Verb::Feat, &S::on_feat}, std::pair{Verb::Opts, &S::on_opts},
               std::pair{Verb::Help, &S::on_help}, std::pair{Verb::Stat, &S::on_stat},
               std::pair{Verb::Site, &S::on_site}, std::pair{Verb::Type, &S::on_type},
               std::pair{Verb::Mode, &S::on_mode}, std::pair{Verb::Stru, &S::on_stru},
               std::pair{Verb::Allo, &S::on_allo}, std::pair{Verb::Lang, &S::on_lang},
               std::pair{Verb::Pbsz, &S::on_pbsz}, std::pair{Verb::Prot, &S::on_prot},
               std::pair{Verb::Cwd, &S::on_cwd}, std::pair{Verb::Cdup, &S::on_cdup},
               std::pair{Verb::Pwd, &S::on_pwd}, std::pair{Verb::Mkd, &S::on_mkd},
               std::pair{Verb::Rmd, &S::on_rmd}, std::pair{Verb::Dele, &S::on_dele},
               std::pair{Verb::Rnfr, &S::on_rnfr}, std::pair{Verb::Rnto, &S::on_rnto},
               std::pair{Verb::Size, &S::on_size}, std::pair{Verb::Mdtm, &S::on_mdtm},
               std::pair{Verb::Mfmt, &S::on_mfmt}, std::pair{Verb::Mlst, &S::on_mlst},
               std::pair{Verb::Pasv, &S::on_pasv}, std::pair{Verb::Epsv, &S::on_epsv},
               std::pair{Verb::Port, &S::on_port}, std::pair{Verb::Eprt, &S::on_eprt},
               std::pair{Verb::Rest, &S::on_rest}, std::pair{Verb::Retr, &S::on_retr},
               std::pair{Verb::Stor, &S::on_stor}, std::pair{Verb::Appe, &S::on_appe},
               std::pair{Verb::List, &S::on_list}, std::pair{Verb::Nlst, &S::on_nlst},
               std::pair{Verb::Mlsd, &S::on_mlsd}, std::pair{Verb::Abor, &S::on_abor},
               std::pair{Verb::Eret, &S::on_eret}, std::pair{Verb::Esto, &S::on_esto},
               std::pair{Verb::Spas, &S::on_spas}, std::pair{Verb::Spor, &S::on_spor},
               std::pair{Verb::Dcau, &S::on_dcau}, std::pair{Verb::Sbuf, &S::on_sbuf},
               std::pair{Verb::Cksm, &S::on_cksm}, std::pair{Verb::Trev, &S::on_trev});
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
