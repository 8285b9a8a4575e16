#include "server/storage/stored_checksums.hpp"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "server/storage/posix_storage.hpp"
#include "server/storage/unique_fd.hpp"
#include "server/storage/upload.hpp"

namespace fs = std::filesystem;
using gridftp::protocol::checksum::FileVersion;
using gridftp::security::DigestAlgorithm;
using gridftp::server::storage::clear_stored_checksums;
using gridftp::server::storage::file_version_of;
using gridftp::server::storage::PosixStorage;
using gridftp::server::storage::read_stored_checksum;
using gridftp::server::storage::store_checksum;
using gridftp::server::storage::stored_checksum_attribute;
using gridftp::server::storage::UniqueFd;
using gridftp::server::storage::UploadMode;

namespace {

std::span<const char> bytes_of(std::string_view text) { return {text.data(), text.size()}; }

// A scratch root with a writable incoming/, under /tmp, removed at the end.
class ScratchRoot {
 public:
  ScratchRoot() {
    char pattern[] = "/tmp/gridftpd-cksum-test-XXXXXX";
    const char* made = ::mkdtemp(pattern);
    REQUIRE(made != nullptr);
    root = made;
    fs::create_directories(root / "incoming");
  }
  ~ScratchRoot() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  ScratchRoot(const ScratchRoot&) = delete;
  ScratchRoot& operator=(const ScratchRoot&) = delete;

  UniqueFd open(const std::string& name, int flags = O_RDWR) const {
    UniqueFd fd(::open((root / "incoming" / name).c_str(), flags | O_CREAT | O_CLOEXEC, 0644));
    REQUIRE(fd.valid());
    return fd;
  }
  // False where the file system keeps no user xattrs: the tests below then have nothing to see.
  bool keeps_xattrs() const {
    const auto fd = open("probe");
    return ::fsetxattr(fd.get(), "user.gridftpd.probe", "1", 1, 0) == 0;
  }
  PosixStorage storage() const {
    auto opened = PosixStorage::open(root, {"/incoming"});
    REQUIRE(opened.has_value());
    opened->checksum_uploads({DigestAlgorithm::Adler32, DigestAlgorithm::Md5});
    return std::move(*opened);
  }

  fs::path root;
};

void write_all(int fd, std::string_view text) {
  REQUIRE(::pwrite(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size()));
}

}  // namespace

TEST_CASE("Stored checksums are named per algorithm in the user namespace", "[storage]") {
  CHECK(stored_checksum_attribute(DigestAlgorithm::Adler32) == "user.gridftpd.cksum.adler32");
  CHECK(stored_checksum_attribute(DigestAlgorithm::Sha512) == "user.gridftpd.cksum.sha512");
  CHECK(stored_checksum_attribute(DigestAlgorithm::Crc32c) == "user.gridftpd.cksum.crc32c");
}

TEST_CASE("A stored checksum is read back while the file keeps its size and mtime", "[storage]") {
  ScratchRoot scratch;
  if (!scratch.keeps_xattrs()) return;
  const auto fd = scratch.open("f");
  write_all(fd.get(), "Wikipedia");
  const auto version = file_version_of(fd.get());
  REQUIRE(version.has_value());
  CHECK(version->size_bytes == 9);
  REQUIRE(store_checksum(fd.get(), DigestAlgorithm::Adler32, *version, "11e60398").has_value());
  const auto stored = read_stored_checksum(fd.get(), DigestAlgorithm::Adler32);
  REQUIRE(stored.has_value());
  CHECK(stored->hex == "11e60398");
  CHECK(stored->version == *version);
  CHECK_FALSE(read_stored_checksum(fd.get(), DigestAlgorithm::Md5));

  SECTION("another mtime, same size: not answered") {
    const std::array<timespec, 2> times{
        timespec{0, UTIME_OMIT},
        timespec{version->mtime_seconds, static_cast<long>(version->mtime_nanoseconds) + 1}};
    REQUIRE(::futimens(fd.get(), times.data()) == 0);
    CHECK_FALSE(read_stored_checksum(fd.get(), DigestAlgorithm::Adler32));
  }
  SECTION("another size, mtime put back: not answered") {
    REQUIRE(::ftruncate(fd.get(), 8) == 0);
    const std::array<timespec, 2> times{
        timespec{0, UTIME_OMIT},
        timespec{version->mtime_seconds, static_cast<long>(version->mtime_nanoseconds)}};
    REQUIRE(::futimens(fd.get(), times.data()) == 0);
    CHECK_FALSE(read_stored_checksum(fd.get(), DigestAlgorithm::Adler32));
  }
  SECTION("cleared: not answered, and other attributes stay") {
    REQUIRE(::fsetxattr(fd.get(), "user.other", "1", 1, 0) == 0);
    clear_stored_checksums(fd.get());
    CHECK_FALSE(read_stored_checksum(fd.get(), DigestAlgorithm::Adler32));
    CHECK(::fgetxattr(fd.get(), "user.gridftpd.cksum.adler32", nullptr, 0) < 0);
    CHECK(::fgetxattr(fd.get(), "user.other", nullptr, 0) == 1);
  }
  SECTION("not in our format: not answered") {
    const std::string_view junk = "11e60398";
    REQUIRE(::fsetxattr(fd.get(), "user.gridftpd.cksum.adler32", junk.data(), junk.size(), 0) == 0);
    CHECK_FALSE(read_stored_checksum(fd.get(), DigestAlgorithm::Adler32));
  }
}

TEST_CASE("A whole upload stores its checksums with the file on commit", "[storage][upload]") {
  ScratchRoot scratch;
  if (!scratch.keeps_xattrs()) return;
  const auto storage = scratch.storage();
  auto upload = storage.begin_upload("/incoming/new.txt", UploadMode::Replace, 0);
  REQUIRE(upload.has_value());
  REQUIRE(upload->write_at(4, bytes_of("pedia")).has_value());  // out of order: no MD5
  REQUIRE(upload->write_at(0, bytes_of("Wiki")).has_value());
  REQUIRE(upload->commit().has_value());
  const auto fd = scratch.open("new.txt", O_RDONLY);
  const auto adler = read_stored_checksum(fd.get(), DigestAlgorithm::Adler32);
  REQUIRE(adler.has_value());
  CHECK(adler->hex == "11e60398");
  CHECK(adler->version.size_bytes == 9);
  CHECK_FALSE(read_stored_checksum(fd.get(), DigestAlgorithm::Md5));
}

TEST_CASE("An in-order upload stores its MD5 too", "[storage][upload]") {
  ScratchRoot scratch;
  if (!scratch.keeps_xattrs()) return;
  const auto storage = scratch.storage();
  auto upload = storage.begin_upload("/incoming/abc.txt", UploadMode::Replace, 0);
  REQUIRE(upload.has_value());
  REQUIRE(upload->write_at(0, bytes_of("a")).has_value());
  REQUIRE(upload->write_at(1, bytes_of("bc")).has_value());
  REQUIRE(upload->commit().has_value());
  const auto md5 =
      read_stored_checksum(scratch.open("abc.txt", O_RDONLY).get(), DigestAlgorithm::Md5);
  REQUIRE(md5.has_value());
  CHECK(md5->hex == "900150983cd24fb0d6963f7d28e17f72");
}

TEST_CASE("A block written in several slices is checksummed whole, in order", "[storage][upload]") {
  ScratchRoot scratch;
  if (!scratch.keeps_xattrs()) return;
  const auto storage = scratch.storage();
  auto upload = storage.begin_upload("/incoming/big.bin", UploadMode::Replace, 0);
  REQUIRE(upload.has_value());
  std::string block(std::size_t{1024} * 1024 + 333, '\0');  // 8 slices of 128 KiB and a tail
  for (std::size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>('a' + i % 26);
  REQUIRE(upload->write_at(0, block).has_value());
  REQUIRE(upload->commit().has_value());
  const auto fd = scratch.open("big.bin", O_RDONLY);
  const auto adler = read_stored_checksum(fd.get(), DigestAlgorithm::Adler32);
  const auto md5 = read_stored_checksum(fd.get(), DigestAlgorithm::Md5);
  REQUIRE(adler.has_value());
  REQUIRE(md5.has_value());
  // Python's zlib.adler32 and hashlib.md5 of the same bytes.
  CHECK(adler->hex == "5930f4cc");
  CHECK(md5->hex == "03f5e5c6c137def48efafece61bd89d5");
  CHECK(adler->version.size_bytes == block.size());
}

TEST_CASE("An append removes the stored checksums and stores none of its own",
          "[storage][upload]") {
  ScratchRoot scratch;
  if (!scratch.keeps_xattrs()) return;
  const auto storage = scratch.storage();
  auto first = storage.begin_upload("/incoming/log.txt", UploadMode::Replace, 0);
  REQUIRE(first.has_value());
  REQUIRE(first->write_at(0, bytes_of("hello")).has_value());
  REQUIRE(first->commit().has_value());
  REQUIRE(read_stored_checksum(scratch.open("log.txt", O_RDONLY).get(), DigestAlgorithm::Adler32));

  const auto mode = GENERATE(UploadMode::Append, UploadMode::InPlace);
  const std::uint64_t offset = mode == UploadMode::Append ? 0 : 5;
  auto append = storage.begin_upload("/incoming/log.txt", mode, offset);
  REQUIRE(append.has_value());
  // Gone as soon as the upload begins, before any byte of it is written.
  CHECK_FALSE(read_stored_checksum(append->fd(), DigestAlgorithm::Adler32));
  REQUIRE(append->write_at(0, bytes_of(" world")).has_value());
  REQUIRE(append->commit().has_value());
  const auto fd = scratch.open("log.txt", O_RDONLY);
  CHECK_FALSE(read_stored_checksum(fd.get(), DigestAlgorithm::Adler32));
  CHECK(::fgetxattr(fd.get(), "user.gridftpd.cksum.adler32", nullptr, 0) < 0);
}

TEST_CASE("A MODE E restart's upload stores nothing", "[storage][upload]") {
  ScratchRoot scratch;
  if (!scratch.keeps_xattrs()) return;
  const auto storage = scratch.storage();
  {
    auto failed = storage.begin_upload("/incoming/r.bin", UploadMode::Replace, 0, true);
    REQUIRE(failed.has_value());
    REQUIRE(failed->write_at(0, bytes_of("Wiki")).has_value());
    failed->abort();  // kept for a restart; its lock goes with it at the end of the block
  }
  auto restart = storage.begin_upload("/incoming/r.bin", UploadMode::ContinuePartial, 0, true);
  REQUIRE(restart.has_value());
  REQUIRE(restart->write_at(4, bytes_of("pedia")).has_value());
  REQUIRE(restart->commit().has_value());
  const auto fd = scratch.open("r.bin", O_RDONLY);
  CHECK_FALSE(read_stored_checksum(fd.get(), DigestAlgorithm::Adler32));
}
