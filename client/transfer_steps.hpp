// Steps that get, put and third-party transfers share (wire doc §1.5): preparing TYPE and MODE,
// and the -verify-checksum digests before and after. Internal to the transfer files.
#pragma once

#include <optional>
#include <string>

#include "client/session.hpp"
#include "client/transfer.hpp"
#include "client/transfer_plan.hpp"

namespace gridftp::client {

// TYPE I, then MODE E or S (wire doc §1.5: TYPE → MODE → CKSM/SIZE → …).
Result<void> prepare_session(Session& session, const TransferOptions& options);

// Digest of the source before the transfer: CKSM on a server (`session`), computed locally when
// `session` is null. nullopt without -verify-checksum.
Result<std::optional<std::string>> source_checksum(Session* session, const std::string& path,
                                                   const std::optional<PartialRange>& range,
                                                   const TransferOptions& options);

// CKSM on the destination after its 226, compared with `expected` (nothing when nullopt).
// Errors: ClientErrc::ChecksumMismatch, and those of Session::checksum().
Result<void> verify_remote(Session& session, const std::string& path,
                           const std::optional<PartialRange>& range,
                           const std::optional<std::string>& expected,
                           const TransferOptions& options);

}  // namespace gridftp::client
