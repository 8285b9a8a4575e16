#include "protocol/udpx/key_exchange_stream.hpp"

#include <algorithm>

#include "protocol/udpx/byte_codec.hpp"

namespace gridftp::protocol::udpx {

Result<std::size_t> encode_key_exchange(const KeyExchangeBody& body, std::span<std::uint8_t> out) {
  ByteWriter writer(out);
  writer.varint(body.acknowledged);
  writer.varint(body.offset);
  writer.bytes(body.bytes);
  return writer.finish();
}

Result<KeyExchangeBody> decode_key_exchange(std::span<const std::uint8_t> body) {
  ByteReader reader(body);
  KeyExchangeBody out;
  out.acknowledged = reader.varint();
  out.offset = reader.varint();
  if (!reader.ok()) return make_error(make_error_code(Errc::Truncated));
  out.bytes = reader.rest();
  return out;
}

bool KeyExchangeStream::on_body(const KeyExchangeBody& body, Microseconds now) {
  const std::uint64_t length = body.bytes.size();
  if (body.acknowledged > outgoing_.size() || body.offset > kMaxStreamBytes ||
      length > kMaxStreamBytes - body.offset) {
    return false;
  }
  if (body.acknowledged > acknowledged_) {
    acknowledged_ = body.acknowledged;
    next_send_ = std::max(next_send_, acknowledged_);
    last_progress_ = now;
    timeout_ = kFirstTimeout;
    timeouts_ = 0;
  }
  if (length == 0) return true;  // an acknowledgement only: nothing to answer
  owe_ack_ = true;
  const auto* bytes = reinterpret_cast<const char*>(body.bytes.data());
  if (body.offset > received_end_) {
    auto& early = early_[body.offset];
    if (early.size() < length) early.assign(bytes, length);
    return true;
  }
  auto append_from = [this](std::uint64_t offset, const char* data, std::uint64_t size) {
    if (offset + size <= received_end_) return;
    const auto skip = received_end_ - offset;
    received_.append(data + skip, size - skip);
    received_end_ = offset + size;
  };
  append_from(body.offset, bytes, length);
  while (!early_.empty() && early_.begin()->first <= received_end_) {
    const auto node = early_.extract(early_.begin());
    append_from(node.key(), node.mapped().data(), node.mapped().size());
  }
  return true;
}

std::string KeyExchangeStream::take_received() { return std::exchange(received_, {}); }

bool KeyExchangeStream::timed_out(Microseconds now) const {
  return acknowledged_ < outgoing_.size() && last_progress_ >= 0 &&
         now - last_progress_ >= timeout_;
}

bool KeyExchangeStream::has_due(Microseconds now) const {
  return next_send_ < outgoing_.size() || owe_ack_ || timed_out(now);
}

KeyExchangeBody KeyExchangeStream::next_body(std::size_t max_bytes, Microseconds now) {
  if (timed_out(now)) {
    // Go back to the first byte not acknowledged, as if it had never been sent.
    next_send_ = acknowledged_;
    timeout_ *= 2;
    ++timeouts_;
    last_progress_ = now;
  }
  KeyExchangeBody body;
  body.acknowledged = received_end_;
  body.offset = next_send_;
  const auto count = std::min<std::uint64_t>(max_bytes, outgoing_.size() - next_send_);
  body.bytes = std::span(reinterpret_cast<const std::uint8_t*>(outgoing_.data()) + next_send_,
                         static_cast<std::size_t>(count));
  if (count > 0) {
    next_send_ += count;
    if (body.offset == acknowledged_) last_progress_ = now;  // nothing else was in flight
  }
  owe_ack_ = false;
  return body;
}

Microseconds KeyExchangeStream::next_wakeup(Microseconds now) const {
  if (next_send_ < outgoing_.size() || owe_ack_) return now;
  if (acknowledged_ < outgoing_.size() && last_progress_ >= 0) return last_progress_ + timeout_;
  return now + 1'000'000;
}

}  // namespace gridftp::protocol::udpx
