#include "protocol/core/json.hpp"

#include <cmath>
#include <cstdio>

namespace gridftp {

std::string json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20 || u == 0x7f) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", u);
          out += escaped;
        } else {
          out += c;  // bytes >= 0x80 pass through; file names are expected to be UTF-8
        }
    }
  }
  return out;
}

void JsonObjectWriter::key(std::string_view name) {
  if (body_.size() > 1) body_ += ',';
  body_ += '"';
  body_ += json_escape(name);
  body_ += "\":";
}

JsonObjectWriter& JsonObjectWriter::add(std::string_view name, std::string_view value) {
  key(name);
  body_ += '"';
  body_ += json_escape(value);
  body_ += '"';
  return *this;
}

JsonObjectWriter& JsonObjectWriter::add(std::string_view name, std::uint64_t value) {
  key(name);
  body_ += std::to_string(value);
  return *this;
}

JsonObjectWriter& JsonObjectWriter::add(std::string_view name, double value) {
  key(name);
  if (!std::isfinite(value)) {
    body_ += "null";
    return *this;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", value);
  body_ += text;
  return *this;
}

}  // namespace gridftp
