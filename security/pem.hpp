// Splits PEM text (RFC 7468) into the certificates, private key and CRLs it holds, in file order.
// One parser for credential files, proxy files and CA directories; it never prompts for a pass
// phrase and never reads files itself (see local_file.hpp).
#pragma once

#include <string_view>
#include <vector>

#include "protocol/core/result.hpp"
#include "security/openssl_ptr.hpp"

namespace gridftp::security {

struct PemContents {
  X509StackPtr certificates;     // every CERTIFICATE block, in file order; never null
  EvpPkeyPtr key;                // the one private key block, or null when there is none
  std::vector<X509CrlPtr> crls;  // every X509 CRL block, in file order
};

// Parses every block; blocks of other types (PARAMETERS, signing policies, ...) and text between
// blocks are ignored. Key bytes are wiped from OpenSSL's buffers after decoding.
// Errors: Errc::MalformedPem for a damaged block (bad base64, DER that does not decode, a second
// private key), Errc::EncryptedKey for an encrypted private key (PKCS#8 ENCRYPTED PRIVATE KEY or a
// legacy Proc-Type: 4,ENCRYPTED header), errc::value_too_large above INT_MAX bytes.
Result<PemContents> parse_pem(std::string_view text);

}  // namespace gridftp::security
