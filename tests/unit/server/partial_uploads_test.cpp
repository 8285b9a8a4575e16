#include "server/storage/partial_uploads.hpp"

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/storage/unique_fd.hpp"

namespace gridftp::server::storage {
namespace {

namespace fs = std::filesystem;

struct Directory {
  Directory() {
    char name[] = "/tmp/partials-test-XXXXXX";
    path = ::mkdtemp(name);
    fd = UniqueFd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  }
  ~Directory() { fs::remove_all(path); }
  // A file of `bytes` bytes last written `age_seconds` before `kNow`.
  fs::path write(const std::string& name, std::size_t bytes, std::int64_t age_seconds) const {
    const auto file = path / name;
    std::ofstream(file) << std::string(bytes, 'x');
    const timespec times[2] = {{kNow - age_seconds, 0}, {kNow - age_seconds, 0}};
    ::utimensat(AT_FDCWD, file.c_str(), times, 0);
    return file;
  }
  static constexpr std::int64_t kNow = 2'000'000'000;
  fs::path path;
  UniqueFd fd;
};

TEST_CASE("list_partial_uploads names each partial by its target, with size and age",
          "[storage][partials]") {
  Directory dir;
  dir.write(".gridftpd-part.b.bin", 10, 5);
  dir.write(".gridftpd-part.a.bin", 3, 60);
  dir.write("complete.bin", 7, 60);
  const auto partials = list_partial_uploads(dir.fd.get());
  REQUIRE(partials.size() == 2);
  CHECK(partials[0].target == "a.bin");
  CHECK(partials[0].bytes == 3);
  CHECK(partials[0].modified_unix == Directory::kNow - 60);
  CHECK_FALSE(partials[0].in_use);
  CHECK(partials[1].target == "b.bin");
}

TEST_CASE("expire_partial_uploads removes only idle partials older than the age",
          "[storage][partials]") {
  Directory dir;
  dir.write(".gridftpd-part.old.bin", 10, 120);
  dir.write(".gridftpd-part.recent.bin", 10, 30);
  dir.write("old-but-complete.bin", 10, 120);
  const auto busy = dir.write(".gridftpd-part.busy.bin", 10, 120);
  UniqueFd writer(::open(busy.c_str(), O_WRONLY | O_CLOEXEC));
  REQUIRE(::flock(writer.get(), LOCK_EX | LOCK_NB) == 0);  // as a running upload holds it

  CHECK(expire_partial_uploads(dir.fd.get(), std::chrono::seconds(60), Directory::kNow) == 1);
  CHECK_FALSE(fs::exists(dir.path / ".gridftpd-part.old.bin"));
  CHECK(fs::exists(dir.path / ".gridftpd-part.recent.bin"));
  CHECK(fs::exists(dir.path / "old-but-complete.bin"));
  CHECK(fs::exists(busy));
  const auto partials = list_partial_uploads(dir.fd.get());
  REQUIRE(partials.size() == 2);
  CHECK(partials[0].target == "busy.bin");
  CHECK(partials[0].in_use);

  writer = UniqueFd();  // the upload ended
  CHECK(expire_partial_uploads(dir.fd.get(), std::chrono::seconds(60), Directory::kNow) == 1);
  CHECK_FALSE(fs::exists(busy));
}

TEST_CASE("lock_for_upload takes a free file, refuses a held one, and notices an expired one",
          "[storage][partials]") {
  Directory dir;
  const auto file = dir.write(".gridftpd-part.f.bin", 10, 5);
  UniqueFd first(::open(file.c_str(), O_WRONLY | O_CLOEXEC));
  UniqueFd second(::open(file.c_str(), O_WRONLY | O_CLOEXEC));
  REQUIRE(lock_for_upload(first.get()));
  // Another upload holds it for good: refused once the short retries are over.
  const auto busy = lock_for_upload(second.get());
  REQUIRE_FALSE(busy);
  CHECK(busy.error() == std::errc::operation_would_block);
  // A listing probes the lock without keeping it, so the upload still holds it after.
  CHECK(list_partial_uploads(dir.fd.get()).at(0).in_use);
  first = UniqueFd();
  // Opened, then removed by an expiry sweep before the lock: no file to write into.
  ::unlink(file.c_str());
  const auto gone = lock_for_upload(second.get());
  REQUIRE_FALSE(gone);
  CHECK(gone.error() == std::errc::no_such_file_or_directory);
}

TEST_CASE("expire_partial_uploads leaves a symlink or directory named like a partial",
          "[storage][partials]") {
  Directory dir;
  const auto target = dir.write("elsewhere.bin", 10, 120);
  fs::create_symlink(target, dir.path / ".gridftpd-part.link");
  fs::create_directory(dir.path / ".gridftpd-part.dir");
  CHECK(expire_partial_uploads(dir.fd.get(), std::chrono::seconds(60), Directory::kNow) == 0);
  CHECK(fs::exists(target));
  CHECK(fs::is_symlink(dir.path / ".gridftpd-part.link"));
}

}  // namespace
}  // namespace gridftp::server::storage
