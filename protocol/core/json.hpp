// Minimal JSON writing for log lines: string escaping (RFC 8259 §7) and an object builder.
// Not a parser.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gridftp {

std::string json_escape(std::string_view text);

// Appends "key":value pairs in order; str() closes the object.
class JsonObjectWriter {
 public:
  JsonObjectWriter& add(std::string_view key, std::string_view value);
  JsonObjectWriter& add(std::string_view key, const char* value) {
    return add(key, std::string_view(value));
  }
  JsonObjectWriter& add(std::string_view key, std::uint64_t value);
  JsonObjectWriter& add(std::string_view key, double value);
  std::string str() const { return body_ + "}"; }

 private:
  void key(std::string_view name);
  std::string body_ = "{";
};

}  // namespace gridftp
