// What one running transfer needs, built by a transfer command once everything it can check has
// passed (before the 150) and owned by the transfer coroutine's frame. Data only; the session
// runs it (transfer/transfer_run.cpp, transfer/mode_e_run.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "protocol/restart/byte_range_set.hpp"
#include "server/data/batch_sink.hpp"
#include "server/data/storage_tree_reader.hpp"
#include "server/storage/unique_fd.hpp"
#include "server/storage/upload.hpp"

namespace gridftp::server {

struct TransferJob {
  std::string command;
  std::string path;
  std::optional<storage::UniqueFd> source = {};      // RETR/ERET
  std::shared_ptr<storage::Upload> upload = {};      // STOR/APPE/ESTO
  std::optional<std::string> listing = {};           // LIST/NLST/MLSD
  std::uint64_t offset = 0;                          // stream REST, or ERET's file offset
  std::uint64_t length = UINT64_MAX;                 // bytes to send (ERET), to EOF by default
  std::optional<std::uint64_t> expected_bytes = {};  // from ALLO, for uploads
  std::optional<protocol::restart::ByteRangeSet> present = {};  // MODE E REST: ranges there
  std::shared_ptr<BatchSource> batch = {};                      // BRET
  std::shared_ptr<BatchSink> batch_sink = {};                   // BSTO
};

}  // namespace gridftp::server
