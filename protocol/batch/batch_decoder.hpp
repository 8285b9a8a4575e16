// Incremental decoder of one batch stream (batch_records.hpp; docs/WIRE.md §7.3). It turns bytes
// into events without copying file data and checks everything the stream itself can prove: the
// magic, record types, paths, lengths and the end record's counts. The file checksums it only
// reports: the receiver computes them over what it wrote. No I/O.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "protocol/core/result.hpp"

namespace gridftp::protocol::batch {

struct BatchEvent {
  enum class Kind { NeedMore, Directory, FileBegin, Data, FileEnd, Refer, FileError, End };
  Kind kind = Kind::NeedMore;
  std::string path;               // Directory, FileBegin, Refer, FileError
  std::uint64_t offset = 0;       // FileBegin: where the bytes start in the file
  std::uint64_t length = 0;       // FileBegin: bytes that follow; Refer: the file's size
  std::span<const char> payload;  // Data: a view into the caller's input
  std::uint32_t crc = 0;          // FileEnd: CRC-32C of the whole file, [0, offset + length)
  std::string message;            // FileError
  std::uint64_t files = 0;        // End: 'F' records in the batch
  std::uint64_t bytes = 0;        // End: their data bytes
};

class BatchDecoder {
 public:
  // Consumes bytes from the front of `input` and reports at most one event; returns how many
  // bytes it consumed. NeedMore only once all of `input` is consumed, so callers loop:
  //   do { n = next(in, ev); in = in.subspan(*n); handle(ev); } while (ev.kind != NeedMore);
  // Errors (sticky): Errc::BadMagic, UnknownRecord, BadPath, LengthOutOfRange, WrongCounts,
  // DataAfterEnd (batch_errors.hpp).
  Result<std::size_t> next(std::span<const char> input, BatchEvent& event);

  // At the end of the stream. Errors: Errc::Truncated unless the end record came; an earlier
  // error.
  Result<void> finish() const;

  bool is_finished() const { return ended_; }
  // Data bytes of the current 'F' record still to come (0 between records).
  std::uint64_t payload_remaining() const { return payload_remaining_; }

 private:
  // Header bytes the record being read needs in all, as far as the bytes so far tell; 0 when
  // the type is unknown.
  std::size_t header_needed() const;
  Unexpected fail(std::error_code error);
  Result<void> complete_header(BatchEvent& event);

  std::string header_;  // the current record's header (or the file trailer) so far
  std::size_t magic_have_ = 0;
  std::uint64_t payload_remaining_ = 0;
  bool in_file_ = false;  // between an 'F' header and its trailer
  bool ended_ = false;
  std::uint64_t files_ = 0;
  std::uint64_t bytes_ = 0;
  std::error_code failed_;
};

}  // namespace gridftp::protocol::batch
