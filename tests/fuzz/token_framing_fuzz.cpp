// GSI tokens as they arrive: base64 text from ADAT/ENC/MIC lines and 63x replies, then the
// framing read from the decoded bytes (a DER object's length for delegation messages, a TLS
// record's length for wrapped tokens).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "protocol/core/base64.hpp"
#include "security/der_length.hpp"
#include "security/tls_record_framing.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace pc = gridftp::protocol;
namespace sec = gridftp::security;

void check_framing(std::span<const std::uint8_t> bytes) {
  if (auto der = sec::der_object_length(bytes)) {
    if (*der)
      FUZZ_CHECK(**der >= 2 && **der <= std::min(bytes.size(), sec::kMaxDelegationMessageBytes));
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (auto record = sec::first_tls_record_length(text)) {
    if (*record) {
      FUZZ_CHECK(**record >= sec::kTlsRecordHeaderBytes && **record <= bytes.size());
      FUZZ_CHECK(**record <= sec::kTlsRecordHeaderBytes + sec::kMaxTlsRecordPayloadBytes);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = gridftp::fuzz::as_text(data, size);
  // Any bytes encode and decode back to themselves, padded or not.
  const std::span<const std::uint8_t> raw(data, size);
  for (auto padding : {pc::Base64Padding::Padded, pc::Base64Padding::Unpadded}) {
    auto round = pc::decode_base64(pc::encode_base64(raw, padding), padding);
    FUZZ_CHECK(round && std::equal(round->begin(), round->end(), raw.begin(), raw.end()));
  }
  // Text that decodes is canonical enough that re-encoding and decoding gives the same bytes.
  if (auto decoded = pc::decode_base64(text)) {
    auto again = pc::decode_base64(pc::encode_base64(*decoded));
    FUZZ_CHECK(again && *again == *decoded);
    check_framing(*decoded);
  }
  check_framing(raw);
  return 0;
}
