#include "client/transfer_steps.hpp"

#include "client/checksum_check.hpp"

namespace gridftp::client {

// TYPE I, then MODE E or S (wire doc §1.5: TYPE → MODE → CKSM/SIZE → …).
Result<void> prepare_session(Session& session, const TransferOptions& options) {
  if (auto typed = session.use_binary_type(); !typed) {
    return typed;
  }
  return session.use_extended_block_mode(options.parallelism.has_value());
}

// Digest of the source before the transfer: CKSM on a server, computed for a local file.
Result<std::optional<std::string>> source_checksum(Session* session, const std::string& path,
                                                   const std::optional<PartialRange>& range,
                                                   const TransferOptions& options) {
  if (!options.verify_checksum) {
    return std::optional<std::string>{};
  }
  auto digest = session ? session->checksum(*options.verify_checksum, path, range)
                        : local_file_checksum(path, *options.verify_checksum, range);
  if (!digest) {
    return make_error(digest.error());
  }
  return std::optional<std::string>{std::move(*digest)};
}

// ESTO A O writes the range at O in the destination file, so that is where its digest is taken.
Result<void> verify_remote(Session& session, const std::string& path,
                           const std::optional<PartialRange>& range,
                           const std::optional<std::string>& expected,
                           const TransferOptions& options) {
  if (!expected) {
    return {};
  }
  auto digest = session.checksum(*options.verify_checksum, path, range);
  if (!digest) {
    return make_error(digest.error());
  }
  return compare_checksums(*expected, *digest);
}

}  // namespace gridftp::client
