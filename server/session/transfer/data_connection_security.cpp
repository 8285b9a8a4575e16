// The security of the next data connections, from what AUTH, DCAU and PROT left in the session's
// ControlSecurity (GFD.20 §3.6, RFC 4217 §9, docs/WIRE.md §5): built once per setting, on first
// use, and kept there until DCAU or PROT changes it.
#include <spdlog/spdlog.h>

#include "protocol/core/errors.hpp"
#include "server/session/transfer/transfer_commands.hpp"

namespace gridftp::server {

Result<std::shared_ptr<const DataSecurity>> TransferCommands::data_security() {
  if (security_.ftps) {
    if (security_.protection == security::DataProtection::Clear)
      return std::shared_ptr<const DataSecurity>{};
    if (!security_.data_security) security_.data_security = make_ftps_data_security(services_.ftps);
    return security_.data_security;
  }
  if (security_.dcau == 'N') {
    if (security_.protection != security::DataProtection::Clear)
      return make_error(error_code_for(Condition::ProtectionRequired));
    return std::shared_ptr<const DataSecurity>{};
  }
  if (security_.data_security) return security_.data_security;
  if (!security_.delegated || services_.gsi == nullptr) {
    // Globus fails the same way: DCAU A/S authenticate with the credential the client delegated.
    log_->warn("{} DCAU {} needs a delegated credential; the client did not delegate", tag_,
               security_.dcau);
    return make_error(error_code_for(Condition::DataConnection));
  }
  auto made = make_data_security(
      *security_.delegated, services_.gsi->trust, security_.protection,
      services_.gsi->config.integrity_only_safe,
      security_.dcau == 'A' ? security::identity(*security_.delegated) : security_.dcau_subject);
  if (!made) return make_error(made.error());
  security_.data_security = *made;
  return security_.data_security;
}

}  // namespace gridftp::server
