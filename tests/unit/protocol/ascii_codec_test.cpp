#include "protocol/control/ascii_codec.hpp"

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include <catch2/catch.hpp>

using gridftp::protocol::control::encode_network_ascii;
using gridftp::protocol::control::NetworkAsciiDecoder;

namespace {

std::span<const char> bytes_of(std::string_view text) { return {text.data(), text.size()}; }

std::string encode(std::string_view local) {
  std::string out;
  encode_network_ascii(bytes_of(local), out);
  return out;
}

std::string decode_split(std::string_view wire, std::size_t cut) {
  NetworkAsciiDecoder decoder;
  std::string out;
  decoder.decode(bytes_of(wire.substr(0, cut)), out);
  decoder.decode(bytes_of(wire.substr(cut)), out);
  decoder.finish(out);
  return out;
}

}  // namespace

TEST_CASE("encode_network_ascii turns LF into CR LF", "[control][ascii]") {
  auto [local, wire] = GENERATE(table<std::string, std::string>({
      {"", ""},
      {"a", "a"},
      {"\n", "\r\n"},
      {"a\nb\n", "a\r\nb\r\n"},
      {"\n\n", "\r\n\r\n"},
      {"no newline", "no newline"},
      {"x\ry", "x\ry"},
  }));
  CHECK(encode(local) == wire);
}

TEST_CASE("encode_network_ascii appends to what is already in the output", "[control][ascii]") {
  std::string out = "head:";
  encode_network_ascii(bytes_of("a\n"), out);
  CHECK(out == "head:a\r\n");
}

TEST_CASE("NetworkAsciiDecoder turns CR LF into LF and keeps lone CR", "[control][ascii]") {
  auto [wire, local] = GENERATE(table<std::string, std::string>({
      {"", ""},
      {"a\r\nb\r\n", "a\nb\n"},
      {"\r\n", "\n"},
      {"\n", "\n"},
      {"a\rb", "a\rb"},
      {"\r\r\n", "\r\n"},
      {"\r\r", "\r\r"},
      {"\r", "\r"},
      {"x\r", "x\r"},
      {"\r\n\r\n", "\n\n"},
      {"\n\r", "\n\r"},
  }));
  const auto cut = static_cast<std::size_t>(GENERATE(range(0, 5)));
  INFO("cut " << cut);
  CHECK(decode_split(wire, std::min(cut, wire.size())) == local);
}

TEST_CASE("NetworkAsciiDecoder holds a CR at the end of a chunk", "[control][ascii]") {
  NetworkAsciiDecoder decoder;
  std::string out;
  decoder.decode(bytes_of("line\r"), out);
  CHECK(out == "line");
  decoder.decode(bytes_of("\nnext"), out);
  CHECK(out == "line\nnext");
  decoder.finish(out);
  CHECK(out == "line\nnext");
}

TEST_CASE("NetworkAsciiDecoder: a held CR not followed by LF is written before the next byte",
          "[control][ascii]") {
  NetworkAsciiDecoder decoder;
  std::string out;
  decoder.decode(bytes_of("a\r"), out);
  decoder.decode(bytes_of("b"), out);
  CHECK(out == "a\rb");
}

TEST_CASE("NetworkAsciiDecoder: finish flushes a trailing CR once", "[control][ascii]") {
  NetworkAsciiDecoder decoder;
  std::string out;
  decoder.decode(bytes_of("end\r"), out);
  decoder.finish(out);
  CHECK(out == "end\r");
  decoder.finish(out);
  CHECK(out == "end\r");
}

TEST_CASE("NetworkAsciiDecoder: empty chunks between CR and LF change nothing",
          "[control][ascii]") {
  NetworkAsciiDecoder decoder;
  std::string out;
  decoder.decode(bytes_of("a\r"), out);
  decoder.decode(bytes_of(""), out);
  decoder.decode(bytes_of("\n"), out);
  decoder.finish(out);
  CHECK(out == "a\n");
}

TEST_CASE("ASCII decode of encode gives the local text back, split at any byte",
          "[control][ascii]") {
  const std::string local = "first line\nsecond\r line\n\nlast";
  const std::string wire = encode(local);
  REQUIRE(wire == "first line\r\nsecond\r line\r\n\r\nlast");
  for (std::size_t cut = 0; cut <= wire.size(); ++cut) {
    INFO("cut " << cut);
    CHECK(decode_split(wire, cut) == local);
  }
}

TEST_CASE("NetworkAsciiDecoder gives the same result fed one byte at a time", "[control][ascii]") {
  const std::string wire = "a\r\nb\rc\r\r\n\r";
  NetworkAsciiDecoder decoder;
  std::string out;
  for (const char c : wire) decoder.decode(std::span<const char>(&c, 1), out);
  decoder.finish(out);
  CHECK(out == "a\nb\rc\r\n\r");
}
