#include "server/storage/posix_storage.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "protocol/core/errors.hpp"
#include "server/storage/path_resolver.hpp"
#include "server/storage/upload.hpp"

namespace fs = std::filesystem;
using gridftp::Condition;
using gridftp::server::storage::kPartialPrefix;
using gridftp::server::storage::PathResolver;
using gridftp::server::storage::PosixStorage;
using gridftp::server::storage::Upload;
using gridftp::server::storage::UploadMode;

namespace {

void write_text(const fs::path& path, std::string_view text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
}

std::string read_text(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string read_fd(int fd) {
  std::string out;
  char buffer[4096];
  while (true) {
    const auto got = ::read(fd, buffer, sizeof buffer);
    if (got <= 0) break;
    out.append(buffer, static_cast<std::size_t>(got));
  }
  return out;
}

std::span<const char> bytes_of(std::string_view text) { return {text.data(), text.size()}; }

// A scratch tree under /tmp, removed at the end:
//   outside/secret.txt                 must never be read or written through the root
//   root/pub/readme.txt                read-only
//   root/readonly/file.txt             read-only
//   root/incoming/                     the writable area
//   root/escape_abs -> <base>/outside  absolute symlink out of the root
//   root/escape_abs_file -> <base>/outside/secret.txt
//   root/escape_rel -> ../outside      relative symlink out of the root
//   root/pub/escape_rel2 -> ../../outside/secret.txt
//   root/link_inside -> pub/readme.txt
//   root/pub/to_incoming -> ../incoming
//   root/incoming/to_readonly -> ../readonly
//   root/incoming/out_abs -> <base>/outside
//   root/incoming/out_rel -> ../../outside
//   root/incoming/file_link -> ../readonly/file.txt
class TempTree {
 public:
  TempTree() {
    char pattern[] = "/tmp/gridftpd-storage-test-XXXXXX";
    const char* made = ::mkdtemp(pattern);
    REQUIRE(made != nullptr);
    base = made;
    outside = base / "outside";
    root = base / "root";
    fs::create_directories(outside / "dir");
    write_text(outside / "secret.txt", "secret");
    fs::create_directories(root / "pub");
    fs::create_directories(root / "readonly");
    fs::create_directories(root / "incoming");
    write_text(root / "pub" / "readme.txt", "hello");
    write_text(root / "readonly" / "file.txt", "original");
    fs::create_directory_symlink(outside, root / "escape_abs");
    fs::create_symlink(outside / "secret.txt", root / "escape_abs_file");
    fs::create_directory_symlink("../outside", root / "escape_rel");
    fs::create_symlink("../../outside/secret.txt", root / "pub" / "escape_rel2");
    fs::create_symlink("pub/readme.txt", root / "link_inside");
    fs::create_directory_symlink("../incoming", root / "pub" / "to_incoming");
    fs::create_directory_symlink("../readonly", root / "incoming" / "to_readonly");
    fs::create_directory_symlink(outside, root / "incoming" / "out_abs");
    fs::create_directory_symlink("../../outside", root / "incoming" / "out_rel");
    fs::create_symlink("../readonly/file.txt", root / "incoming" / "file_link");
  }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(base, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  PosixStorage storage(std::vector<std::string> writable = {"/incoming"}) const {
    auto opened = PosixStorage::open(root, std::move(writable));
    REQUIRE(opened.has_value());
    return std::move(opened.value());
  }

  // Names in a real directory, including hidden ones.
  static std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
    return names;
  }
  static std::size_t partial_files_in(const fs::path& dir) {
    std::size_t count = 0;
    for (const auto& name : names_in(dir)) {
      if (name.starts_with(kPartialPrefix)) ++count;
    }
    return count;
  }
  std::vector<std::string> outside_names() const { return names_in(outside); }

  fs::path base;
  fs::path outside;
  fs::path root;
};

const std::vector<std::string> kOutsideNames{"dir", "secret.txt"};

std::vector<std::string> sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

// ---- reading beneath the root ------------------------------------------------------------------

TEST_CASE("PosixStorage reads a file beneath the root", "[storage]") {
  TempTree tree;
  const auto storage = tree.storage();
  auto fd = storage.open_for_read("/pub/readme.txt");
  REQUIRE(fd.has_value());
  CHECK(read_fd(fd->get()) == "hello");
}

TEST_CASE("PosixStorage follows a symlink that stays inside the root", "[storage]") {
  TempTree tree;
  const auto storage = tree.storage();
  auto fd = storage.open_for_read("/link_inside");
  REQUIRE(fd.has_value());
  CHECK(read_fd(fd->get()) == "hello");
  const auto facts = storage.stat("/link_inside");
  REQUIRE(facts.has_value());
  CHECK(facts->size_bytes == 5);
}

TEST_CASE("PosixStorage refuses to read through symlinks that leave the root",
          "[storage][escape]") {
  TempTree tree;
  const auto storage = tree.storage();
  const std::string path = GENERATE(
      std::string("/escape_abs/secret.txt"), std::string("/escape_abs_file"),
      std::string("/escape_rel/secret.txt"), std::string("/pub/escape_rel2"),
      std::string("/incoming/out_abs/secret.txt"), std::string("/incoming/out_rel/secret.txt"));
  INFO(path);
  const auto fd = storage.open_for_read(path);
  REQUIRE_FALSE(fd.has_value());
  INFO(fd.error().message());
  CHECK(fd.error() == Condition::PermissionDenied);
}

TEST_CASE("PosixStorage stat and list refuse symlinks that leave the root", "[storage][escape]") {
  TempTree tree;
  const auto storage = tree.storage();
  const auto facts = storage.stat("/escape_abs");
  REQUIRE_FALSE(facts.has_value());
  CHECK(facts.error() == Condition::PermissionDenied);
  const auto listing = storage.list_directory("/escape_rel");
  REQUIRE_FALSE(listing.has_value());
  CHECK(listing.error() == Condition::PermissionDenied);
  const auto cwd = storage.check_directory("/escape_abs");
  REQUIRE_FALSE(cwd.has_value());
  CHECK(cwd.error() == Condition::PermissionDenied);
}

TEST_CASE("PosixStorage reports missing files and directories distinctly", "[storage]") {
  TempTree tree;
  const auto storage = tree.storage();
  const auto missing = storage.open_for_read("/pub/nope.txt");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error() == Condition::NotFound);
  const auto directory = storage.open_for_read("/pub");
  REQUIRE_FALSE(directory.has_value());
  CHECK(directory.error() == Condition::IsADirectory);
  const auto not_dir = storage.check_directory("/pub/readme.txt");
  REQUIRE_FALSE(not_dir.has_value());
  CHECK(not_dir.error() == Condition::NotADirectory);
}

TEST_CASE("PosixStorage does not block opening a named pipe for reading", "[storage]") {
  TempTree tree;
  REQUIRE(::mkfifo((tree.root / "pub" / "fifo").c_str(), 0644) == 0);
  const auto storage = tree.storage();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::alarm(3);  // a blocking open(2) on a FIFO with no writer never returns
    const auto fd = storage.open_for_read("/pub/fifo");
    ::_exit(fd.has_value() ? 1 : 0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  INFO("child " << (WIFSIGNALED(status) ? "killed by signal (open blocked)" : "exited"));
  CHECK(WIFEXITED(status));
  if (WIFEXITED(status)) CHECK(WEXITSTATUS(status) == 0);  // refused, as other special files are
}

TEST_CASE("PosixStorage lists a directory without partial uploads", "[storage]") {
  TempTree tree;
  write_text(tree.root / "pub" / (std::string(kPartialPrefix) + "x.123"), "part");
  const auto storage = tree.storage();
  const auto listing = storage.list_directory("/pub");
  REQUIRE(listing.has_value());
  std::vector<std::string> names;
  for (const auto& facts : *listing) names.push_back(facts.name);
  CHECK(sorted(names) == std::vector<std::string>{"escape_rel2", "readme.txt", "to_incoming"});
}

TEST_CASE("PosixStorage opens a root given through a symlink", "[storage]") {
  TempTree tree;
  fs::create_directory_symlink(tree.root, tree.base / "rootlink");
  auto opened = PosixStorage::open(tree.base / "rootlink", {"/incoming"});
  REQUIRE(opened.has_value());
  auto upload = opened->begin_upload("/incoming/a.txt", UploadMode::Replace, 0);
  REQUIRE(upload.has_value());
  REQUIRE(upload->write_at(0, bytes_of("x")).has_value());
  REQUIRE(upload->commit().has_value());
  CHECK(read_text(tree.root / "incoming" / "a.txt") == "x");
}

TEST_CASE("PosixStorage::open fails for a missing root", "[storage]") {
  TempTree tree;
  const auto opened = PosixStorage::open(tree.base / "no-such-root", {});
  REQUIRE_FALSE(opened.has_value());
  CHECK(opened.error() == Condition::NotFound);
}

// ---- writing only inside writable areas --------------------------------------------------------

TEST_CASE("PosixStorage refuses every write outside the writable areas", "[storage][write]") {
  TempTree tree;
  const auto storage = tree.storage();
  const UploadMode mode =
      GENERATE(UploadMode::Replace, UploadMode::Append, UploadMode::Resume, UploadMode::InPlace);
  const auto upload = storage.begin_upload("/pub/new.txt", mode, 0);
  REQUIRE_FALSE(upload.has_value());
  CHECK(upload.error() == Condition::PermissionDenied);
  const auto top = storage.begin_upload("/new.txt", mode, 0);
  REQUIRE_FALSE(top.has_value());
  CHECK(top.error() == Condition::PermissionDenied);
  const auto root = storage.begin_upload("/", mode, 0);
  REQUIRE_FALSE(root.has_value());
  CHECK(root.error() == Condition::PermissionDenied);
  CHECK_FALSE(fs::exists(tree.root / "pub" / "new.txt"));
  CHECK(TempTree::partial_files_in(tree.root / "pub") == 0);
}

TEST_CASE("PosixStorage refuses directory, delete, rename and touch outside writable areas",
          "[storage][write]") {
  TempTree tree;
  write_text(tree.root / "incoming" / "mine.txt", "m");
  const auto storage = tree.storage();
  CHECK(storage.make_directory("/pub/d").error() == Condition::PermissionDenied);
  CHECK(storage.remove_file("/pub/readme.txt").error() == Condition::PermissionDenied);
  CHECK(storage.remove_directory("/readonly").error() == Condition::PermissionDenied);
  CHECK(storage.rename("/pub/readme.txt", "/incoming/stolen.txt").error() ==
        Condition::PermissionDenied);
  CHECK(storage.rename("/incoming/mine.txt", "/pub/mine.txt").error() ==
        Condition::PermissionDenied);
  CHECK(storage.set_modify_time("/pub/readme.txt", 0).error() == Condition::PermissionDenied);
  CHECK(read_text(tree.root / "pub" / "readme.txt") == "hello");
  CHECK(fs::exists(tree.root / "incoming" / "mine.txt"));
  CHECK_FALSE(fs::exists(tree.root / "pub" / "d"));
}

TEST_CASE("PosixStorage allows directory, delete, rename and touch inside a writable area",
          "[storage][write]") {
  TempTree tree;
  write_text(tree.root / "incoming" / "mine.txt", "m");
  const auto storage = tree.storage();
  CHECK(storage.make_directory("/incoming/d").has_value());
  CHECK(fs::is_directory(tree.root / "incoming" / "d"));
  CHECK(storage.rename("/incoming/mine.txt", "/incoming/d/moved.txt").has_value());
  CHECK(read_text(tree.root / "incoming" / "d" / "moved.txt") == "m");
  CHECK(storage.set_modify_time("/incoming/d/moved.txt", 1000000000).has_value());
  CHECK(
      fs::last_write_time(tree.root / "incoming" / "d" / "moved.txt").time_since_epoch().count() !=
      0);
  CHECK(storage.remove_file("/incoming/d/moved.txt").has_value());
  CHECK(storage.remove_directory("/incoming/d").has_value());
  CHECK(TempTree::names_in(tree.root / "incoming").size() == 4);  // only the fixture's symlinks
}

TEST_CASE("PosixStorage does not let a user remove or replace the writable area itself",
          "[storage][write]") {
  // The area's own directory entry lives in its read-only parent; removing it writes there.
  TempTree tree;
  fs::create_directories(tree.root / "empty_area");
  const auto storage = tree.storage({"/empty_area"});
  const auto removed = storage.remove_directory("/empty_area");
  CHECK_FALSE(removed.has_value());
  CHECK(fs::is_directory(tree.root / "empty_area"));
}

TEST_CASE("PosixStorage refuses uploads through a symlink that leaves the root, creating nothing",
          "[storage][write][escape]") {
  TempTree tree;
  const auto storage = tree.storage();
  const UploadMode mode =
      GENERATE(UploadMode::Replace, UploadMode::Append, UploadMode::Resume, UploadMode::InPlace);
  const std::string path =
      GENERATE(std::string("/incoming/out_abs/new.txt"), std::string("/incoming/out_rel/new.txt"),
               std::string("/incoming/out_abs/secret.txt"), std::string("/escape_abs/new.txt"),
               std::string("/escape_rel/new.txt"));
  INFO(path << " mode " << static_cast<int>(mode));
  const auto upload = storage.begin_upload(path, mode, 0);
  REQUIRE_FALSE(upload.has_value());
  INFO(upload.error().message());
  CHECK(upload.error() == Condition::PermissionDenied);
  CHECK(sorted(tree.outside_names()) == kOutsideNames);
  CHECK(read_text(tree.outside / "secret.txt") == "secret");
  CHECK(storage.make_directory("/incoming/out_abs/d").error() == Condition::PermissionDenied);
  CHECK_FALSE(fs::exists(tree.outside / "d"));
}

TEST_CASE(
    "PosixStorage: a symlink in the writable area to a read-only directory gives no write access",
    "[storage][write][escape]") {
  TempTree tree;
  const auto storage = tree.storage();
  const UploadMode mode =
      GENERATE(UploadMode::Replace, UploadMode::Append, UploadMode::Resume, UploadMode::InPlace);
  const auto upload = storage.begin_upload("/incoming/to_readonly/new.txt", mode, 0);
  REQUIRE_FALSE(upload.has_value());
  CHECK(upload.error() == Condition::PermissionDenied);
  const auto overwrite = storage.begin_upload("/incoming/to_readonly/file.txt", mode, 0);
  REQUIRE_FALSE(overwrite.has_value());
  CHECK(overwrite.error() == Condition::PermissionDenied);
  CHECK(storage.make_directory("/incoming/to_readonly/d").error() == Condition::PermissionDenied);
  CHECK(storage.remove_file("/incoming/to_readonly/file.txt").error() ==
        Condition::PermissionDenied);
  CHECK(sorted(TempTree::names_in(tree.root / "readonly")) == std::vector<std::string>{"file.txt"});
  CHECK(read_text(tree.root / "readonly" / "file.txt") == "original");
}

TEST_CASE("PosixStorage: in-place upload onto a symlinked file in the writable area is refused",
          "[storage][write][escape]") {
  TempTree tree;
  const auto storage = tree.storage();
  const UploadMode mode = GENERATE(UploadMode::Append, UploadMode::Resume, UploadMode::InPlace);
  const auto upload = storage.begin_upload("/incoming/file_link", mode, 0);
  REQUIRE_FALSE(upload.has_value());
  CHECK(upload.error() == Condition::PermissionDenied);
  CHECK(read_text(tree.root / "readonly" / "file.txt") == "original");
}

TEST_CASE("PosixStorage: replacing a symlinked file replaces the link, not its target",
          "[storage][write][escape]") {
  TempTree tree;
  const auto storage = tree.storage();
  auto upload = storage.begin_upload("/incoming/file_link", UploadMode::Replace, 0);
  REQUIRE(upload.has_value());
  REQUIRE(upload->write_at(0, bytes_of("new")).has_value());
  REQUIRE(upload->commit().has_value());
  CHECK(read_text(tree.root / "readonly" / "file.txt") == "original");
  CHECK_FALSE(fs::is_symlink(tree.root / "incoming" / "file_link"));
  CHECK(read_text(tree.root / "incoming" / "file_link") == "new");
}

TEST_CASE(
    "PosixStorage judges writability by real location: a read-only symlink into the area works",
    "[storage][write]") {
  TempTree tree;
  const auto storage = tree.storage();
  auto upload = storage.begin_upload("/pub/to_incoming/via_link.txt", UploadMode::Replace, 0);
  REQUIRE(upload.has_value());
  REQUIRE(upload->write_at(0, bytes_of("v")).has_value());
  REQUIRE(upload->commit().has_value());
  CHECK(read_text(tree.root / "incoming" / "via_link.txt") == "v");
}

TEST_CASE("PosixStorage: a whole-root writable area allows writes anywhere beneath the root",
          "[storage][write]") {
  TempTree tree;
  const auto storage = tree.storage({"/"});
  auto upload = storage.begin_upload("/top.txt", UploadMode::Replace, 0);
  REQUIRE(upload.has_value());
  REQUIRE(upload->commit().has_value());
  CHECK(fs::exists(tree.root / "top.txt"));
  const auto escape = storage.begin_upload("/escape_abs/new.txt", UploadMode::Replace, 0);
  REQUIRE_FALSE(escape.has_value());
  CHECK(escape.error() == Condition::PermissionDenied);
  CHECK(sorted(tree.outside_names()) == kOutsideNames);
}

// ---- upload modes ------------------------------------------------------------------------------

TEST_CASE("An upload knows whether it writes a regular file or a device", "[storage][upload]") {
  // Devices (the memory-to-memory benchmarks' /dev/null) get no checksums and no shared disk
  // thread; regular files get both.
  TempTree tree;
  const auto storage = tree.storage();
  auto file = storage.begin_upload("/incoming/plain.bin", UploadMode::Replace, 0);
  REQUIRE(file.has_value());
  CHECK(file->writes_regular_file());
  file->abort();

  const auto device = tree.root / "incoming" / "null";
  if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    WARN("mknod needs root; the device half is not checked here");
    return;
  }
  auto to_device = storage.begin_upload("/incoming/null", UploadMode::InPlace, 0);
  REQUIRE(to_device.has_value());
  CHECK_FALSE(to_device->writes_regular_file());
  REQUIRE(to_device->write_at(0, bytes_of("discarded")).has_value());
  REQUIRE(to_device->commit().has_value());
  struct stat facts {};
  REQUIRE(::stat(device.c_str(), &facts) == 0);
  CHECK(S_ISCHR(facts.st_mode));
}

TEST_CASE("Replace upload writes a hidden partial file and commit renames it into place",
          "[storage][upload]") {
  TempTree tree;
  const auto storage = tree.storage();
  auto upload = storage.begin_upload("/incoming/new.txt", UploadMode::Replace, 0);
  REQUIRE(upload.has_value());
  CHECK(upload->start_offset() == 0);
  REQUIRE(upload->write_at(0, bytes_of("hello ")).has_value());
  REQUIRE(upload->write_at(6, bytes_of("world")).has_value());

  CHECK(TempTree::partial_files_in(tree.root / "incoming") == 1);
  CHECK_FALSE(fs::exists(tree.root / "incoming" / "new.txt"));
  const auto listing = storage.list_directory("/incoming");
  REQUIRE(listing.has_value());
  for (const auto& facts : *listing) {
    CHECK_FALSE(facts.name.starts_with(kPartialPrefix));
    CHECK(facts.name != "new.txt");
  }

  REQUIRE(upload->commit().has_value());
  CHECK(read_text(tree.root / "incoming" / "new.txt") == "hello world");
  CHECK(TempTree::partial_files_in(tree.root / "incoming") == 0);
}

TEST_CASE("Replace upload replaces an existing file completely on commit", "[storage][upload]") {
  TempTree tree;
  write_text(tree.root / "incoming" / "f.txt", "0123456789");
  const auto storage = tree.storage();
  auto upload = storage.begin_upload("/incoming/f.txt", UploadMode::Replace, 0);
  REQUIRE(upload.has_value());
  REQUIRE(upload->write_at(0, bytes_of("ab")).has_value());
  CHECK(read_text(tree.root / "incoming" / "f.txt") == "0123456789");  // untouched until commit
  REQUIRE(upload->commit().has_value());
  CHECK(read_text(tree.root / "incoming" / "f.txt") == "ab");
}

TEST_CASE("Replace upload destroyed without commit leaves nothing behind", "[storage][upload]") {
  TempTree tree;
  write_text(tree.root / "incoming" / "kept.txt", "old");
  const auto storage = tree.storage();
  {
    auto fresh = storage.begin_upload("/incoming/fresh.txt", UploadMode::Replace, 0);
    REQUIRE(fresh.has_value());
    REQUIRE(fresh->write_at(0, bytes_of("partial")).has_value());
    auto over = storage.begin_upload("/incoming/kept.txt", UploadMode::Replace, 0);
    REQUIRE(over.has_value());
    REQUIRE(over->write_at(0, bytes_of("partial")).has_value());
    CHECK(TempTree::partial_files_in(tree.root / "incoming") == 2);
  }
  CHECK_FALSE(fs::exists(tree.root / "incoming" / "fresh.txt"));
  CHECK(read_text(tree.root / "incoming" / "kept.txt") == "old");
  CHECK(TempTree::partial_files_in(tree.root / "incoming") == 0);
}

TEST_CASE("A striped upload: every mover writes its blocks into one partial file, commit names it",
          "[storage][upload][striping]") {
  TempTree tree;
  write_text(tree.root / "incoming" / "s.bin", "old content that must go");
  const auto storage = tree.storage();
  REQUIRE(storage.begin_striped_upload("/incoming/s.bin").has_value());
  {
    // Two movers at once, neither holding the other off (no one-writer lock), in any order.
    auto second = storage.begin_upload("/incoming/s.bin", UploadMode::StripePart, 0);
    auto first = storage.begin_upload("/incoming/s.bin", UploadMode::StripePart, 0);
    REQUIRE(second.has_value());
    REQUIRE(first.has_value());
    REQUIRE(second->write_at(4, bytes_of("4567")).has_value());
    REQUIRE(first->write_at(0, bytes_of("0123")).has_value());
    REQUIRE(second->commit().has_value());
    REQUIRE(first->commit().has_value());
  }
  // Each stripe's end leaves the file hidden and the old one in place.
  CHECK(read_text(tree.root / "incoming" / "s.bin") == "old content that must go");
  CHECK(TempTree::partial_files_in(tree.root / "incoming") == 1);
  REQUIRE(storage.commit_striped_upload("/incoming/s.bin").has_value());
  CHECK(read_text(tree.root / "incoming" / "s.bin") == "01234567");
  CHECK(TempTree::partial_files_in(tree.root / "incoming") == 0);
}

TEST_CASE("A stripe part without a begun striped upload, or a commit of none, is refused",
          "[storage][upload][striping]") {
  TempTree tree;
  const auto storage = tree.storage();
  const auto part = storage.begin_upload("/incoming/none.bin", UploadMode::StripePart, 0);
  REQUIRE_FALSE(part.has_value());
  CHECK(part.error() == std::errc::no_such_file_or_directory);
  const auto commit = storage.commit_striped_upload("/incoming/none.bin");
  REQUIRE_FALSE(commit.has_value());
  CHECK_FALSE(fs::exists(tree.root / "incoming" / "none.bin"));
  // Nor outside the writable areas.
  CHECK_FALSE(storage.begin_striped_upload("/pub/x.bin").has_value());
}

TEST_CASE("Replace upload abort removes the partial file", "[storage][upload]") {
  TempTree tree;
  const auto storage = tree.storage();
  auto upload = storage.begin_upload("/incoming/a.txt", UploadMode::Replace, 0);
  REQUIRE(upload.has_value());
  upload->abort();
  CHECK(TempTree::partial_files_in(tree.root / "incoming") == 0);
  CHECK_FALSE(fs::exists(tree.root / "incoming" / "a.txt"));
}

TEST_CASE("Replace upload: a moved-over upload's partial file is removed, not leaked",
          "[storage][upload]") {
  TempTree tree;
  const auto storage = tree.storage();
  {
    auto first = storage.begin_upload("/incoming/one.txt", UploadMode::Replace, 0);
    auto second = storage.begin_upload("/incoming/two.txt", UploadMode::Replace, 0);
    REQUIRE(first.has_value());
    REQUIRE(second.has_value());
    CHECK(TempTree::partial_files_in(tree.root / "incoming") == 2);
    first.value() = std::move(second.value());  // the upload for one.txt is dropped here
  }
  CHECK(TempTree::partial_files_in(tree.root / "incoming") == 0);
}

TEST_CASE("Replace upload accepts the longest legal file name", "[storage][upload]") {
  TempTree tree;
  const auto storage = tree.storage();
  const auto length = static_cast<std::size_t>(GENERATE(200, 255));
  const std::string name(length, 'n');
  auto upload = storage.begin_upload("/incoming/" + name, UploadMode::Replace, 0);
  INFO("name length " << length << ": " << (upload ? std::string("ok") : upload.error().message()));
  REQUIRE(upload.has_value());
  REQUIRE(upload->write_at(0, bytes_of("x")).has_value());
  REQUIRE(upload->commit().has_value());
  CHECK(read_text(tree.root / "incoming" / name) == "x");
}

TEST_CASE("Replace upload refuses a name longer than the file system allows", "[storage][upload]") {
  TempTree tree;
  const auto storage = tree.storage();
  const auto upload =
      storage.begin_upload("/incoming/" + std::string(256, 'n'), UploadMode::Replace, 0);
  REQUIRE_FALSE(upload.has_value());
  CHECK(upload.error() == Condition::FileNameNotAllowed);
  CHECK(TempTree::partial_files_in(tree.root / "incoming") == 0);
}

TEST_CASE("Append upload starts at the current size", "[storage][upload]") {
  TempTree tree;
  write_text(tree.root / "incoming" / "log.txt", "hello");
  const auto storage = tree.storage();
  auto upload = storage.begin_upload("/incoming/log.txt", UploadMode::Append, 0);
  REQUIRE(upload.has_value());
  CHECK(upload->start_offset() == 5);
  REQUIRE(upload->write_at(0, bytes_of(" world")).has_value());
  REQUIRE(upload->commit().has_value());
  CHECK(read_text(tree.root / "incoming" / "log.txt") == "hello world");
  CHECK(TempTree::partial_files_in(tree.root / "incoming") == 0);
}

TEST_CASE("Append upload to a missing file creates it and starts at 0", "[storage][upload]") {
  TempTree tree;
  const auto storage = tree.storage();
  auto upload = storage.begin_upload("/incoming/new.log", UploadMode::Append, 0);
  REQUIRE(upload.has_value());
  CHECK(upload->start_offset() == 0);
  REQUIRE(upload->write_at(0, bytes_of("abc")).has_value());
  REQUIRE(upload->commit().has_value());
  CHECK(read_text(tree.root / "incoming" / "new.log") == "abc");
}

TEST_CASE("Append upload with an explicit offset starts there without truncating",
          "[storage][upload]") {
  TempTree tree;
  write_text(tree.root / "incoming" / "f.txt", "0123456789");
  const auto storage = tree.storage();
  auto upload = storage.begin_upload("/incoming/f.txt", UploadMode::Append, 3);
  REQUIRE(upload.has_value());
  CHECK(upload->start_offset() == 3);
  REQUIRE(upload->write_at(0, bytes_of("XY")).has_value());
  REQUIRE(upload->commit().has_value());
  CHECK(read_text(tree.root / "incoming" / "f.txt") == "012XY56789");
}

TEST_CASE("Resume upload truncates to the offset and writes from there", "[storage][upload]") {
  TempTree tree;
  write_text(tree.root / "incoming" / "f.txt", "0123456789");
  const auto storage = tree.storage();
  const auto offset = static_cast<std::uint64_t>(GENERATE(0, 1, 4, 9, 10));
  auto upload = storage.begin_upload("/incoming/f.txt", UploadMode::Resume, offset);
  REQUIRE(upload.has_value());
  CHECK(upload->start_offset() == offset);
  CHECK(fs::file_size(tree.root / "incoming" / "f.txt") == offset);
  REQUIRE(upload->write_at(0, bytes_of("XY")).has_value());
  REQUIRE(upload->commit().has_value());
  CHECK(read_text(tree.root / "incoming" / "f.txt") ==
        std::string("0123456789").substr(0, static_cast<std::size_t>(offset)) + "XY");
}

TEST_CASE("InPlace upload starts at the offset without truncating", "[storage][upload]") {
  TempTree tree;
  write_text(tree.root / "incoming" / "f.txt", "0123456789");
  const auto storage = tree.storage();
  auto upload = storage.begin_upload("/incoming/f.txt", UploadMode::InPlace, 4);
  REQUIRE(upload.has_value());
  CHECK(upload->start_offset() == 4);
  CHECK(fs::file_size(tree.root / "incoming" / "f.txt") == 10);
  REQUIRE(upload->write_at(0, bytes_of("XY")).has_value());
  REQUIRE(upload->commit().has_value());
  CHECK(read_text(tree.root / "incoming" / "f.txt") == "0123XY6789");
  CHECK(TempTree::partial_files_in(tree.root / "incoming") == 0);
}

TEST_CASE("In-place uploads keep what arrived when destroyed without commit", "[storage][upload]") {
  TempTree tree;
  write_text(tree.root / "incoming" / "f.txt", "0123");
  const auto storage = tree.storage();
  {
    auto upload = storage.begin_upload("/incoming/f.txt", UploadMode::Resume, 2);
    REQUIRE(upload.has_value());
    REQUIRE(upload->write_at(0, bytes_of("ab")).has_value());
  }
  CHECK(read_text(tree.root / "incoming" / "f.txt") == "01ab");
  CHECK(TempTree::partial_files_in(tree.root / "incoming") == 0);
}

TEST_CASE("An in-place upload that created its file removes it when it fails",
          "[storage][upload]") {
  TempTree tree;
  const auto storage = tree.storage();
  const UploadMode mode = GENERATE(UploadMode::Append, UploadMode::Resume, UploadMode::InPlace);
  {
    auto upload = storage.begin_upload("/incoming/new.txt", mode, 0);
    REQUIRE(upload.has_value());
    REQUIRE(upload->write_at(0, bytes_of("half")).has_value());
    upload->abort();
  }
  CHECK_FALSE(fs::exists(tree.root / "incoming" / "new.txt"));
}

TEST_CASE("A failed in-place upload leaves a file that another session put in its place",
          "[storage][upload]") {
  TempTree tree;
  const auto storage = tree.storage();
  auto upload = storage.begin_upload("/incoming/new.txt", UploadMode::InPlace, 0);
  REQUIRE(upload.has_value());
  write_text(tree.root / "incoming" / "other.txt", "theirs");
  fs::rename(tree.root / "incoming" / "other.txt", tree.root / "incoming" / "new.txt");
  upload->abort();
  CHECK(read_text(tree.root / "incoming" / "new.txt") == "theirs");
}

TEST_CASE("A failed in-place upload kept for a restart keeps the file it created",
          "[storage][upload]") {
  TempTree tree;
  const auto storage = tree.storage();
  {
    auto upload = storage.begin_upload("/incoming/new.txt", UploadMode::InPlace, 0, true);
    REQUIRE(upload.has_value());
    REQUIRE(upload->write_at(0, bytes_of("half")).has_value());
  }
  CHECK(read_text(tree.root / "incoming" / "new.txt") == "half");
}

TEST_CASE("Upload onto an existing directory name fails on commit and leaves nothing",
          "[storage][upload]") {
  TempTree tree;
  fs::create_directories(tree.root / "incoming" / "sub" / "child");
  const auto storage = tree.storage();
  auto upload = storage.begin_upload("/incoming/sub", UploadMode::Replace, 0);
  REQUIRE(upload.has_value());
  CHECK_FALSE(upload->commit().has_value());
  CHECK(fs::is_directory(tree.root / "incoming" / "sub" / "child"));
  CHECK(TempTree::partial_files_in(tree.root / "incoming") == 0);
}

// ---- PathResolver directly ---------------------------------------------------------------------

TEST_CASE("PathResolver opens beneath the root and reports real virtual paths",
          "[storage][path_resolver]") {
  TempTree tree;
  auto resolver = PathResolver::open_root(tree.root);
  REQUIRE(resolver.has_value());
  auto root_fd = resolver->open("/", O_PATH | O_DIRECTORY);
  REQUIRE(root_fd.has_value());
  CHECK(resolver->real_virtual_path(root_fd->get()).value() == "/");
  auto file = resolver->open("/pub/readme.txt", O_RDONLY);
  REQUIRE(file.has_value());
  CHECK(resolver->real_virtual_path(file->get()).value() == "/pub/readme.txt");
  auto via_link = resolver->open("/pub/to_incoming", O_PATH | O_DIRECTORY);
  REQUIRE(via_link.has_value());
  CHECK(resolver->real_virtual_path(via_link->get()).value() == "/incoming");
  auto parent = resolver->open_parent("/pub/readme.txt");
  REQUIRE(parent.has_value());
  CHECK(resolver->real_virtual_path(parent->get()).value() == "/pub");
}

TEST_CASE("PathResolver: the kernel refuses dot-dot and escaping symlinks even if spelled directly",
          "[storage][path_resolver][escape]") {
  TempTree tree;
  auto resolver = PathResolver::open_root(tree.root);
  REQUIRE(resolver.has_value());
  const std::string path =
      GENERATE(std::string("/../outside/secret.txt"), std::string("/pub/../../outside"),
               std::string("/escape_abs"), std::string("/escape_rel"),
               std::string("/pub/escape_rel2"), std::string("/incoming/out_rel/secret.txt"));
  INFO(path);
  const auto fd = resolver->open(path, O_RDONLY);
  REQUIRE_FALSE(fd.has_value());
  CHECK(fd.error() == Condition::PermissionDenied);
}

TEST_CASE("PathResolver allows dot-dot that stays beneath the root", "[storage][path_resolver]") {
  TempTree tree;
  auto resolver = PathResolver::open_root(tree.root);
  REQUIRE(resolver.has_value());
  auto fd = resolver->open("/pub/../pub/readme.txt", O_RDONLY);
  REQUIRE(fd.has_value());
  CHECK(read_fd(fd->get()) == "hello");
}

TEST_CASE("PathResolver: a symlink loop fails instead of hanging", "[storage][path_resolver]") {
  TempTree tree;
  fs::create_symlink("loop", tree.root / "loop");
  auto resolver = PathResolver::open_root(tree.root);
  REQUIRE(resolver.has_value());
  const auto fd = resolver->open("/loop", O_RDONLY);
  REQUIRE_FALSE(fd.has_value());
  CHECK(fd.error() == std::errc::too_many_symbolic_link_levels);
}
