// Sizes on gridcp's command line (-bs, -tcp-bs, -off, -len) as globus-url-copy reads them: bytes,
// or a number with K, M or G (either case) for KiB, MiB, GiB: "-tcp-bs 4M", "-off 1k". Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gridftp::client {

// nullopt for anything else: empty, a sign, spaces, another suffix, overflow.
std::optional<std::uint64_t> parse_size_argument(std::string_view text);

}  // namespace gridftp::client
