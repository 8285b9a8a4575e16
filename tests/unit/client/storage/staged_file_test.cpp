#include "client/storage/staged_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <unistd.h>

using gridftp::client::StagedFile;

namespace {

// A fresh directory per test; removed at the end.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("gridcp-staged-" + std::to_string(::getpid()) + "-" +
            std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("StagedFile appears under its name only after commit", "[client][file]") {
  TempDir dir;
  const auto target = dir.path / "out.bin";
  auto staged = StagedFile::create(target.string());
  REQUIRE(staged);
  REQUIRE(staged->write("hello"));
  CHECK_FALSE(std::filesystem::exists(target));
  CHECK(std::filesystem::exists(staged->temporary_path()));
  REQUIRE(staged->commit());
  CHECK(read_all(target) == "hello");
  CHECK_FALSE(std::filesystem::exists(staged->temporary_path()));
}

TEST_CASE("StagedFile leaves nothing behind when not committed", "[client][file]") {
  TempDir dir;
  const auto target = dir.path / "out.bin";
  std::string temporary;
  {
    auto staged = StagedFile::create(target.string());
    REQUIRE(staged);
    REQUIRE(staged->write("partial"));
    temporary = staged->temporary_path();
  }
  CHECK_FALSE(std::filesystem::exists(target));
  CHECK_FALSE(std::filesystem::exists(temporary));
}

TEST_CASE("StagedFile does not touch an existing file on failure", "[client][file]") {
  TempDir dir;
  const auto target = dir.path / "keep.txt";
  std::ofstream(target) << "old";
  {
    auto staged = StagedFile::create(target.string());
    REQUIRE(staged);
    REQUIRE(staged->write("new but partial"));
  }
  CHECK(read_all(target) == "old");
}

TEST_CASE("StagedFile reports a missing directory", "[client][file]") {
  auto staged = StagedFile::create("/nonexistent-dir-for-gridcp/x");
  CHECK(staged.error() == std::errc::no_such_file_or_directory);
}
