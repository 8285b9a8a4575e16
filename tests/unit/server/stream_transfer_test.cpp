// Stream-mode data movement (server/data/stream_transfer) driven through in-memory streams: no
// socket, so a peer that breaks mid-file or trickles bytes is staged exactly.
#include "server/data/stream_transfer.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <unistd.h>

#include "protocol/core/errors.hpp"
#include "server/storage/unique_fd.hpp"
#include "transport/error_conversion.hpp"
#include "transport/memory_stream.hpp"

namespace gridftp::server {
namespace {

namespace asio = transport::asio;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct Scratch {
  Scratch() {
    char name[] = "/tmp/stream-transfer-test-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~Scratch() { fs::remove_all(path); }
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
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
  }
  fs::path path;
};

std::string pattern(std::size_t size) {
  std::string text(size, '\0');
  for (std::size_t i = 0; i < size; ++i) text[i] = static_cast<char>('a' + i % 26);
  return text;
}

// The sending peer: `text` in pieces of `piece` bytes, then the end of the stream.
transport::awaitable<void> send_in_pieces(transport::ByteStream& peer, std::string text,
                                          std::size_t piece) {
  std::error_code ec;
  for (std::size_t at = 0; at < text.size() && !ec; at += piece) {
    co_await peer.write_all(std::string_view(text).substr(at, piece), ec);
  }
  co_await peer.finish(ec);
}

transport::awaitable<std::string> read_all(transport::ByteStream& peer) {
  std::string got;
  std::string buffer(64 * 1024, '\0');
  for (;;) {
    std::error_code ec;
    const auto n = co_await peer.read_some(buffer, ec);
    if (ec) co_return got;
    got.append(buffer.data(), n);
  }
}

}  // namespace

TEST_CASE("receive_into stores every byte a trickling sender sends, up to its end", "[data]") {
  Scratch scratch;
  auto upload = scratch.upload("in.bin");
  asio::io_context io;
  transport::MemoryStreamOptions trickle;
  trickle.max_read_bytes = 1000;  // reads far smaller than the receiver's buffers
  auto [sender, receiver] = transport::make_memory_stream_pair(io.get_executor(), {}, trickle);
  const auto text = pattern(3 * 1024 * 1024 + 17);  // crosses both of its 1 MiB buffers
  TransferProgress progress;
  Result<void> outcome = make_error(error_code_for(Condition::LocalError));
  asio::co_spawn(io, send_in_pieces(*sender, text, 70000), asio::detached);
  asio::co_spawn(
      io,
      [&, &receiver = receiver]() -> transport::awaitable<void> {
        outcome = co_await receive_into(*receiver, upload, false, 30s, progress);
      },
      asio::detached);
  io.run();
  REQUIRE(outcome.has_value());
  CHECK(progress.bytes == text.size());
  CHECK(scratch.read("in.bin") == text);
}

TEST_CASE("receive_into fails a connection that breaks mid-file and keeps what arrived", "[data]") {
  Scratch scratch;
  auto upload = scratch.upload("cut.bin");
  asio::io_context io;
  transport::MemoryStreamOptions breaks;
  breaks.fail_after_bytes = 1500000;
  auto [sender, receiver] = transport::make_memory_stream_pair(io.get_executor(), {}, breaks);
  const auto text = pattern(4 * 1024 * 1024);
  TransferProgress progress;
  Result<void> outcome;
  asio::co_spawn(io, send_in_pieces(*sender, text, 1 << 20), asio::detached);
  asio::co_spawn(
      io,
      [&, &receiver = receiver]() -> transport::awaitable<void> {
        outcome = co_await receive_into(*receiver, upload, false, 30s, progress);
      },
      asio::detached);
  io.run();
  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error() == Condition::TransferAborted);
  // Everything read before the break is on disk (a restart goes on from there), nothing more.
  CHECK(scratch.read("cut.bin") == text.substr(0, 1500000));
  CHECK(progress.bytes == 1500000);
}

TEST_CASE("receive_into counts a buffer once it is on disk, while the sender is still silent",
          "[data]") {
  // A stream-mode upload's 111 markers report progress.bytes: a sender that stops after one
  // buffer (a client held, a server killed soon after) must find it counted, or its restart
  // begins again from 0.
  Scratch scratch;
  auto upload = scratch.upload("held.bin");
  asio::io_context io;
  auto [sender, receiver] = transport::make_memory_stream_pair(io.get_executor());
  const auto text = pattern(1 << 20);  // exactly one of the receiver's buffers
  TransferProgress progress;
  Result<void> outcome = make_error(error_code_for(Condition::LocalError));
  bool ended = false;
  asio::co_spawn(
      io,
      [&, &sender = sender]() -> transport::awaitable<void> {
        std::error_code ec;
        co_await sender->write_all(text, ec);  // and then nothing, the stream left open
      },
      asio::detached);
  asio::co_spawn(
      io,
      [&, &receiver = receiver]() -> transport::awaitable<void> {
        outcome = co_await receive_into(*receiver, upload, false, 30s, progress);
        ended = true;
      },
      asio::detached);
  // The write ends on the writer's thread; poll, bounded by a hang guard, not a time asserted.
  for (int i = 0; i < 600 && progress.bytes < text.size(); ++i) io.run_one_for(50ms);
  CHECK(progress.bytes == text.size());
  CHECK_FALSE(ended);
  asio::co_spawn(
      io,
      [&, &sender = sender]() -> transport::awaitable<void> {
        std::error_code ec;
        co_await sender->finish(ec);
      },
      asio::detached);
  io.run();
  REQUIRE(outcome.has_value());
  CHECK(progress.bytes == text.size());
  CHECK(scratch.read("held.bin") == text);
}

TEST_CASE("receive_into turns CR LF into LF in ASCII mode, across read boundaries", "[data]") {
  Scratch scratch;
  auto upload = scratch.upload("text.txt");
  asio::io_context io;
  transport::MemoryStreamOptions split;
  split.max_read_bytes = 1;  // every CR arrives apart from its LF
  auto [sender, receiver] = transport::make_memory_stream_pair(io.get_executor(), {}, split);
  TransferProgress progress;
  Result<void> outcome = make_error(error_code_for(Condition::LocalError));
  asio::co_spawn(io, send_in_pieces(*sender, "one\r\ntwo\r\n", 3), asio::detached);
  asio::co_spawn(
      io,
      [&, &receiver = receiver]() -> transport::awaitable<void> {
        outcome = co_await receive_into(*receiver, upload, true, 30s, progress);
      },
      asio::detached);
  io.run();
  REQUIRE(outcome.has_value());
  CHECK(scratch.read("text.txt") == "one\ntwo\n");
}

TEST_CASE("send_file reads a window of a file to a stream that cannot take sendfile", "[data]") {
  Scratch scratch;
  const auto text = pattern(2 * 1024 * 1024 + 5);
  scratch.write("src.bin", text);
  const storage::UniqueFd file(::open((scratch.path / "src.bin").c_str(), O_RDONLY | O_CLOEXEC));
  asio::io_context io;
  auto [sender, receiver] = transport::make_memory_stream_pair(io.get_executor());
  TransferProgress progress;
  Result<void> outcome = make_error(error_code_for(Condition::LocalError));
  std::string got;
  asio::co_spawn(
      io,
      [&, &sender = sender]() -> transport::awaitable<void> {
        outcome = co_await send_file(*sender, file.get(), 100, 1500000, false,
                                     transport::SendfileUse::OtherHosts, 30s, progress);
        std::error_code ec;
        co_await sender->finish(ec);
      },
      asio::detached);
  asio::co_spawn(
      io,
      [&, &receiver = receiver]() -> transport::awaitable<void> {
        got = co_await read_all(*receiver);
      },
      asio::detached);
  io.run();
  REQUIRE(outcome.has_value());
  CHECK(got == text.substr(100, 1500000));
  CHECK(progress.bytes == 1500000);
}

TEST_CASE("send_text fails when the peer goes away, as a broken data connection", "[data]") {
  asio::io_context io;
  auto [sender, receiver] = transport::make_memory_stream_pair(io.get_executor());
  receiver->close();
  TransferProgress progress;
  Result<void> outcome;
  asio::co_spawn(
      io,
      [&, &sender = sender]() -> transport::awaitable<void> {
        outcome = co_await send_text(*sender, "listing\r\n", 30s, progress);
      },
      asio::detached);
  io.run();
  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error() == Condition::TransferAborted);
  CHECK(progress.bytes == 0);
}

}  // namespace gridftp::server
