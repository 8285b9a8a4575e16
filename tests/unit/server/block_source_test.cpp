#include "server/data/block_source.hpp"

#include <array>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <unistd.h>

namespace gridftp::server {
namespace {

// An unnamed regular file holding `content`; closed when the test ends.
struct TempFile {
  explicit TempFile(const std::string& content) : file(std::tmpfile(), &std::fclose) {
    REQUIRE(file != nullptr);
    REQUIRE(std::fwrite(content.data(), 1, content.size(), file.get()) == content.size());
    REQUIRE(std::fflush(file.get()) == 0);
  }
  int fd() const { return ::fileno(file.get()); }
  std::unique_ptr<std::FILE, decltype(&std::fclose)> file;
};

std::string read(const BlockSource& source, std::uint64_t wire_offset, std::size_t count) {
  std::string out(count, '\0');
  const auto got = source.read_at(wire_offset, out);
  REQUIRE(got);
  out.resize(*got);
  return out;
}

TEST_CASE("A text BlockSource reads its bytes by wire offset", "[mode_e]") {
  const auto source = BlockSource::text(std::make_shared<const std::string>("0123456789"));
  CHECK(read(source, 0, 4) == "0123");
  CHECK(read(source, 8, 4) == "89");  // short only at the end
  CHECK(read(source, 10, 4).empty());
  CHECK(read(source, 11, 4).empty());
  CHECK(source.splice_descriptor() == -1);
}

TEST_CASE("A file BlockSource reads through its window's base", "[mode_e]") {
  const TempFile file("abcdefghij");
  // ERET P 3 ...: wire offset 0 is file offset 3.
  const auto source = BlockSource::file(file.fd(), 3);
  CHECK(read(source, 0, 4) == "defg");
  CHECK(read(source, 5, 4) == "ij");
  CHECK(read(source, 7, 4).empty());
  CHECK(source.file_offset(2) == 5);
}

TEST_CASE("A regular file may be spliced, a device may not", "[mode_e]") {
  const TempFile file("x");
  CHECK(BlockSource::file(file.fd(), 0).splice_descriptor() == file.fd());
  const int zero = ::open("/dev/zero", O_RDONLY | O_CLOEXEC);
  REQUIRE(zero >= 0);
  const auto device = BlockSource::file(zero, 0);
  CHECK(device.splice_descriptor() == -1);
  CHECK(read(device, 0, 3) == std::string(3, '\0'));
  ::close(zero);
}

TEST_CASE("A BlockSource reports the read's errno", "[mode_e]") {
  const auto source = BlockSource::file(-1, 0);
  std::array<char, 4> out{};
  const auto got = source.read_at(0, out);
  REQUIRE_FALSE(got);
  CHECK(got.error() == std::error_code(EBADF, std::generic_category()));
}

}  // namespace
}  // namespace gridftp::server
