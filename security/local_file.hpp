// Reads the small local files security/ needs (keys, certificates, CRLs, gridmap) into memory
// after checking, on the opened descriptor, what the file is. Not for data files or peer input.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "protocol/core/result.hpp"

namespace gridftp::security {

enum class FileAccess {
  Public,     // certificates, CRLs, gridmap: anyone may read them
  OwnerOnly,  // private keys and proxy files: group and others may neither read nor write
};

// Reads the whole file. The checks run on the descriptor, not the path, so the file cannot be
// swapped between check and read; symbolic links are followed (CA directories are made of them).
// Errors: errno values from open/read (ENOENT compares equal to Condition::NotFound),
// Errc::NotARegularFile, Errc::FileTooPermissive (OwnerOnly and mode has any group/other bit),
// Errc::FileTooLarge (more than max_bytes).
Result<std::string> read_local_file(const std::filesystem::path& path, FileAccess access,
                                    std::size_t max_bytes);

}  // namespace gridftp::security
