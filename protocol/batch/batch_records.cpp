#include "protocol/batch/batch_records.hpp"

#include <algorithm>
#include <array>

#include "protocol/core/big_endian.hpp"

namespace gridftp::protocol::batch {
namespace {

void append_be(std::string& out, std::uint64_t value, std::size_t bytes) {
  std::array<char, 8> field{};
  store_big_endian(field.data(), value, bytes);
  out.append(field.data(), bytes);
}

void append_path(std::string& out, RecordType type, std::string_view path) {
  out.push_back(static_cast<char>(type));
  append_be(out, path.size(), 2);
  out.append(path);
}

}  // namespace

void append_magic(std::string& out) { out.append(kMagic); }

void append_directory(std::string& out, std::string_view path) {
  append_path(out, RecordType::Directory, path);
}

void append_file_header(std::string& out, std::string_view path, std::uint64_t offset,
                        std::uint64_t length) {
  append_path(out, RecordType::File, path);
  append_be(out, offset, 8);
  append_be(out, length, 8);
}

void append_file_trailer(std::string& out, std::uint32_t crc) { append_be(out, crc, 4); }

void append_refer(std::string& out, std::string_view path, std::uint64_t size) {
  append_path(out, RecordType::Refer, path);
  append_be(out, size, 8);
}

void append_file_error(std::string& out, std::string_view path, std::string_view message) {
  append_path(out, RecordType::FileError, path);
  const auto kept = message.substr(0, std::min<std::size_t>(message.size(), 0xFFFF));
  append_be(out, kept.size(), 2);
  out.append(kept);
}

void append_end(std::string& out, std::uint64_t files, std::uint64_t bytes) {
  out.push_back(static_cast<char>(RecordType::End));
  append_be(out, files, 8);
  append_be(out, bytes, 8);
}

}  // namespace gridftp::protocol::batch
