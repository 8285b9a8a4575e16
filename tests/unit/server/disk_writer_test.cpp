#include "server/data/disk_writer.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <unistd.h>

#include "protocol/core/errors.hpp"
#include "server/data/stall_watch.hpp"
#include "server/storage/unique_fd.hpp"

namespace gridftp::server {
namespace {

namespace asio = transport::asio;
namespace fs = std::filesystem;
using transport::tcp;

struct Scratch {
  Scratch() {
    char name[] = "/tmp/disk-writer-test-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~Scratch() { fs::remove_all(path); }
  // An in-place upload into a new file `name`.
  storage::Upload upload(const std::string& name) const {
    storage::UniqueFd dir(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    storage::UniqueFd file(
        ::openat(dir.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    return storage::Upload(std::move(file), std::move(dir), std::string(), name, 0);
  }
  std::string read(const std::string& name) const {
    std::ifstream file(path / name, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), {}};
  }
  fs::path path;
};

// Runs writer.write_at(upload, offset, text, watch) to completion on `io`.
Result<void> write(asio::io_context& io, DiskWriter& writer, storage::Upload& upload,
                   std::uint64_t offset, const std::string& text,
                   const transport::Deadline& watch) {
  Result<void> outcome = make_error(error_code_for(Condition::LocalError));
  asio::co_spawn(
      io,
      [&]() -> transport::awaitable<void> {
        outcome = co_await writer.write_at(upload, offset, {text.data(), text.size()}, watch);
      },
      asio::detached);
  io.restart();
  io.run();
  return outcome;
}

TEST_CASE("A DiskWriter puts the bytes where their offsets say", "[data]") {
  Scratch scratch;
  auto upload = scratch.upload("file.bin");
  asio::io_context io;
  transport::Deadline idle(io.get_executor());  // never started: never expires
  DiskWriter writer;
  CHECK(write(io, writer, upload, 4, "efgh", idle));
  CHECK(write(io, writer, upload, 0, "abcd", idle));
  CHECK(upload.commit());
  CHECK(scratch.read("file.bin") == "abcdefgh");
}

TEST_CASE("A write that the stall watch outlasted fails the transfer as a stalled disk", "[data]") {
  Scratch scratch;
  auto upload = scratch.upload("file.bin");
  asio::io_context io;
  tcp::socket socket(io);
  socket.open(tcp::v4());
  // A zero timeout fires at once: as if the disk had held the write past the data timeout.
  const auto watch = close_on_stall(io.get_executor(), socket, std::chrono::seconds(0));
  io.run();
  REQUIRE(watch->expired());
  DiskWriter writer;
  const auto outcome = write(io, writer, upload, 0, "late", *watch);
  REQUIRE_FALSE(outcome);
  CHECK(outcome.error() == Condition::DiskStalled);
  // A write error is the file's: errno, whatever the watch says.
  storage::Upload closed(storage::UniqueFd(-1), storage::UniqueFd(-1), std::string(), "x", 0);
  const auto failed = write(io, writer, closed, 0, "x", *watch);
  REQUIRE_FALSE(failed);
  CHECK(failed.error() == std::errc::bad_file_descriptor);
}

}  // namespace
}  // namespace gridftp::server
