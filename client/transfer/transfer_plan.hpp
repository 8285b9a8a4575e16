// What gridcp says to the servers for one file, as globus-url-copy says it (docs/WIRE.md §1.5,
// §2.6): RETR or ERET, STOR or ESTO, ALLO, OPTS RETR, CKSM, and how -off/-len resolve against a
// size. Pure: strings and numbers only; sending them is transfer.cpp's job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/core/result.hpp"
#include "protocol/mode_e/stripe_layout.hpp"
#include "security/digest.hpp"

namespace gridftp::client {

// guc's default -bs: the block size of the MODE E blocks a client sends (docs/WIRE.md §2.4).
inline constexpr std::uint64_t kDefaultBlockSizeBytes = std::uint64_t{1024} * 1024;

// The bytes [offset, offset + length) of the source file (-off/-len).
struct PartialRange {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  friend bool operator==(const PartialRange&, const PartialRange&) = default;
};

// -off and -len as given; both absent means the whole file.
struct RangeRequest {
  std::optional<std::uint64_t> offset;
  std::optional<std::uint64_t> length;
  bool is_partial() const { return offset.has_value() || length.has_value(); }
};

// Turns -off/-len into a range. -len alone starts at 0; -off alone runs to the end of the file,
// which needs `size_bytes`. An offset past the end gives an empty range. nullopt when the
// request is not partial. Errors: ClientErrc::UnknownSize for -off alone without a size.
Result<std::optional<PartialRange>> resolve_range(const RangeRequest& request,
                                                  std::optional<std::uint64_t> size_bytes);

// "RETR p", or "ERET P <offset> <length> p" for a partial range.
std::string retrieve_command(const std::string& path, const std::optional<PartialRange>& range);
// "STOR p", or "ESTO A <offset> p" for a partial range.
std::string store_command(const std::string& path, const std::optional<PartialRange>& range);
// The ALLO argument: the range's length (cut at the end of the file when its size is known),
// else the whole size; nullopt when neither is known.
std::optional<std::uint64_t> allocation_bytes(std::optional<std::uint64_t> size_bytes,
                                              const std::optional<PartialRange>& range);
// -udp: the UDPX data channel (docs/UDPX.md §7), with --rate, --min-rate and --policy.
struct UdpxRequest {
  std::optional<std::uint64_t> rate_bps;
  std::optional<std::uint64_t> min_bps;
  std::optional<std::string> policy;  // fixed, high, fair or low
  // --udp-unauthenticated: without DCAU, key UDPX by unauthenticated TLS (docs/UDPX.md §4.1).
  bool unauthenticated = false;
  friend bool operator==(const UdpxRequest&, const UdpxRequest&) = default;
};

// The SITE SETNETSTACK argument for `udpx`: "udpx", or "udpx:rate=900000000;policy=fair";
// "default" (TCP) without it.
std::string net_stack_argument(const std::optional<UdpxRequest>& udpx);

// A -tcp-bs size as globus-url-copy reads it: bytes, or with a K, M or G suffix (powers of 1024,
// either case). nullopt for anything else, 0, or more than a socket buffer can be (2^31 - 1).
std::optional<std::uint32_t> parse_buffer_size(std::string_view text);
// "SBUF <n>" when the server lists SBUF in FEAT, else "SITE RETRBUFSIZE <n>": what
// globus-url-copy sends for -tcp-bs (docs/WIRE.md §1.5).
std::string buffer_size_command(std::uint32_t bytes, bool server_has_sbuf);

// "OPTS RETR Parallelism=4,4,4;".
std::string parallelism_command(unsigned streams);
// -stripe and -sbs: the receiver is asked for one address per stripe (SPAS, GFD.20) and the
// sender spreads blocks over them by `layout` (-sbs N > 0: Blocked, N-byte blocks; -sbs 0:
// Partitioned). Without a layout every block goes to the first stripe, as globus-url-copy
// -stripe without -sbs sends them, and a third-party source uses its own default layout.
struct StripeRequest {
  std::optional<protocol::mode_e::StripeLayout> layout;
};

// The OPTS RETR a striped third-party source gets from gridcp -stripe -sbs: the layout first,
// parallelism second, as globus-url-copy words it ("OPTS RETR StripeLayout=Blocked;
// BlockSize=262144;Parallelism=4,4,4;", or "StripeLayout=Partitioned;"; GFD.20 "Options to
// RETR"). Without a layout, parallelism_command's text (or nothing when neither is set).
std::optional<std::string> retr_options_command(
    const std::optional<protocol::mode_e::StripeLayout>& layout, std::optional<unsigned> streams);
// "CKSM MD5 0 -1 p" for a whole file, "CKSM MD5 <offset> <length> p" for a range.
std::string checksum_command(security::DigestAlgorithm algorithm, const std::string& path,
                             const std::optional<PartialRange>& range);
// The hex digest of a "213 <hex>" reply text, lower-cased and trimmed. Errors:
// ClientErrc::ChecksumUnavailable when the text is empty or not hex.
Result<std::string> parse_checksum_reply(std::string_view text);

}  // namespace gridftp::client
