#include "protocol/batch/batch_decoder.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/batch/batch_errors.hpp"
#include "protocol/batch/batch_records.hpp"
#include "protocol/core/crc32c.hpp"

using gridftp::protocol::batch::BatchDecoder;
using gridftp::protocol::batch::BatchEvent;
using gridftp::protocol::batch::Errc;
using Kind = gridftp::protocol::batch::BatchEvent::Kind;
namespace batch = gridftp::protocol::batch;

namespace {

// What a receiver makes of the events: one line each, file data joined per file.
struct Seen {
  std::vector<std::string> lines;
  std::error_code error;
};

Seen decode(std::string_view stream, std::size_t chunk) {
  BatchDecoder decoder;
  Seen seen;
  std::string data;
  for (std::size_t at = 0; at < stream.size(); at += chunk) {
    std::span<const char> input(stream.data() + at, std::min(chunk, stream.size() - at));
    BatchEvent event;
    do {
      auto used = decoder.next(input, event);
      if (!used) {
        seen.error = used.error();
        return seen;
      }
      input = input.subspan(*used);
      switch (event.kind) {
        case Kind::Directory:
          seen.lines.push_back("D " + event.path);
          break;
        case Kind::FileBegin:
          seen.lines.push_back("F " + event.path + " " + std::to_string(event.offset) + " " +
                               std::to_string(event.length));
          data.clear();
          break;
        case Kind::Data:
          data.append(event.payload.data(), event.payload.size());
          break;
        case Kind::FileEnd:
          seen.lines.push_back("= " + data + " " + std::to_string(event.crc));
          break;
        case Kind::Refer:
          seen.lines.push_back("R " + event.path + " " + std::to_string(event.length));
          break;
        case Kind::FileError:
          seen.lines.push_back("X " + event.path + " " + event.message);
          break;
        case Kind::End:
          seen.lines.push_back("E " + std::to_string(event.files) + " " +
                               std::to_string(event.bytes));
          break;
        case Kind::NeedMore:
          break;
      }
    } while (event.kind != Kind::NeedMore);
  }
  if (auto done = decoder.finish(); !done) seen.error = done.error();
  return seen;
}

std::uint32_t crc_of(std::string_view bytes) {
  gridftp::protocol::Crc32c crc;
  crc.update(std::span<const char>(bytes.data(), bytes.size()));
  return crc.value();
}

std::string sample_stream() {
  std::string out;
  batch::append_magic(out);
  batch::append_directory(out, "sub");
  batch::append_file_header(out, "sub/a.txt", 0, 5);
  out += "hello";
  batch::append_file_trailer(out, crc_of("hello"));
  batch::append_file_header(out, "empty", 0, 0);
  batch::append_file_trailer(out, crc_of(""));
  batch::append_refer(out, "big.dat", 1ULL << 40);
  batch::append_file_error(out, "secret", "Permission denied");
  batch::append_end(out, 2, 5);
  return out;
}

}  // namespace

TEST_CASE("batch stream bytes are as docs/WIRE.md 7.3 lays them out", "[batch]") {
  std::string out;
  batch::append_magic(out);
  batch::append_file_header(out, "a", 1, 2);
  out += "xy";
  batch::append_file_trailer(out, 0x01020304);
  batch::append_end(out, 1, 2);
  const std::string expected(
      "GFB1"
      "F\x00\x01"
      "a"
      "\x00\x00\x00\x00\x00\x00\x00\x01"
      "\x00\x00\x00\x00\x00\x00\x00\x02"
      "xy"
      "\x01\x02\x03\x04"
      "E\x00\x00\x00\x00\x00\x00\x00\x01"
      "\x00\x00\x00\x00\x00\x00\x00\x02",
      4 + 3 + 1 + 16 + 2 + 4 + 17);
  CHECK(out == expected);
}

TEST_CASE("a batch stream decodes the same whatever the read sizes", "[batch]") {
  const auto stream = sample_stream();
  const std::vector<std::string> expected{"D sub",
                                          "F sub/a.txt 0 5",
                                          "= hello " + std::to_string(crc_of("hello")),
                                          "F empty 0 0",
                                          "= " + std::string(" ") + std::to_string(crc_of("")),
                                          "R big.dat " + std::to_string(1ULL << 40),
                                          "X secret Permission denied",
                                          "E 2 5"};
  for (std::size_t chunk : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7},
                            std::size_t{64}, stream.size()}) {
    INFO("chunk " << chunk);
    const auto seen = decode(stream, chunk);
    CHECK_FALSE(seen.error);
    CHECK(seen.lines == expected);
  }
}

TEST_CASE("a batch stream cut anywhere before its end record is incomplete", "[batch]") {
  const auto stream = sample_stream();
  for (std::size_t cut = 0; cut < stream.size(); ++cut) {
    INFO("cut at " << cut);
    const auto seen = decode(stream.substr(0, cut), 5);
    CHECK(seen.error == Errc::Truncated);
  }
}

TEST_CASE("bad batch streams are refused with the reason", "[batch]") {
  SECTION("wrong magic") {
    CHECK(decode("GFB2", 4).error == Errc::BadMagic);
    CHECK(decode("RETR", 1).error == Errc::BadMagic);
  }
  SECTION("unknown record type") {
    CHECK(decode(std::string("GFB1Z"), 8).error == Errc::UnknownRecord);
  }
  SECTION("paths that would leave the batch directory") {
    const std::vector<std::string> paths{"/etc/passwd", "../x", "a/../../x",           "a//b", "a/",
                                         ".",           "",     std::string("a\0b", 3)};
    for (const auto& path : paths) {
      INFO("path " << path);
      std::string out;
      batch::append_magic(out);
      batch::append_file_header(out, path, 0, 0);
      CHECK(decode(out, 3).error == Errc::BadPath);
    }
  }
  SECTION("a path length beyond any valid path, refused before its bytes come") {
    std::string out("GFB1D\xFF\xFF", 7);
    CHECK(decode(out, 7).error == Errc::BadPath);
  }
  SECTION("lengths past 2^62") {
    std::string out;
    batch::append_magic(out);
    batch::append_file_header(out, "f", 0, (1ULL << 62) + 1);
    CHECK(decode(out, 9).error == Errc::LengthOutOfRange);
  }
  SECTION("an end record that miscounts") {
    std::string out;
    batch::append_magic(out);
    batch::append_file_header(out, "f", 0, 1);
    out += "z";
    batch::append_file_trailer(out, crc_of("z"));
    batch::append_end(out, 1, 2);
    CHECK(decode(out, 4).error == Errc::WrongCounts);
  }
  SECTION("bytes after the end record") {
    auto out = sample_stream();
    out += "D";
    CHECK(decode(out, 1000).error == Errc::DataAfterEnd);
  }
}

TEST_CASE("a file error's message is cut to what its length field holds", "[batch]") {
  std::string out;
  batch::append_magic(out);
  batch::append_file_error(out, "f", std::string(70000, 'm'));
  batch::append_end(out, 0, 0);
  const auto seen = decode(out, 4096);
  CHECK_FALSE(seen.error);
  REQUIRE(seen.lines.size() == 2);
  CHECK(seen.lines[0] == "X f " + std::string(65535, 'm'));
}
