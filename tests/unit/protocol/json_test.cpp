#include "protocol/core/json.hpp"

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

using gridftp::json_escape;
using gridftp::JsonObjectWriter;

TEST_CASE("json_escape passes plain text through", "[json]") {
  CHECK(json_escape("") == "");
  CHECK(json_escape("a") == "a");
  CHECK(json_escape("/srv/file name.txt") == "/srv/file name.txt");
  CHECK(json_escape("'single' quotes/slash") == "'single' quotes/slash");
}

TEST_CASE("json_escape escapes quotes and backslash", "[json]") {
  CHECK(json_escape("\"") == "\\\"");
  CHECK(json_escape("\\") == "\\\\");
  CHECK(json_escape("a\"b\\c") == "a\\\"b\\\\c");
  CHECK(json_escape("\\\"") == "\\\\\\\"");
}

TEST_CASE("json_escape uses short escapes for newline, return and tab", "[json]") {
  CHECK(json_escape("\n") == "\\n");
  CHECK(json_escape("\r") == "\\r");
  CHECK(json_escape("\t") == "\\t");
  CHECK(json_escape("a\r\nb") == "a\\r\\nb");
}

TEST_CASE("json_escape writes every other control character as \\u00XX", "[json]") {
  for (int value = 0; value < 0x20; ++value) {
    if (value == '\n' || value == '\r' || value == '\t') continue;
    const std::string input(1, static_cast<char>(value));
    char expected[8];
    std::snprintf(expected, sizeof expected, "\\u%04x", value);
    INFO("byte " << value);
    CHECK(json_escape(input) == expected);
  }
  CHECK(json_escape(std::string(1, '\0')) == "\\u0000");
  CHECK(json_escape("\x1f") == "\\u001f");
  CHECK(json_escape("\x7f") == "\\u007f");
  CHECK(json_escape("\b\f") == "\\u0008\\u000c");
}

TEST_CASE("json_escape leaves no raw control byte in its output", "[json]") {
  std::string all;
  for (int value = 0; value < 256; ++value) all.push_back(static_cast<char>(value));
  const auto escaped = json_escape(all);
  for (const char c : escaped) {
    const auto u = static_cast<unsigned char>(c);
    CHECK((u >= 0x20 && u != 0x7f));
  }
}

TEST_CASE("json_escape passes UTF-8 bytes through unchanged", "[json]") {
  const std::string utf8 = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x93\x81 \xe6\x97\xa5\xe6\x9c\xac";
  CHECK(json_escape(utf8) == utf8);
}

TEST_CASE("JsonObjectWriter writes an empty object", "[json]") {
  CHECK(JsonObjectWriter().str() == "{}");
}

TEST_CASE("JsonObjectWriter writes pairs in order with escaped keys and values", "[json]") {
  JsonObjectWriter writer;
  writer.add("file", "/a \"b\"\n")
      .add("bytes", std::uint64_t{1234})
      .add("k\\ey", std::string_view("v"));
  CHECK(writer.str() == R"({"file":"/a \"b\"\n","bytes":1234,"k\\ey":"v"})");
}

TEST_CASE("JsonObjectWriter writes unsigned boundaries exactly", "[json]") {
  JsonObjectWriter writer;
  writer.add("zero", std::uint64_t{0}).add("max", std::numeric_limits<std::uint64_t>::max());
  CHECK(writer.str() == R"({"zero":0,"max":18446744073709551615})");
}

TEST_CASE("JsonObjectWriter writes doubles and null for non-finite values", "[json]") {
  JsonObjectWriter writer;
  writer.add("rate", 1.5)
      .add("zero", 0.0)
      .add("nan", std::numeric_limits<double>::quiet_NaN())
      .add("inf", std::numeric_limits<double>::infinity())
      .add("ninf", -std::numeric_limits<double>::infinity());
  CHECK(writer.str() == R"({"rate":1.5,"zero":0,"nan":null,"inf":null,"ninf":null})");
}

TEST_CASE("JsonObjectWriter str() can be called repeatedly and more pairs added after", "[json]") {
  JsonObjectWriter writer;
  writer.add("a", "1");
  CHECK(writer.str() == R"({"a":"1"})");
  CHECK(writer.str() == R"({"a":"1"})");
  writer.add("b", "2");
  CHECK(writer.str() == R"({"a":"1","b":"2"})");
}

TEST_CASE("JsonObjectWriter keeps empty keys and values", "[json]") {
  JsonObjectWriter writer;
  writer.add("", "");
  CHECK(writer.str() == R"({"":""})");
}
