// Error codes of the batch framing (docs/WIRE.md §7). Every code is caused by the peer's
// data-channel bytes or a bad restart marker; the category maps each onto a gridftp::Condition so
// reply_for_error() needs no batch cases.
#pragma once

#include <system_error>

namespace gridftp::protocol::batch {

enum class Errc {
  BadMagic = 1,      // the stream does not start with the batch magic and version
  UnknownRecord,     // a record type this version does not define
  BadPath,           // empty, absolute, "."/".." or empty components, NUL, or too long
  LengthOutOfRange,  // a file's offset + length overflows or passes 2^62
  ChecksumMismatch,  // the file's CRC-32C differs from the sender's
  DataAfterEnd,      // bytes after the end record
  WrongCounts,       // the end record's file or byte count disagrees with what came
  Truncated,         // the stream ended before the end record
};

const std::error_category& batch_category();
std::error_code make_error_code(Errc e);

}  // namespace gridftp::protocol::batch

template <>
struct std::is_error_code_enum<gridftp::protocol::batch::Errc> : std::true_type {};
