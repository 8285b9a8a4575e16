// What secures one session: the control channel (GSI after AUTH GSSAPI/ADAT, or FTPS after
// AUTH TLS; RFC 2228, RFC 4217, docs/WIRE.md §5) and the DCAU/PROT settings its data channels use.
// State and the small rules over it; the commands that drive it live in security_commands.cpp.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "security/credential.hpp"
#include "security/gsi_handshake.hpp"
#include "security/tls_contexts.hpp"
#include "security/tls_engine.hpp"
#include "server/data/data_security.hpp"

namespace gridftp::server {

struct ControlSecurity {
  // The GSI exchange while ADATs arrive; once `gsi_protected` is set, the engine that unwraps
  // every ENC/MIC command and wraps every reply line as 632/631.
  std::optional<security::GsiHandshake> gsi;
  bool gsi_protected = false;
  // FTPS: after AUTH TLS the session's control stream is a transport::TlsStream around the
  // clear one; commands and replies are plain lines inside it.
  bool ftps = false;
  // A mover's session (docs/STRIPING.md): the frontend that proved itself in the TLS handshake
  // that opened the connection; its commands and replies are plain lines inside that TLS.
  std::string frontend;
  std::string peer_dn;
  std::optional<security::Credential> delegated;
  // Data-channel security (DCAU, PROT): DCAU A after AUTH GSSAPI, as GFD.20 says.
  char dcau = 'N';
  std::string dcau_subject;  // DCAU S: the identity the data peer must prove
  security::DataProtection protection = security::DataProtection::Clear;
  std::shared_ptr<const DataSecurity> data_security;  // built on first use per setting

  // AUTH runs once: not while an exchange is under way, nor after one finished.
  bool has_exchange() const {
    return gsi_protected || gsi.has_value() || ftps || !frontend.empty();
  }
  // The last ADAT step succeeded: keeps who the peer is and what it delegated, and makes DCAU A
  // the default (GFD.20). The caller sets `gsi_protected` once the 235 is queued.
  void finish_gsi();
  // PROT and DCAU settings for the next data connections; what was built for the old ones goes.
  void set_protection(security::DataProtection level);
  void set_dcau(char mode, std::string subject);
  // The transfer log's `security` field: "none", "dcau=A prot=P", "ftps prot=P".
  std::string label() const;
  // The PROT level as the command names it: "C", "S" or "P".
  const char* prot_letter() const;
};

}  // namespace gridftp::server
