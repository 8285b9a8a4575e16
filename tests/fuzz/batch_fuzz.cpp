// A batch stream (docs/WIRE.md §7) as a receiver reads it: records through the batch decoder,
// fed whole and then in small reads. Whatever the bytes, every path it reports stays below the
// batch directory and the events do not depend on how the reads split the stream.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/batch/batch_decoder.hpp"
#include "protocol/batch/batch_path.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using gridftp::protocol::batch::BatchDecoder;
using gridftp::protocol::batch::BatchEvent;
using Kind = BatchEvent::Kind;

struct Decoded {
  std::vector<std::string> events;  // one line per event, file data joined
  bool failed = false;
  bool finished = false;
};

Decoded decode(std::string_view bytes, std::size_t chunk) {
  BatchDecoder decoder;
  Decoded out;
  std::string data;
  for (std::size_t at = 0; at < bytes.size(); at += chunk) {
    std::span<const char> input(bytes.data() + at, std::min(chunk, bytes.size() - at));
    BatchEvent event;
    do {
      auto used = decoder.next(input, event);
      if (!used) {
        out.failed = true;
        BatchEvent again;
        FUZZ_CHECK(!decoder.next(input, again));  // sticky
        return out;
      }
      FUZZ_CHECK(*used <= input.size());
      input = input.subspan(*used);
      switch (event.kind) {
        case Kind::Data:
          data.append(event.payload.data(), event.payload.size());
          break;
        case Kind::Directory:
        case Kind::FileBegin:
        case Kind::Refer:
        case Kind::FileError:
          FUZZ_CHECK(gridftp::protocol::batch::is_valid_batch_path(event.path));
          out.events.push_back(std::to_string(static_cast<int>(event.kind)) + event.path);
          break;
        case Kind::FileEnd:
          out.events.push_back(data + std::to_string(event.crc));
          data.clear();
          break;
        case Kind::End:
          out.events.push_back("end");
          break;
        case Kind::NeedMore:
          break;
      }
    } while (event.kind != Kind::NeedMore);
    FUZZ_CHECK(input.empty());
  }
  out.finished = static_cast<bool>(decoder.finish());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = gridftp::fuzz::as_text(data, size);
  const auto whole = decode(bytes, bytes.size() + 1);
  const auto dribbled = decode(bytes, 3);
  FUZZ_CHECK(whole.failed == dribbled.failed);
  if (!whole.failed) {
    FUZZ_CHECK(whole.events == dribbled.events);
    FUZZ_CHECK(whole.finished == dribbled.finished);
  }
  return 0;
}
