// The batch stream (docs/WIRE.md §7.3): many files in one stream-mode data transfer between
// gridftpd and gridcp. After the 4-byte magic "GFB1" come records, each a type byte and
// big-endian fields:
//   'D' u16 n, path[n]                                  a directory (made even when empty)
//   'F' u16 n, path[n], u64 offset, u64 length,          a file's bytes [offset, offset+length),
//       data[length], u32 crc                            crc: CRC-32C of bytes [0, offset+length)
//   'R' u16 n, path[n], u64 size                         a file left to an ordinary transfer
//   'X' u16 n, path[n], u16 m, message[m]                a file the sender could not read
//   'E' u64 files, u64 bytes                             the end: 'F' records and data bytes sent
// Nothing may follow 'E'; a stream that ends before it is incomplete.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gridftp::protocol::batch {

inline constexpr std::string_view kMagic = "GFB1";
// No file offset or length may pass 2^62: far beyond any file, and safe to add.
inline constexpr std::uint64_t kMaxFileBytes = std::uint64_t{1} << 62;

enum class RecordType : char {
  Directory = 'D',
  File = 'F',
  Refer = 'R',
  FileError = 'X',
  End = 'E',
};

// Appenders for a sender; paths must satisfy is_valid_batch_path(). The 'F' record's data goes
// between append_file_header() and append_file_trailer(), appended by the caller.
void append_magic(std::string& out);
void append_directory(std::string& out, std::string_view path);
void append_file_header(std::string& out, std::string_view path, std::uint64_t offset,
                        std::uint64_t length);
void append_file_trailer(std::string& out, std::uint32_t crc);
void append_refer(std::string& out, std::string_view path, std::uint64_t size);
// `message` is cut to 65535 bytes.
void append_file_error(std::string& out, std::string_view path, std::string_view message);
void append_end(std::string& out, std::uint64_t files, std::uint64_t bytes);

}  // namespace gridftp::protocol::batch
