// Error codes of the MODE E codec and EOD accounting (GFD.20 "Extended Block Mode"). Every code is
// caused by the peer's data-channel bytes; the category maps each onto a gridftp::Condition so
// reply_for_error() needs no MODE E cases.
#pragma once

#include <system_error>

namespace gridftp::protocol::mode_e {

enum class Errc {
  UnknownDescriptor = 1,  // a descriptor bit GFD.20 does not define (0x01, 0x02)
  SuspectData,            // ERR (0x20): the sender itself says the block is bad
  RestartBlock,           // RESTART (0x10): GFD.20 forbids restart-marker blocks in MODE E
  OffsetOutOfRange,       // offset + count overflows or ends beyond 2^63 (no off_t can hold it)
  DataAfterClose,         // bytes after a CLOSE header
  ConflictingEofCount,    // a second EOF announced a different EOD count
  TooManyEods,            // more EODs than the EOF count announced (a lying EOF)
  DataAfterLastEod,       // data although every announced connection already ended (EOF 0 too)
  BadBlockSize,           // a planner was asked for zero-byte blocks
  TooManyConnections,     // a sender opened more data connections than the receiver accepts
  IncompleteTransfer,     // a connection ended before its EOD, or bytes are missing
};

const std::error_category& mode_e_category();
std::error_code make_error_code(Errc e);

}  // namespace gridftp::protocol::mode_e

template <>
struct std::is_error_code_enum<gridftp::protocol::mode_e::Errc> : std::true_type {};
