// Stream-mode (MODE S) transfers: get, put, third-party, directory listing, and the local copy
// (wire doc §1.5 rows "get, stream", "put, stream", "third-party"). Each call is one file; the
// choice of which to run from two URLs is copy_job's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/listing_entry.hpp"
#include "client/session.hpp"

namespace gridftp::client {

struct TransferStats {
  std::uint64_t bytes = 0;
  Clock::duration elapsed{};
};

// Failures of the calls below: a server refusal is rejected_reply_error() with the reply in the
// session's control().last_failure(); local files fail with errno codes; the data and control
// connections fail with their socket errors or std::errc::timed_out. Local files are written
// under a temporary name and renamed only after the server's 226.

// TYPE I, PASV/EPSV, RETR remote_path into local_path.
Result<TransferStats> get_file(Session& session, const std::string& remote_path,
                               const std::string& local_path);

// TYPE I, PASV/EPSV, ALLO size, STOR local_path to remote_path.
Result<TransferStats> put_file(Session& session, const std::string& local_path,
                               const std::string& remote_path);

// Dest: PASV + ALLO + STOR; source: PORT/EPRT with the dest's address + RETR; then both 226s,
// each read on its own connection (wire doc §1.1, §1.6.3).
Result<TransferStats> third_party_copy(Session& source, const std::string& source_path,
                                       Session& dest, const std::string& dest_path);

// Copies a local file through a temporary name.
Result<TransferStats> copy_local_file(const std::string& source_path, const std::string& dest_path);

// MLSD when FEAT lists MLST, else NLST. Entries "." and ".." are left out.
Result<std::vector<ListingEntry>> list_directory(Session& session, const std::string& path);

}  // namespace gridftp::client
