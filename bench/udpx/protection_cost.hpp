// The CPU that UDPX's per-packet AES-GCM costs on its own, for the floor beside
// bench/udpx_cpu_bench.py's figures (bench/README.md, "udpx_cpu_bench.py"). Every DATA byte is
// authenticated at both ends whatever PROT says (docs/UDPX.md §4.3), so a UDPX transfer can
// cost no less than the kernel's moving of its bytes plus this.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>

#include "security/udpx/packet_protection.hpp"

namespace gridftp::bench {

struct ProtectionCost {
  double seal_seconds = 0;  // this thread's CPU time for sealing every packet
  double open_seconds = 0;  // and for opening them again
};

// Seals and opens `file_bytes` of file data cut into packets of `body_bytes` each, laid out as
// DATA is on the wire (32-byte clear front, body, tag), through the engine's PacketProtection.
// Returns nothing when a packet fails to open, which would make the figure meaningless.
std::optional<ProtectionCost> measure_protection_cost(std::uint64_t file_bytes,
                                                      std::size_t body_bytes,
                                                      security::udpx::BodyProtection protection);

}  // namespace gridftp::bench
