// A tree of the user's view as the batch encoder reads it (BRET; docs/WIRE.md §7): every path
// goes through PosixStorage, so a batch sees exactly what RETR and MLSD would, no more.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "protocol/batch/batch_encoder.hpp"
#include "server/storage/posix_storage.hpp"

namespace gridftp::server {

class StorageTreeReader final : public protocol::batch::TreeReader {
 public:
  // `top`: the normalized virtual path of the tree's directory.
  StorageTreeReader(const storage::PosixStorage& storage, std::string top)
      : storage_(storage), top_(std::move(top)) {}

  Result<std::vector<protocol::batch::TreeEntry>> list(const std::string& relative) override;
  Result<std::unique_ptr<protocol::batch::TreeFile>> open(const std::string& relative) override;

 private:
  std::string virtual_path(const std::string& relative) const;

  const storage::PosixStorage& storage_;
  std::string top_;
};

// What a BRET transfer owns: the reader and the encoder walking it.
struct BatchSource {
  BatchSource(const storage::PosixStorage& storage, std::string top, std::uint64_t refer_above,
              std::optional<protocol::batch::RestartPoint> restart)
      : reader(storage, std::move(top)), encoder(reader, refer_above, std::move(restart)) {}
  StorageTreeReader reader;
  protocol::batch::BatchEncoder encoder;
};

}  // namespace gridftp::server
