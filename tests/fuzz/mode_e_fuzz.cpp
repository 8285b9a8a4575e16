// A MODE E data stream as a receiver reads it: block headers and payload through the block
// decoder, fed whole and then in small reads. Seeds are streams captured from
// globus-gridftp-server (tests/vectors).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "protocol/mode_e/block_decoder.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using gridftp::protocol::mode_e::BlockDecoder;
using gridftp::protocol::mode_e::DecoderEvent;
using Kind = DecoderEvent::Kind;

struct Decoded {
  std::string data;  // payload bytes in arrival order
  std::vector<Kind> kinds;
  bool failed = false;
  bool closed = false;
};

Decoded decode(std::string_view bytes, std::size_t chunk) {
  BlockDecoder decoder;
  Decoded out;
  for (std::size_t at = 0; at < bytes.size(); at += chunk) {
    std::span<const char> input(bytes.data() + at, std::min(chunk, bytes.size() - at));
    DecoderEvent event;
    do {
      auto used = decoder.next(input, event);
      if (!used) {
        out.failed = true;
        // Sticky: the same error again, whatever comes next.
        DecoderEvent again;
        FUZZ_CHECK(!decoder.next(input, again));
        return out;
      }
      FUZZ_CHECK(*used <= input.size());
      input = input.subspan(*used);
      if (event.kind == Kind::Data) {
        FUZZ_CHECK(event.payload.size() <= *used);
        FUZZ_CHECK(event.offset + event.payload.size() >= event.offset);  // no wrap
        FUZZ_CHECK(event.offset + event.payload.size() <= (std::uint64_t{1} << 63));
        out.data.append(event.payload.data(), event.payload.size());
      } else if (event.kind != Kind::NeedMore) {
        out.kinds.push_back(event.kind);
      }
    } while (event.kind != Kind::NeedMore);
    FUZZ_CHECK(input.empty());
  }
  out.closed = decoder.is_closed();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = gridftp::fuzz::as_text(data, size);
  const auto whole = decode(bytes, bytes.size() + 1);
  const auto dribbled = decode(bytes, 5);
  // The payload bytes and the EOD/EOF/CLOSE events do not depend on how reads split the stream
  // (Data events may: a block read in pieces is reported in pieces).
  FUZZ_CHECK(whole.failed == dribbled.failed);
  FUZZ_CHECK(whole.data == dribbled.data);
  FUZZ_CHECK(whole.kinds == dribbled.kinds);
  FUZZ_CHECK(whole.closed == dribbled.closed);
  return 0;
}
