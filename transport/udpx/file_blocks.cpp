#include "transport/udpx/file_blocks.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include <unistd.h>

namespace gridftp::transport::udpx {

Result<std::size_t> FileBlockSource::read_at(std::uint64_t offset, std::span<std::uint8_t> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t got =
        ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return make_error(std::error_code(errno, std::system_category()));
    }
    if (got == 0) break;  // end of file
    done += static_cast<std::size_t>(got);
  }
  return done;
}

Result<void> FileBlockSink::write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t put =
        ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (put < 0) {
      if (errno == EINTR) continue;
      return make_error(std::error_code(errno, std::system_category()));
    }
    done += static_cast<std::size_t>(put);
  }
  return {};
}

Result<std::size_t> ReadAheadSource::read_at(std::uint64_t offset, std::span<std::uint8_t> out) {
  if (offset < start_) return inner_->read_at(offset, out);  // behind the chunk: on its own
  if (offset + out.size() > end_) {
    // Past the chunk, or reaching out of it: read the next one from here.
    auto got = inner_->read_at(offset, std::span(chunk_));
    if (!got) return got;
    start_ = offset;
    end_ = offset + *got;
  }
  const auto count =
      static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), end_ - std::min(end_, offset)));
  std::memcpy(out.data(), chunk_.data() + (offset - start_), count);
  return count;
}

bool CoalescingSink::absorbs(std::uint64_t offset, std::size_t bytes) const {
  const bool follows = !pending_.empty() && offset == pending_at_ + pending_.size();
  return follows && pending_.size() + bytes <= capacity_;
}

Result<void> CoalescingSink::write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  if (!absorbs(offset, bytes.size())) {
    if (auto flushed = flush(); !flushed) return flushed;
    pending_at_ = offset;
  }
  pending_.insert(pending_.end(), bytes.begin(), bytes.end());
  return {};
}

Result<void> CoalescingSink::flush() {
  if (pending_.empty()) return inner_->flush();
  auto written = inner_->write_at(pending_at_, pending_);
  pending_.clear();
  if (!written) return written;
  return inner_->flush();
}

}  // namespace gridftp::transport::udpx
