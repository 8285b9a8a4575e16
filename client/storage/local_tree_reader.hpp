// A local directory tree as the batch encoder reads it (a gridcp batch put; docs/WIRE.md §7).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "protocol/batch/batch_encoder.hpp"

namespace gridftp::client {

class LocalTreeReader final : public protocol::batch::TreeReader {
 public:
  explicit LocalTreeReader(std::string top) : top_(std::move(top)) {}

  Result<std::vector<protocol::batch::TreeEntry>> list(const std::string& relative) override;
  Result<std::unique_ptr<protocol::batch::TreeFile>> open(const std::string& relative) override;

 private:
  std::string local_path(const std::string& relative) const;

  std::string top_;
};

}  // namespace gridftp::client
