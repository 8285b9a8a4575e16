#include "protocol/mode_e/block_decoder.hpp"

#include <algorithm>
#include <utility>

#include "protocol/mode_e/mode_e_errors.hpp"

namespace gridftp::protocol::mode_e {
namespace {

// The end of every block must fit an off_t (2^63 - 1 is the last addressable byte).
constexpr std::uint64_t kMaxEndOffset = std::uint64_t{1} << 63;

Result<void> validate(const BlockHeader& header) {
  if ((header.descriptors & ~kDescriptorKnownBits) != 0) {
    return make_error(make_error_code(Errc::UnknownDescriptor));
  }
  if ((header.descriptors & kDescriptorErr) != 0) {
    return make_error(make_error_code(Errc::SuspectData));
  }
  if ((header.descriptors & kDescriptorRestart) != 0) {
    return make_error(make_error_code(Errc::RestartBlock));
  }
  // GFD.20: on EOF the offset field carries the EOD count and count is unused.
  if (header.is_eof()) return {};
  if (header.offset > kMaxEndOffset || header.count > kMaxEndOffset - header.offset) {
    return make_error(make_error_code(Errc::OffsetOutOfRange));
  }
  return {};
}

}  // namespace

Result<std::size_t> BlockDecoder::next(std::span<const char> input, DecoderEvent& event) {
  event = DecoderEvent{};
  if (failed_) return make_error(failed_);
  std::size_t consumed = 0;
  while (true) {
    if (payload_remaining_ == 0 && take_pending(event)) return consumed;
    const auto rest = input.subspan(consumed);
    if (rest.empty()) return consumed;  // NeedMore
    if (closed_) {
      failed_ = make_error_code(Errc::DataAfterClose);
      return make_error(failed_);
    }
    if (payload_remaining_ > 0) {
      const auto take =
          static_cast<std::size_t>(std::min<std::uint64_t>(payload_remaining_, rest.size()));
      event.kind = DecoderEvent::Kind::Data;
      event.offset = payload_offset_;
      event.payload = rest.first(take);
      payload_remaining_ -= take;
      payload_offset_ += take;
      return consumed + take;
    }
    const auto take = std::min(kHeaderBytes - header_have_, rest.size());
    std::transform(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(take),
                   header_bytes_.begin() + static_cast<std::ptrdiff_t>(header_have_),
                   [](char c) { return static_cast<std::uint8_t>(c); });
    header_have_ += take;
    consumed += take;
    if (header_have_ < kHeaderBytes) continue;
    if (auto started = start_block(); !started) {
      failed_ = started.error();
      return make_error(failed_);
    }
  }
}

Result<void> BlockDecoder::start_block() {
  header_have_ = 0;
  const auto header = decode_header(header_bytes_);
  if (auto valid = validate(header); !valid) return valid;
  pending_ = header.descriptors & (kDescriptorEof | kDescriptorEod | kDescriptorClose);
  if (header.is_eof()) {
    // Globus reads no payload after an EOF header even if count != 0; neither do we.
    pending_eod_count_ = header.offset;
    payload_remaining_ = 0;
    return {};
  }
  payload_remaining_ = header.count;
  payload_offset_ = header.offset;
  return {};
}

bool BlockDecoder::take_pending(DecoderEvent& event) {
  for (const auto& [flag, kind] : {std::pair{kDescriptorEof, DecoderEvent::Kind::Eof},
                                   std::pair{kDescriptorEod, DecoderEvent::Kind::Eod},
                                   std::pair{kDescriptorClose, DecoderEvent::Kind::Close}}) {
    if ((pending_ & flag) == 0) continue;
    pending_ = static_cast<std::uint8_t>(pending_ & ~flag);
    event.kind = kind;
    if (kind == DecoderEvent::Kind::Eof) event.eod_count = pending_eod_count_;
    if (kind == DecoderEvent::Kind::Close) closed_ = true;
    return true;
  }
  return false;
}

bool BlockDecoder::at_block_boundary() const {
  return header_have_ == 0 && payload_remaining_ == 0 && pending_ == 0;
}

}  // namespace gridftp::protocol::mode_e
