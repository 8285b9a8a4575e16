// A batch put (docs/WIRE.md §7): a whole local tree in one stream-mode data transfer to a server
// whose FEAT lists BATCH (BSTO). A failed attempt is sent again whole: BSTO keeps no restart
// point. (Third-party batches are in transfer.hpp, beside third_party_copy().)
#pragma once

#include <cstdint>
#include <string>

#include "client/session/session.hpp"
#include "client/transfer/transfer.hpp"
#include "protocol/batch/batch_encoder.hpp"

namespace gridftp::client {

// TYPE I, MODE S, the data-channel security, PASV, BSTO, then the records `encoder` makes.
// Errors: those of put_file() (transfer.hpp) and of BatchEncoder::fill().
Result<void> batch_put(Session& session, const std::string& remote_dir,
                       const TransferOptions& options, protocol::batch::BatchEncoder& encoder);

}  // namespace gridftp::client
