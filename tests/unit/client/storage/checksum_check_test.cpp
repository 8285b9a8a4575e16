#include "client/storage/checksum_check.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <unistd.h>

#include "client/client_errors.hpp"

using gridftp::client::ClientErrc;
using gridftp::client::PartialRange;
using gridftp::security::DigestAlgorithm;
namespace client = gridftp::client;

namespace {

std::string write_temp_file(const std::string& contents) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("gridcp-cksm-" + std::to_string(::getpid()) + ".bin");
  std::ofstream(path, std::ios::binary) << contents;
  return path.string();
}

}  // namespace

TEST_CASE("local_file_checksum matches the digests Globus prints", "[client][checksum]") {
  // Values from security/digest.hpp (observed from globus-gridftp-server 13.24).
  const auto path = write_temp_file("xxWikipediayy");
  auto adler = client::local_file_checksum(path, DigestAlgorithm::Adler32, PartialRange{2, 9});
  REQUIRE(adler);
  CHECK(*adler == "11e60398");
  auto empty = client::local_file_checksum(path, DigestAlgorithm::Md5, PartialRange{100, 5});
  REQUIRE(empty);
  CHECK(*empty == "d41d8cd98f00b204e9800998ecf8427e");
  std::filesystem::remove(path);

  const auto abc = write_temp_file("abc");
  auto sha = client::local_file_checksum(abc, DigestAlgorithm::Sha256, std::nullopt);
  REQUIRE(sha);
  CHECK(*sha == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::filesystem::remove(abc);
}

TEST_CASE("local_file_checksum reports a missing file", "[client][checksum]") {
  auto digest =
      client::local_file_checksum("/nonexistent/gridcp", DigestAlgorithm::Md5, std::nullopt);
  REQUIRE_FALSE(digest);
  CHECK(digest.error() == std::errc::no_such_file_or_directory);
}

TEST_CASE("compare_checksums ignores case and catches differences", "[client][checksum]") {
  CHECK(client::compare_checksums("11e60398", "11E60398"));
  CHECK(client::compare_checksums("11e60398", "11e60399").error() ==
        make_error_code(ClientErrc::ChecksumMismatch));
  CHECK(client::compare_checksums("11e60398", "11e6039").error() ==
        make_error_code(ClientErrc::ChecksumMismatch));
}
