#include "transport/udpx/file_blocks.hpp"

#include <cerrno>
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

}  // namespace gridftp::transport::udpx
