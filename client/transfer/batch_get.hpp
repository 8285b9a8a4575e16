// A batch get (docs/WIRE.md §7): a whole remote directory tree in one stream-mode data transfer
// from a server whose FEAT lists BATCH (gridftpd). TYPE I, MODE S, the data-channel security,
// PASV, BRST when resuming, BRET.
#pragma once

#include <cstdint>
#include <string>

#include "client/session/session.hpp"
#include "client/storage/batch_receiver.hpp"
#include "client/transfer/transfer.hpp"

namespace gridftp::client {

// Files above this size are left to ordinary transfers (the server's 'R' records), which can
// run in parallel streams and on other -cc workers.
inline constexpr std::uint64_t kBatchReferAboveBytes = 16 << 20;
// Over UDPX every file goes in the batch's one stream (docs/UDPX.md §1.9): a file left to a
// transfer of its own would pay a UDPX handshake and Startup again.
inline std::uint64_t batch_refer_above(const TransferOptions& options) {
  return options.udpx ? 0 : kBatchReferAboveBytes;
}

// One attempt: resumes at `receiver`'s restart point if it has one. The files land as they
// arrive, each once its checksum matched. Errors: those of get_file() (transfer.hpp) and of
// BatchReceiver::consume().
Result<void> batch_get(Session& session, const std::string& remote_dir,
                       const TransferOptions& options, BatchReceiver& receiver);

}  // namespace gridftp::client
