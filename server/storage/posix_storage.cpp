#include "server/storage/posix_storage.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol/control/virtual_path.hpp"
#include "protocol/core/errors.hpp"
#include "server/storage/directory_sync.hpp"
#include "server/storage/stored_checksums.hpp"

namespace gridftp::server::storage {
namespace {

using protocol::listing::FileFacts;
using protocol::listing::FileType;
namespace vp = protocol::control;

std::error_code last_errno() { return {errno, std::generic_category()}; }

std::string user_name(uid_t uid) {
  std::array<char, 1024> buffer{};
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    return found->pw_name;
  }
  return std::to_string(uid);
}

std::string group_name(gid_t gid) {
  std::array<char, 1024> buffer{};
  group entry{};
  group* found = nullptr;
  if (::getgrgid_r(gid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    return found->gr_name;
  }
  return std::to_string(gid);
}

FileType type_of(mode_t mode) {
  if (S_ISREG(mode)) return FileType::File;
  if (S_ISDIR(mode)) return FileType::Dir;
  if (S_ISLNK(mode)) return FileType::Symlink;
  return FileType::Other;
}

std::string name_of(std::string_view path) { return std::string(vp::base_name(path)); }

}  // namespace

Result<PosixStorage> PosixStorage::open(const std::filesystem::path& root,
                                        std::vector<std::string> writable_areas,
                                        protocol::control::PathRules rules) {
  auto resolver = PathResolver::open_root(root);
  if (!resolver) return make_error(resolver.error());
  std::error_code ec;
  auto prefix = std::filesystem::canonical(root, ec).string();
  if (ec) return make_error(ec);
  if (prefix == "/") prefix.clear();
  return PosixStorage(std::move(*resolver), std::move(writable_areas), std::move(rules),
                      std::move(prefix));
}

std::string PosixStorage::absolute(std::string_view virtual_path) const {
  if (root_prefix_.empty()) return std::string(virtual_path);
  return virtual_path == "/" ? root_prefix_ : root_prefix_ + std::string(virtual_path);
}

Result<protocol::control::PathRights> PosixStorage::rights_of(int fd, std::string_view name) const {
  if (!rules_.restricted()) return protocol::control::PathRights{true, true, true, false};
  const auto real = resolver_.real_virtual_path(fd);
  if (!real) return make_error(real.error());
  std::string path = absolute(*real);
  if (!name.empty()) path = (path == "/" ? "" : path) + "/" + std::string(name);
  return rules_.rights(path);
}

bool PosixStorage::is_writable_area(std::string_view path) const {
  for (const auto& area : writable_areas_) {
    if (vp::is_within(path, area)) return true;
  }
  return false;
}

Result<UniqueFd> PosixStorage::open_writable_parent(std::string_view path) const {
  if (path == "/") return make_error(std::make_error_code(std::errc::permission_denied));
  // Fail before any work when the final rename could never succeed.
  if (name_of(path).size() > NAME_MAX)
    return make_error(std::make_error_code(std::errc::filename_too_long));
  // Partial uploads' names are the server's own; clients may not create or touch them directly.
  if (name_of(path).starts_with(kPartialPrefix))
    return make_error(std::make_error_code(std::errc::permission_denied));
  auto parent = resolver_.open_parent(path);
  if (!parent) return parent;
  // Judge the real location, so a symlink inside a writable area cannot lead writes elsewhere.
  const auto real = resolver_.real_virtual_path(parent->get());
  if (!real) return make_error(real.error());
  // Creating, removing or renaming an entry changes its parent, so the parent is what must lie in
  // a writable area (an area's own directory cannot be removed or renamed by its users).
  if (!is_writable_area(*real))
    return make_error(std::make_error_code(std::errc::permission_denied));
  const auto rights = rights_of(parent->get(), name_of(path));
  if (!rights) return make_error(rights.error());
  if (!rights->write) return make_error(std::make_error_code(std::errc::permission_denied));
  return parent;
}

Result<void> PosixStorage::check_writable(std::string_view path) const {
  auto parent = open_writable_parent(path);
  if (!parent) return make_error(parent.error());
  return {};
}

Result<UniqueFd> PosixStorage::open_for_read(std::string_view path) const {
  // O_NONBLOCK so that a FIFO without a writer cannot stall the session; the type check below
  // refuses it, and regular files get blocking reads back.
  if (name_of(path).starts_with(kPartialPrefix))
    return make_error(std::make_error_code(std::errc::no_such_file_or_directory));
  auto fd = resolver_.open(path, O_RDONLY | O_NONBLOCK);
  if (!fd) return fd;
  struct stat info {};
  if (::fstat(fd->get(), &info) != 0) return make_error(last_errno());
  if (S_ISDIR(info.st_mode)) return make_error(std::make_error_code(std::errc::is_a_directory));
  if (!S_ISREG(info.st_mode) && !S_ISCHR(info.st_mode)) {
    return make_error(std::make_error_code(std::errc::permission_denied));
  }
  const auto rights = rights_of(fd->get());
  if (!rights) return make_error(rights.error());
  if (!rights->read) return make_error(std::make_error_code(std::errc::permission_denied));
  if (::fcntl(fd->get(), F_SETFL, O_RDONLY) != 0) return make_error(last_errno());
  return fd;
}

std::optional<std::uint64_t> regular_file_size(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  return static_cast<std::uint64_t>(info.st_size);
}

Result<FileFacts> PosixStorage::facts_at(int dir_fd, const std::string& name,
                                         std::string_view virtual_path, NameCache& names) const {
  // An empty name describes dir_fd itself (what a followed link led to).
  struct stat info {};
  const int flags = name.empty() ? AT_EMPTY_PATH : AT_SYMLINK_NOFOLLOW;
  if (::fstatat(dir_fd, name.c_str(), &info, flags) != 0) return make_error(last_errno());
  FileFacts facts;
  facts.name = name.empty() ? (virtual_path == "/" ? "/" : name_of(virtual_path)) : name;
  facts.type = type_of(info.st_mode);
  facts.size_bytes = static_cast<std::uint64_t>(info.st_size);
  facts.modify_unix_seconds = info.st_mtim.tv_sec;
  facts.mode = info.st_mode & 07777;
  facts.uid = info.st_uid;
  facts.gid = info.st_gid;
  auto user = names.users.find(info.st_uid);
  if (user == names.users.end())
    user = names.users.emplace(info.st_uid, user_name(info.st_uid)).first;
  auto group = names.groups.find(info.st_gid);
  if (group == names.groups.end())
    group = names.groups.emplace(info.st_gid, group_name(info.st_gid)).first;
  facts.owner = user->second;
  facts.group = group->second;
  facts.link_count = info.st_nlink;
  facts.device = info.st_dev;
  facts.inode = info.st_ino;
  facts.readable = true;
  facts.writable = is_writable_area(virtual_path);
  return facts;
}

Result<FileFacts> PosixStorage::stat(std::string_view path) const {
  // Follow links that stay beneath the root, then describe what they lead to.
  auto fd = resolver_.open(path, O_PATH);
  if (!fd) return make_error(fd.error());
  const auto rights = rights_of(fd->get());
  if (!rights) return make_error(rights.error());
  if (!rights->list) return make_error(std::make_error_code(std::errc::permission_denied));
  NameCache names;
  return facts_at(fd->get(), "", path, names);
}

Result<std::vector<FileFacts>> PosixStorage::list_directory(std::string_view path) const {
  auto opened = open_listable_directory(path);
  if (!opened) return make_error(opened.error());
  const auto& [fd, rights] = *opened;
  // A directory above the allowed trees shows only the ways down to them.
  std::string real_dir;
  if (rights.filtered) {
    const auto real = resolver_.real_virtual_path(fd.get());
    if (!real) return make_error(real.error());
    real_dir = absolute(*real);
  }
  const int dup_fd = ::dup(fd.get());
  if (dup_fd < 0) return make_error(last_errno());
  DIR* dir = ::fdopendir(dup_fd);
  if (dir == nullptr) {
    ::close(dup_fd);
    return make_error(last_errno());
  }
  std::vector<FileFacts> entries;
  NameCache names;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == ".." || name.starts_with(kPartialPrefix)) continue;
    if (rights.filtered && !rules_.shows(real_dir, name)) continue;
    const std::string child = path == "/" ? "/" + name : std::string(path) + "/" + name;
    auto facts = facts_at(fd.get(), name, child, names);
    if (facts) entries.push_back(std::move(*facts));
  }
  ::closedir(dir);
  return entries;
}

Result<std::vector<PartialUpload>> PosixStorage::partial_uploads(std::string_view path) const {
  auto opened = open_listable_directory(path);
  if (!opened) return make_error(opened.error());
  return list_partial_uploads(opened->first.get());
}

Result<std::pair<UniqueFd, protocol::control::PathRights>> PosixStorage::open_listable_directory(
    std::string_view path) const {
  auto fd = resolver_.open(path, O_RDONLY | O_DIRECTORY);
  if (!fd) return make_error(fd.error());
  const auto rights = rights_of(fd->get());
  if (!rights) return make_error(rights.error());
  if (!rights->list) return make_error(std::make_error_code(std::errc::permission_denied));
  return std::pair(std::move(*fd), *rights);
}

Result<void> PosixStorage::check_directory(std::string_view path) const {
  auto opened = open_listable_directory(path);
  if (!opened) return make_error(opened.error());
  return {};
}

Result<void> PosixStorage::make_directory(std::string_view path) const {
  auto parent = open_writable_parent(path);
  if (!parent) return make_error(parent.error());
  if (::mkdirat(parent->get(), name_of(path).c_str(), 0755) != 0) return make_error(last_errno());
  // A durable upload into the new directory is kept only if the directory's own name is.
  if (durable_uploads_) return sync_directory(parent->get());
  return {};
}

Result<void> PosixStorage::remove_directory(std::string_view path) const {
  auto parent = open_writable_parent(path);
  if (!parent) return make_error(parent.error());
  if (::unlinkat(parent->get(), name_of(path).c_str(), AT_REMOVEDIR) != 0)
    return make_error(last_errno());
  return {};
}

Result<void> PosixStorage::remove_file(std::string_view path) const {
  auto parent = open_writable_parent(path);
  if (!parent) return make_error(parent.error());
  if (::unlinkat(parent->get(), name_of(path).c_str(), 0) != 0) return make_error(last_errno());
  return {};
}

Result<void> PosixStorage::rename(std::string_view from, std::string_view to) const {
  auto from_parent = open_writable_parent(from);
  if (!from_parent) return make_error(from_parent.error());
  auto to_parent = open_writable_parent(to);
  if (!to_parent) return make_error(to_parent.error());
  if (::renameat(from_parent->get(), name_of(from).c_str(), to_parent->get(),
                 name_of(to).c_str()) != 0) {
    return make_error(last_errno());
  }
  return {};
}

Result<void> PosixStorage::set_modify_time(std::string_view path, std::int64_t unix_seconds) const {
  auto parent = open_writable_parent(path);
  if (!parent) return make_error(parent.error());
  const std::array<timespec, 2> times{timespec{0, UTIME_OMIT}, timespec{unix_seconds, 0}};
  if (::utimensat(parent->get(), name_of(path).c_str(), times.data(), AT_SYMLINK_NOFOLLOW) != 0) {
    return make_error(last_errno());
  }
  return {};
}

std::string partial_name_for(std::string_view name) {
  constexpr std::size_t kMaxName = 255;
  std::string partial = std::string(kPartialPrefix) + std::string(name);
  if (partial.size() <= kMaxName) return partial;
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a: stable across runs and builds
  for (const char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  char suffix[20];
  std::snprintf(suffix, sizeof suffix, ".%016llx", static_cast<unsigned long long>(hash));
  return partial.substr(0, kMaxName - std::strlen(suffix)) + suffix;
}

Result<Upload> PosixStorage::begin_upload(std::string_view path, UploadMode mode,
                                          std::uint64_t offset, bool keep_partial_on_abort) const {
  auto upload = open_upload(path, mode, offset, keep_partial_on_abort);
  if (!upload) return upload;
  if (durable_uploads_) upload->make_durable();
  // Values stored for what the file held before are void from the first byte written: an
  // in-place rewrite could keep both size and mtime (docs/ARCHITECTURE.md, "Checksums on the fly").
  clear_stored_checksums(upload->fd());
  // An upload that starts past 0 (APPE, REST, ESTO at an offset) or fills in a restart's gaps
  // cannot see the whole file; checksumming its blocks would only be thrown away at commit. A
  // device (memory-to-memory runs write /dev/null) has nowhere to keep them.
  if (!upload_checksums_.empty() && upload->start_offset() == 0 &&
      mode != UploadMode::ContinuePartial && mode != UploadMode::StripePart &&
      upload->writes_regular_file()) {
    upload->compute_checksums(std::make_unique<UploadChecksums>(upload_checksums_));
  }
  return upload;
}

namespace {

// One mover's stripe: its own blocks at their offsets, in place, in the partial file that
// begin_striped_upload made (no lock: every mover writes it; no rename: commit_striped_upload).
Result<Upload> open_stripe_part(UniqueFd parent, const std::string& name) {
  const auto partial = partial_name_for(name);
  UniqueFd fd(::openat(parent.get(), partial.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return make_error(last_errno());
  return Upload(std::move(fd), std::move(parent), std::string(), partial, 0,
                /*keep_partial_on_abort=*/true);
}

}  // namespace

Result<void> PosixStorage::begin_striped_upload(std::string_view path) const {
  // Made and emptied as any replacing upload's; kept when this Upload goes (a restart's file).
  auto upload = open_upload(path, UploadMode::Replace, 0, /*keep_partial_on_abort=*/true);
  if (!upload) return make_error(upload.error());
  clear_stored_checksums(upload->fd());
  return {};
}

Result<void> PosixStorage::commit_striped_upload(std::string_view path) const {
  auto parent = open_writable_parent(path);
  if (!parent) return make_error(parent.error());
  const auto name = name_of(path);
  const auto partial = partial_name_for(name);
  UniqueFd fd(::openat(parent->get(), partial.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return make_error(last_errno());
  Upload upload(std::move(fd), std::move(*parent), partial, name, 0,
                /*keep_partial_on_abort=*/true);
  if (durable_uploads_) upload.make_durable();
  return upload.commit();
}

Result<Upload> PosixStorage::open_upload(std::string_view path, UploadMode mode,
                                         std::uint64_t offset, bool keep_partial_on_abort) const {
  // The parent that was checked is the one written in: no second lookup a symlink swap could
  // redirect.
  auto parent = open_writable_parent(path);
  if (!parent) return make_error(parent.error());
  if (partial_expiry_.count() > 0) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    expire_partial_uploads(parent->get(), partial_expiry_,
                           std::chrono::duration_cast<std::chrono::seconds>(now).count());
  }
  const auto name = name_of(path);
  if (mode == UploadMode::Replace || mode == UploadMode::ContinuePartial) {
    const auto partial = partial_name_for(name);
    const int flags =
        O_WRONLY | O_CLOEXEC | O_NOFOLLOW | (mode == UploadMode::Replace ? O_CREAT : 0);
    // One upload per target at a time. A second try only for a file an expiry sweep removed
    // between our open and our lock: the name is free then.
    for (int attempt = 1;; ++attempt) {
      UniqueFd fd(::openat(parent->get(), partial.c_str(), flags, 0644));
      if (!fd.valid()) return make_error(last_errno());
      if (auto locked = lock_for_upload(fd.get()); !locked) {
        if (locked.error() == std::errc::no_such_file_or_directory && attempt == 1) continue;
        return make_error(locked.error());
      }
      // Only a leftover partial file is truncated, never the empty one just created: on ext4
      // a truncation to zero marks the file for "replace via truncate" (auto_da_alloc), and
      // its close then pushes the whole upload to the disk in the closing thread (measured: a
      // 1 GB upload took twice as long).
      if (mode == UploadMode::Replace) {
        const auto held = regular_file_size(fd.get());
        if (held && *held > 0 && ::ftruncate(fd.get(), 0) != 0) return make_error(last_errno());
      }
      return Upload(std::move(fd), std::move(*parent), partial, name, 0, keep_partial_on_abort);
    }
  }
  if (mode == UploadMode::StripePart) return open_stripe_part(std::move(*parent), name);
  if (mode == UploadMode::Resume) {
    // A stream-mode restart (REST n + STOR) goes on with the upload that a failed attempt left
    // under the hidden name, when there is one: that is what the client's 111 markers counted.
    const auto partial = partial_name_for(name);
    UniqueFd kept(::openat(parent->get(), partial.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW));
    auto locked = kept.valid() ? lock_for_upload(kept.get()) : Result<void>{};
    if (kept.valid() && !locked && locked.error() == std::errc::no_such_file_or_directory) {
      kept = UniqueFd();  // expired meanwhile: as if there were none
      errno = ENOENT;
    }
    if (kept.valid()) {
      if (!locked) return make_error(locked.error());
      const auto held = regular_file_size(kept.get());
      // Restarting past what arrived would leave a hole of zeros in the file.
      if (!held || *held < offset) return make_error(make_error_code(protocol::Errc::BadArgument));
      if (::ftruncate(kept.get(), static_cast<off_t>(offset)) != 0) return make_error(last_errno());
      return Upload(std::move(kept), std::move(*parent), partial, name, offset,
                    keep_partial_on_abort);
    }
    if (errno != ENOENT) return make_error(last_errno());
  }
  // Created here (O_EXCL first) or already there: a failed upload removes only a file it made.
  constexpr int kFlags = O_WRONLY | O_CLOEXEC | O_NOFOLLOW;
  UniqueFd fd(::openat(parent->get(), name.c_str(), kFlags | O_CREAT | O_EXCL, 0644));
  const bool created = fd.valid();
  if (!created && errno == EEXIST) fd = UniqueFd(::openat(parent->get(), name.c_str(), kFlags));
  if (!fd.valid()) return make_error(last_errno());
  std::uint64_t start = offset;
  if (mode == UploadMode::Append && offset == 0) {
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) return make_error(last_errno());
    start = static_cast<std::uint64_t>(info.st_size);
  }
  if (mode == UploadMode::Resume && ::ftruncate(fd.get(), static_cast<off_t>(offset)) != 0) {
    return make_error(last_errno());
  }
  Upload upload(std::move(fd), std::move(*parent), std::string(), name, start,
                keep_partial_on_abort);
  if (created) upload.remove_on_abort();
  return upload;
}

}  // namespace gridftp::server::storage
