#include "server/storage/directory_sync.hpp"

#include <cerrno>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "server/storage/unique_fd.hpp"

namespace gridftp::server::storage {

Result<void> sync_directory(int directory) {
  const UniqueFd readable(::openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!readable.valid() || ::fsync(readable.get()) != 0)
    return make_error(std::error_code(errno, std::generic_category()));
  return {};
}

}  // namespace gridftp::server::storage
