#include "server/storage/upload.hpp"

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace gridftp::server::storage {

Upload::Upload(UniqueFd file, UniqueFd directory, std::string temp_name, std::string final_name,
               std::uint64_t start_offset)
    : file_(std::move(file)),
      directory_(std::move(directory)),
      temp_name_(std::move(temp_name)),
      final_name_(std::move(final_name)),
      start_offset_(start_offset) {}

Upload::~Upload() {
  if (file_.valid() && !finished_) abort();
}

Result<void> Upload::write_at(std::uint64_t offset, std::span<const char> bytes) {
  std::uint64_t position = start_offset_ + offset;
  while (!bytes.empty()) {
    const auto written = ::pwrite(file_.get(), bytes.data(), bytes.size(), static_cast<off_t>(position));
    if (written < 0) {
      if (errno == EINTR) continue;
      return make_error(std::error_code(errno, std::generic_category()));
    }
    bytes = bytes.subspan(static_cast<std::size_t>(written));
    position += static_cast<std::uint64_t>(written);
  }
  return {};
}

Result<void> Upload::commit() {
  finished_ = true;
  if (temp_name_.empty()) return {};
  if (::renameat(directory_.get(), temp_name_.c_str(), directory_.get(), final_name_.c_str()) != 0) {
    const std::error_code ec(errno, std::generic_category());
    ::unlinkat(directory_.get(), temp_name_.c_str(), 0);
    return make_error(ec);
  }
  return {};
}

void Upload::abort() {
  finished_ = true;
  if (!temp_name_.empty()) ::unlinkat(directory_.get(), temp_name_.c_str(), 0);
}

}  // namespace gridftp::server::storage
