// A user's view of the local file system: everything happens beneath their root (PathResolver),
// writes are allowed only inside their writable areas, and Globus-style path restrictions
// (protocol/control/restrict_paths) decide what may be listed, read and written; both are judged
// on the real location, after links are followed.
// Paths passed in are normalized virtual paths (protocol/control/virtual_path).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/control/restrict_paths.hpp"
#include "protocol/core/result.hpp"
#include "protocol/listing/file_facts.hpp"
#include "security/digest.hpp"
#include "server/storage/partial_uploads.hpp"
#include "server/storage/path_resolver.hpp"
#include "server/storage/upload.hpp"

namespace gridftp::server::storage {

// Replace: a hidden partial file (one fixed name per target) renamed into place on commit.
// ContinuePartial: a MODE E restart (REST ranges + STOR) writes into that partial file as it is.
// Append (APPE), Resume (stream REST: truncate to the offset) and InPlace (ESTO: no truncation)
// write the target directly, except that Resume goes on with a hidden partial file a failed
// upload kept, cut to the offset.
// StripePart: one mover's stripe of a striped upload, written in place into the partial file
// that begin_striped_upload made, without the one-writer lock (every mover writes it) and without
// a rename: commit_striped_upload does that once every stripe is in (docs/STRIPING.md).
enum class UploadMode { Replace, ContinuePartial, Append, Resume, InPlace, StripePart };

// The hidden name an upload of `name` is received under; names too long for the prefix are
// shortened with a stable hash, so a restart finds the same file.
std::string partial_name_for(std::string_view name);

// The size of an open regular file; nullopt for anything else (devices, FIFOs).
std::optional<std::uint64_t> regular_file_size(int fd);

class PosixStorage {
 public:
  // `writable_areas` are normalized virtual paths ("/" = the whole root).
  // `rules` judge real absolute paths (the root's own path in front of the virtual one).
  static Result<PosixStorage> open(const std::filesystem::path& root,
                                   std::vector<std::string> writable_areas,
                                   protocol::control::PathRules rules = {});

  Result<UniqueFd> open_for_read(std::string_view path) const;
  Result<protocol::listing::FileFacts> stat(std::string_view path) const;
  // Entries of a directory, without "." / ".." and without partial uploads.
  Result<std::vector<protocol::listing::FileFacts>> list_directory(std::string_view path) const;
  // Opens a directory to check it exists and may be entered (CWD).
  Result<void> check_directory(std::string_view path) const;

  Result<void> make_directory(std::string_view path) const;
  Result<void> remove_directory(std::string_view path) const;
  Result<void> remove_file(std::string_view path) const;
  Result<void> rename(std::string_view from, std::string_view to) const;
  Result<void> set_modify_time(std::string_view path, std::int64_t unix_seconds) const;
  // Resume/Append/InPlace start at `offset` (Append: the current size when offset is 0).
  // `keep_partial_on_abort` leaves a failed Replace/ContinuePartial upload's partial file for a
  // restart. Errors: EWOULDBLOCK when another upload to the same target is running; ENOENT for
  // ContinuePartial without a partial file; Errc::BadArgument for Resume past the end of a
  // kept partial file.
  // A striped upload across movers (docs/STRIPING.md): begin makes the partial file every
  // mover then writes its stripe into (UploadMode::StripePart), empty; commit renames it into
  // place once all are in, durably when uploads are durable (as Upload::commit).
  // Errors: those of begin_upload, and of Upload::commit.
  Result<void> begin_striped_upload(std::string_view path) const;
  Result<void> commit_striped_upload(std::string_view path) const;
  Result<Upload> begin_upload(std::string_view path, UploadMode mode, std::uint64_t offset,
                              bool keep_partial_on_abort = false) const;

  // Partial uploads kept in directory `path` (see partial_uploads.hpp); needs list rights.
  Result<std::vector<PartialUpload>> partial_uploads(std::string_view path) const;
  // Uploads that can hold a whole file (from offset 0, not a MODE E restart) compute these
  // checksums as their bytes are written and store them with the file on commit.
  void checksum_uploads(std::vector<security::DigestAlgorithm> algorithms) {
    upload_checksums_ = std::move(algorithms);
  }
  // begin_upload() first removes partial uploads in its directory not written for `age`.
  void expire_partials_after(std::chrono::seconds age) { partial_expiry_ = age; }
  std::chrono::seconds partial_expiry() const { return partial_expiry_; }
  // Uploads begun from now on commit durably (Upload::make_durable): [storage] durable, or the
  // session's SITE DURABLE.
  void set_durable_uploads(bool durable) { durable_uploads_ = durable; }
  bool durable_uploads() const { return durable_uploads_; }

  bool is_writable_area(std::string_view path) const;
  // Errors: PermissionDenied when `path` may not be created, changed or removed.
  Result<void> check_writable(std::string_view path) const;

 private:
  PosixStorage(PathResolver resolver, std::vector<std::string> writable_areas,
               protocol::control::PathRules rules, std::string root_prefix)
      : resolver_(std::move(resolver)),
        writable_areas_(std::move(writable_areas)),
        rules_(std::move(rules)),
        root_prefix_(std::move(root_prefix)) {}
  // begin_upload() without what every upload gets afterwards (durability, checksums, stale
  // checksum values removed).
  Result<Upload> open_upload(std::string_view path, UploadMode mode, std::uint64_t offset,
                             bool keep_partial_on_abort) const;
  // The restrictions' verdict on the real location of `fd` (a virtual path's real place), or of
  // its entry `name` when given. Everything is allowed when there are no restrictions.
  Result<protocol::control::PathRights> rights_of(int fd, std::string_view name = {}) const;
  std::string absolute(std::string_view virtual_path) const;
  // Opens directory `path` and checks that the restrictions let it be listed; its rights too.
  Result<std::pair<UniqueFd, protocol::control::PathRights>> open_listable_directory(
      std::string_view path) const;
  // Opens the parent of `path` and checks that its real location is writable.
  Result<UniqueFd> open_writable_parent(std::string_view path) const;
  // Owner and group names by id; one listing asks NSS once per distinct id, not per entry.
  struct NameCache {
    std::map<std::uint32_t, std::string> users;
    std::map<std::uint32_t, std::string> groups;
  };
  Result<protocol::listing::FileFacts> facts_at(int dir_fd, const std::string& name,
                                                std::string_view virtual_path,
                                                NameCache& names) const;

  PathResolver resolver_;
  std::vector<std::string> writable_areas_;
  protocol::control::PathRules rules_;
  std::string root_prefix_;                 // the root's real path, "" for "/"
  std::chrono::seconds partial_expiry_{0};  // 0: partial uploads are kept
  bool durable_uploads_ = false;
  std::vector<security::DigestAlgorithm> upload_checksums_;
};

}  // namespace gridftp::server::storage
