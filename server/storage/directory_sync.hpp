// A directory's entries (a new file's name, a rename, a new subdirectory) reach stable storage
// only with an fsync of the directory itself; durable commit needs it (docs/STORAGE.md).
#pragma once

#include "protocol/core/result.hpp"

namespace gridftp::server::storage {

// fsync of the directory `directory` names; it may be an O_PATH descriptor, which fsync itself
// refuses, so a readable one is opened for the call. Errors: errno of the open or the fsync.
Result<void> sync_directory(int directory);

}  // namespace gridftp::server::storage
