// Replays real MODE E data-channel traffic captured from globus-gridftp-server 13.24 (see
// tests/vectors/README.md and capture_globus_mode_e.py) through BlockDecoder and EodTracker.
// The served file is not stored: byte i of it is (i * 7 + 3) % 251.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/mode_e/block_decoder.hpp"
#include "protocol/mode_e/block_header.hpp"
#include "protocol/mode_e/eod_tracker.hpp"

using gridftp::protocol::mode_e::BlockDecoder;
using gridftp::protocol::mode_e::BlockHeader;
using gridftp::protocol::mode_e::DecoderEvent;
using gridftp::protocol::mode_e::encode_header;
using gridftp::protocol::mode_e::EodTracker;
using gridftp::protocol::mode_e::kDescriptorClose;
using gridftp::protocol::mode_e::kDescriptorEod;
using gridftp::protocol::mode_e::kDescriptorEof;
using Kind = gridftp::protocol::mode_e::DecoderEvent::Kind;

namespace {

constexpr std::uint64_t kServedFileSize = 3'000'000;

char served_byte(std::uint64_t i) { return static_cast<char>((i * 7 + 3) % 251); }

// One captured transfer: `<prefix>_conn1.bin` .. `<prefix>_conn<connections>.bin`, carrying the
// virtual file = served bytes [file_offset, file_offset + length) at wire offsets [0, length).
struct Vector {
  const char* prefix;
  std::size_t connections;
  std::uint64_t file_offset;
  std::uint64_t length;
};

constexpr Vector kRetrP4{"globus_retr_p4", 4, 0, kServedFileSize};  // RETR, Parallelism 4
constexpr Vector kEretP2{"globus_eret_p2", 2, 1000, 600'000};       // ERET P 1000 600000
const std::vector<Vector> kVectors{kRetrP4, kEretP2};

std::filesystem::path vectors_dir() { return GRIDFTP_VECTORS_DIR; }

std::string read_binary(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::string bytes(static_cast<std::size_t>(std::filesystem::file_size(path)), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(static_cast<std::size_t>(in.gcount()) == bytes.size());
  return bytes;
}

std::vector<std::string> load_connections(const Vector& vector) {
  std::vector<std::string> conns;
  for (std::size_t n = 1;; ++n) {
    const auto path =
        vectors_dir() / (std::string(vector.prefix) + "_conn" + std::to_string(n) + ".bin");
    if (!std::filesystem::exists(path)) break;
    conns.push_back(read_binary(path));
  }
  INFO(vector.prefix);
  REQUIRE(conns.size() == vector.connections);
  return conns;
}

std::span<const char> bytes_of(const std::string& text) { return {text.data(), text.size()}; }

enum class Split { Whole, Random, Bytewise };

std::vector<std::span<const char>> split(const std::string& wire, Split how, std::uint32_t seed) {
  const auto all = bytes_of(wire);
  std::vector<std::span<const char>> chunks;
  if (how == Split::Whole) {
    chunks.push_back(all);
  } else if (how == Split::Bytewise) {
    for (std::size_t i = 0; i < all.size(); ++i) chunks.push_back(all.subspan(i, 1));
  } else {
    // Mostly large chunks, some tiny ones (so headers split too), some empty.
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> kind(0, 3);
    std::uniform_int_distribution<std::size_t> tiny(0, 20);
    std::uniform_int_distribution<std::size_t> large(1, 100'000);
    std::size_t at = 0;
    while (at < all.size()) {
      const auto want = kind(random) == 0 ? tiny(random) : large(random);
      const auto take = std::min(want, all.size() - at);
      chunks.push_back(all.subspan(at, take));
      at += take;
    }
  }
  return chunks;
}

// Everything one connection's decoder reported, in order. Data events are kept as the decoder
// reported them (with whole input: one per block).
struct Decoded {
  std::vector<DecoderEvent> events;
  std::string error;  // empty when the decoder and the consumption contract held
  bool at_boundary = false;
};

Decoded decode(const std::vector<std::span<const char>>& chunks) {
  Decoded out;
  BlockDecoder decoder;
  for (auto chunk : chunks) {
    DecoderEvent event;
    do {
      const auto consumed = decoder.next(chunk, event);
      if (!consumed) {
        out.error = "decoder error: " + consumed.error().message();
        return out;
      }
      if (*consumed > chunk.size()) {
        out.error = "consumed more than given";
        return out;
      }
      chunk = chunk.subspan(*consumed);
      if (event.kind == Kind::NeedMore) {
        if (!chunk.empty()) {
          out.error = "NeedMore with input left";
          return out;
        }
      } else {
        out.events.push_back(event);
      }
    } while (event.kind != Kind::NeedMore);
  }
  out.at_boundary = decoder.at_block_boundary();
  return out;
}

// Reassembles a transfer from its connections, fed in `order`, and checks it completely.
void replay(const Vector& vector, const std::vector<std::string>& conns,
            const std::vector<std::size_t>& order, Split how, std::optional<std::size_t> special,
            Split special_how) {
  std::string image(vector.length, '\0');
  std::vector<std::uint8_t> coverage(vector.length, 0);
  EodTracker tracker;
  std::uint64_t data_events = 0;
  for (std::size_t position = 0; position < order.size(); ++position) {
    const auto index = order[position];
    INFO(vector.prefix << " conn" << index + 1);
    const auto mode = special == index ? special_how : how;
    const auto decoded = decode(split(conns[index], mode, static_cast<std::uint32_t>(index + 7)));
    REQUIRE(decoded.error.empty());
    REQUIRE(decoded.at_boundary);
    REQUIRE_FALSE(decoded.events.empty());
    const bool last_connection = position + 1 == order.size();
    // Plain checks per event (a bytewise feed yields ~500k Data events); FAIL on the first miss.
    for (std::size_t e = 0; e < decoded.events.size(); ++e) {
      const auto& event = decoded.events[e];
      INFO("event " << e);
      // Complete only once the very last event of the last connection has been counted.
      if (tracker.is_complete()) FAIL("tracker complete before the last EOD");
      switch (event.kind) {
        case Kind::Data: {
          if (event.payload.empty()) FAIL("empty Data event");
          if (event.offset > vector.length || event.payload.size() > vector.length - event.offset)
            FAIL("data beyond the virtual file: offset " << event.offset);
          if (const auto r = tracker.on_data(); !r) FAIL("on_data: " << r.error().message());
          std::copy(event.payload.begin(), event.payload.end(),
                    image.begin() + static_cast<std::ptrdiff_t>(event.offset));
          for (std::size_t i = 0; i < event.payload.size(); ++i) ++coverage[event.offset + i];
          ++data_events;
          break;
        }
        case Kind::Eof:
          REQUIRE(event.eod_count == vector.connections);
          REQUIRE(tracker.on_eof(event.eod_count));
          break;
        case Kind::Eod:
          // Globus sends exactly one EOD per connection, as its last header.
          REQUIRE(e + 1 == decoded.events.size());
          REQUIRE(tracker.on_eod());
          break;
        case Kind::Close:
        case Kind::NeedMore:
          FAIL("unexpected event kind");
      }
    }
    REQUIRE(tracker.is_complete() == last_connection);
  }
  CHECK(data_events > 0);
  CHECK(tracker.eods_received() == vector.connections);
  CHECK(tracker.eods_expected() == std::optional<std::uint64_t>(vector.connections));

  const auto uncovered = std::count(coverage.begin(), coverage.end(), std::uint8_t{0});
  const auto once = std::count(coverage.begin(), coverage.end(), std::uint8_t{1});
  CHECK(uncovered == 0);
  CHECK(static_cast<std::uint64_t>(once) == vector.length);

  std::string expected(vector.length, '\0');
  for (std::uint64_t i = 0; i < vector.length; ++i)
    expected[i] = served_byte(vector.file_offset + i);
  // Report the first differing offset rather than two multi-megabyte strings.
  const auto first_difference = static_cast<std::uint64_t>(
      std::mismatch(image.begin(), image.end(), expected.begin()).first - image.begin());
  CHECK(first_difference == vector.length);
}

std::size_t smallest(const std::vector<std::string>& conns) {
  return static_cast<std::size_t>(
      std::min_element(conns.begin(), conns.end(),
                       [](const auto& a, const auto& b) { return a.size() < b.size(); }) -
      conns.begin());
}

// Re-encodes one connection's events (from whole-input decoding: one Data event per block) the
// way Globus frames them: data blocks with descriptor 0, and each EOF/EOD/CLOSE group as one
// zero-length control header (EOF alone carries the EOD count in `offset`).
std::string reencode(const std::vector<DecoderEvent>& events) {
  std::string wire;
  std::optional<BlockHeader> control;
  auto flush = [&] {
    if (!control) return;
    const auto header = encode_header(*control);
    wire.append(header.begin(), header.end());
    control.reset();
  };
  for (const auto& event : events) {
    switch (event.kind) {
      case Kind::Data: {
        flush();
        const auto header = encode_header(
            {.descriptors = 0, .count = event.payload.size(), .offset = event.offset});
        wire.append(header.begin(), header.end());
        wire.append(event.payload.begin(), event.payload.end());
        break;
      }
      case Kind::Eof:
        flush();
        control = BlockHeader{.descriptors = kDescriptorEof, .count = 0, .offset = event.eod_count};
        break;
      case Kind::Eod:
        if (!control || (control->descriptors & (kDescriptorEod | kDescriptorClose)) != 0) {
          flush();
          control = BlockHeader{};
        }
        control->descriptors |= kDescriptorEod;
        break;
      case Kind::Close:
        if (!control || (control->descriptors & kDescriptorClose) != 0) {
          flush();
          control = BlockHeader{};
        }
        control->descriptors |= kDescriptorClose;
        break;
      case Kind::NeedMore:
        break;
    }
  }
  flush();
  return wire;
}

}  // namespace

TEST_CASE("Globus MODE E captures reassemble into the served file", "[vectors][mode_e]") {
  for (const auto& vector : kVectors) {
    const auto conns = load_connections(vector);
    std::vector<std::size_t> accept_order(conns.size());
    for (std::size_t i = 0; i < conns.size(); ++i) accept_order[i] = i;
    std::vector<std::size_t> reverse_order(accept_order.rbegin(), accept_order.rend());

    SECTION(std::string(vector.prefix) + ": whole connections, accept order") {
      replay(vector, conns, accept_order, Split::Whole, std::nullopt, Split::Whole);
    }
    SECTION(std::string(vector.prefix) + ": whole connections, reverse order (EOF first)") {
      replay(vector, conns, reverse_order, Split::Whole, std::nullopt, Split::Whole);
    }
    SECTION(std::string(vector.prefix) + ": split at pseudo-random points") {
      replay(vector, conns, accept_order, Split::Random, std::nullopt, Split::Whole);
    }
    SECTION(std::string(vector.prefix) + ": smallest connection byte by byte") {
      replay(vector, conns, accept_order, Split::Whole, smallest(conns), Split::Bytewise);
    }
  }
}

TEST_CASE("Globus MODE E captures round-trip through encode_header byte for byte",
          "[vectors][mode_e]") {
  for (const auto& vector : kVectors) {
    const auto conns = load_connections(vector);
    for (std::size_t i = 0; i < conns.size(); ++i) {
      INFO(vector.prefix << " conn" << i + 1);
      const auto decoded = decode({bytes_of(conns[i])});
      REQUIRE(decoded.error.empty());
      REQUIRE(decoded.at_boundary);
      const auto wire = reencode(decoded.events);
      REQUIRE(wire.size() == conns[i].size());
      const auto first_difference = static_cast<std::size_t>(
          std::mismatch(wire.begin(), wire.end(), conns[i].begin()).first - wire.begin());
      CHECK(first_difference == wire.size());
    }
  }
}
