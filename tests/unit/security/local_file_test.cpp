#include "security/local_file.hpp"

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"
#include "security/security_errors.hpp"
#include "tests/unit/security/temp_dir.hpp"
#include "tests/unit/security/test_pki.hpp"

namespace gridftp::security {
namespace {

using std::filesystem::perms;
using testing::TempDir;
using testing::write_file;

TEST_CASE("read_local_file returns the whole file", "[security][local_file]") {
  const TempDir dir;
  write_file(dir.path() / "a", "hello\n", perms::owner_read | perms::others_read);
  const auto text = read_local_file(dir.path() / "a", FileAccess::Public, 100);
  REQUIRE(text.has_value());
  CHECK(*text == "hello\n");
}

TEST_CASE("read_local_file keeps private files private", "[security][local_file]") {
  const TempDir dir;
  const auto path = dir.path() / "key";
  for (const perms extra :
       {perms::group_read, perms::group_write, perms::others_read, perms::others_write}) {
    write_file(path, "secret", perms::owner_read | extra);
    CHECK(read_local_file(path, FileAccess::OwnerOnly, 100).error() == Errc::FileTooPermissive);
    CHECK(read_local_file(path, FileAccess::Public, 100).has_value());
  }
  write_file(path, "secret", perms::owner_read);
  CHECK(read_local_file(path, FileAccess::OwnerOnly, 100).has_value());
}

TEST_CASE("read_local_file rejects missing, odd and oversized files", "[security][local_file]") {
  const TempDir dir;
  CHECK(read_local_file(dir.path() / "missing", FileAccess::Public, 100).error() ==
        Condition::NotFound);
  CHECK(read_local_file(dir.path(), FileAccess::Public, 100).error() == Errc::NotARegularFile);
  write_file(dir.path() / "big", std::string(101, 'x'));
  CHECK(read_local_file(dir.path() / "big", FileAccess::Public, 100).error() == Errc::FileTooLarge);
  CHECK(read_local_file(dir.path() / "big", FileAccess::Public, 101).has_value());
}

}  // namespace
}  // namespace gridftp::security
