#include "server/storage/upload.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "server/storage/directory_sync.hpp"
#include "server/storage/stored_checksums.hpp"

namespace gridftp::server::storage {
namespace {

// Written and checksummed at a time: well inside a core's L2 (512 KiB on the machines in
// bench/README.md).
constexpr std::size_t kChecksumSliceBytes = std::size_t{128} * 1024;

}  // namespace

Upload::Upload(UniqueFd file, UniqueFd directory, std::string temp_name, std::string final_name,
               std::uint64_t start_offset, bool keep_partial_on_abort)
    : file_(std::move(file)),
      directory_(std::move(directory)),
      temp_name_(std::move(temp_name)),
      final_name_(std::move(final_name)),
      start_offset_(start_offset),
      keep_partial_on_abort_(keep_partial_on_abort) {}

Upload::Upload(Upload&& other) noexcept
    : file_(std::move(other.file_)),
      directory_(std::move(other.directory_)),
      temp_name_(std::move(other.temp_name_)),
      final_name_(std::move(other.final_name_)),
      start_offset_(other.start_offset_),
      keep_partial_on_abort_(other.keep_partial_on_abort_),
      remove_on_abort_(other.remove_on_abort_),
      finished_(std::exchange(other.finished_, true)),
      durable_(other.durable_),
      checksums_(std::move(other.checksums_)) {}

Upload& Upload::operator=(Upload&& other) noexcept {
  if (this == &other) return *this;
  if (file_.valid() && !finished_) abort();
  file_ = std::move(other.file_);
  directory_ = std::move(other.directory_);
  temp_name_ = std::move(other.temp_name_);
  final_name_ = std::move(other.final_name_);
  start_offset_ = other.start_offset_;
  keep_partial_on_abort_ = other.keep_partial_on_abort_;
  remove_on_abort_ = other.remove_on_abort_;
  finished_ = std::exchange(other.finished_, true);
  durable_ = other.durable_;
  checksums_ = std::move(other.checksums_);
  return *this;
}

Upload::~Upload() {
  if (file_.valid() && !finished_) abort();
}

bool Upload::writes_regular_file() const {
  struct stat facts {};
  return ::fstat(file_.get(), &facts) == 0 && S_ISREG(facts.st_mode);
}

Result<void> Upload::write_at(std::uint64_t offset, std::span<const char> bytes) {
  const auto first = start_offset_ + offset;
  std::uint64_t position = first;
  while (!bytes.empty()) {
    // A slice at a time when checksummed, each right after its write: the write's copy has just
    // brought it into the core's cache, where a whole megabyte would no longer be (measured: the
    // checksum of a whole buffer after its write cost guc's puts 10-25%, bench/README.md).
    const auto slice =
        checksums_ ? bytes.first(std::min(bytes.size(), kChecksumSliceBytes)) : bytes;
    const auto slice_position = position;
    auto rest = slice;
    while (!rest.empty()) {
      const auto written =
          ::pwrite(file_.get(), rest.data(), rest.size(), static_cast<off_t>(position));
      if (written < 0) {
        if (errno == EINTR) continue;
        return make_error(std::error_code(errno, std::generic_category()));
      }
      rest = rest.subspan(static_cast<std::size_t>(written));
      position += static_cast<std::uint64_t>(written);
    }
    // After the write, so only bytes that reached the file count; still on the writing thread,
    // so parallel streams checksum their blocks in parallel.
    if (checksums_) checksums_->record(slice_position, slice);
    bytes = bytes.subspan(slice.size());
  }
  // Durable: the disk starts on these pages now, not at the final fdatasync, so the wait for
  // stable storage overlaps the transfer instead of following it (docs/STORAGE.md §2). Only
  // a hint: the fdatasync in commit() is what the 226 relies on.
  if (durable_) {
    ::sync_file_range(file_.get(), static_cast<off_t>(first), static_cast<off_t>(position - first),
                      SYNC_FILE_RANGE_WRITE);
  }
  return {};
}

Result<void> Upload::sync_data() const {
  while (::fdatasync(file_.get()) != 0) {
    if (errno != EINTR) return make_error(std::error_code(errno, std::generic_category()));
  }
  return {};
}

Result<void> Upload::commit() {
  finished_ = true;
  if (durable_) {
    if (auto synced = sync_data(); !synced) {
      abort();
      return synced;
    }
  }
  if (!temp_name_.empty() && ::renameat(directory_.get(), temp_name_.c_str(), directory_.get(),
                                        final_name_.c_str()) != 0) {
    const std::error_code ec(errno, std::generic_category());
    ::unlinkat(directory_.get(), temp_name_.c_str(), 0);
    return make_error(ec);
  }
  store_checksums();
  // In place too: the upload may have created the name.
  if (durable_) return sync_directory(directory_.get());
  return {};
}

void Upload::store_checksums() {
  if (!checksums_) return;
  // The size and mtime the file has now, with every write done, are what the values are keyed
  // to: the file as it stands under its final name.
  const auto version = file_version_of(file_.get());
  if (!version) return;
  for (const auto& value : checksums_->finish(version->size_bytes)) {
    // Not stored (no user xattrs here, a full disk): CKSM reads the file instead, as it would
    // have without this.
    (void)store_checksum(file_.get(), value.algorithm, *version, value.hex);
  }
  checksums_.reset();
}

void Upload::abort() {
  finished_ = true;
  if (!temp_name_.empty() && !keep_partial_on_abort_)
    ::unlinkat(directory_.get(), temp_name_.c_str(), 0);
  if (remove_on_abort_ && temp_name_.empty()) {
    // Only if the name still holds the file we created: another session may have replaced it.
    struct stat ours {};
    struct stat named {};
    if (::fstat(file_.get(), &ours) == 0 &&
        ::fstatat(directory_.get(), final_name_.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
        ours.st_dev == named.st_dev && ours.st_ino == named.st_ino) {
      ::unlinkat(directory_.get(), final_name_.c_str(), 0);
    }
  }
}

}  // namespace gridftp::server::storage
