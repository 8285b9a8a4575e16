// Checksums kept with a file, one extended attribute per algorithm ("user.gridftpd.cksum.adler32"),
// each keyed to the size and modification time the file had when it was computed
// (protocol/checksum/stored_checksum), so CKSM answers a file changed since from a fresh read,
// never from the stale value. Best effort: a file system without user xattrs, or a file the
// session may not write, keeps none, and CKSM reads the file as before. Works on open files only
// (f*xattr), so no path is looked up twice.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "protocol/checksum/stored_checksum.hpp"
#include "protocol/core/result.hpp"
#include "security/digest.hpp"

namespace gridftp::server::storage {

// "user.gridftpd.cksum." and the algorithm's name in lower case.
std::string stored_checksum_attribute(security::DigestAlgorithm algorithm);

// The size and modification time of an open file. Errors: errno from fstat.
Result<protocol::checksum::FileVersion> file_version_of(int fd);

// The value stored for `algorithm`, when there is one and the file still has the size and mtime
// it was stored for; nullopt otherwise (none stored, unreadable, stale, or not in our format).
std::optional<protocol::checksum::StoredChecksum> read_stored_checksum(
    int fd, security::DigestAlgorithm algorithm);

// Stores `hex` as the value of the file at `version`. Errors: errno from fsetxattr (ENOTSUP on a
// file system without user xattrs, EACCES/EPERM for a file the caller may not write, ENOSPC,
// E2BIG); callers treat every one as "not stored".
Result<void> store_checksum(int fd, security::DigestAlgorithm algorithm,
                            const protocol::checksum::FileVersion& version, std::string_view hex);

// Removes every stored value, before an upload writes into an existing file: a rewrite that
// happened to keep size and mtime must not leave an old value standing.
void clear_stored_checksums(int fd);

}  // namespace gridftp::server::storage
