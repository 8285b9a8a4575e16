#include "protocol/batch/batch_decoder.hpp"

#include <algorithm>

#include "protocol/batch/batch_errors.hpp"
#include "protocol/batch/batch_path.hpp"
#include "protocol/batch/batch_records.hpp"
#include "protocol/core/big_endian.hpp"

namespace gridftp::protocol::batch {
namespace {

constexpr std::size_t kTrailerBytes = 4;
constexpr std::size_t kEndBytes = 17;
constexpr std::size_t kPathStart = 3;  // type byte, u16 length

std::uint64_t read_be(std::string_view bytes, std::size_t at, std::size_t count) {
  return load_big_endian(bytes.data() + at, count);
}

}  // namespace

Unexpected BatchDecoder::fail(std::error_code error) {
  failed_ = error;
  return make_error(error);
}

std::size_t BatchDecoder::header_needed() const {
  if (in_file_) return kTrailerBytes;
  if (header_.empty()) return 1;
  const auto type = static_cast<RecordType>(header_[0]);
  if (type == RecordType::End) return kEndBytes;
  if (type != RecordType::Directory && type != RecordType::File && type != RecordType::Refer &&
      type != RecordType::FileError) {
    return 0;
  }
  if (header_.size() < kPathStart) return kPathStart;
  const auto base = kPathStart + read_be(header_, 1, 2);
  switch (type) {
    case RecordType::Directory:
      return base;
    case RecordType::File:
      return base + 16;
    case RecordType::Refer:
      return base + 8;
    default:  // FileError: the message's length, then the message
      return header_.size() < base + 2 ? base + 2 : base + 2 + read_be(header_, base, 2);
  }
}

Result<std::size_t> BatchDecoder::next(std::span<const char> input, BatchEvent& event) {
  event = BatchEvent{};
  if (failed_) return make_error(failed_);
  std::size_t consumed = 0;
  while (true) {
    const auto rest = input.subspan(consumed);
    if (rest.empty()) return consumed;  // NeedMore
    if (ended_) {
      return fail(make_error_code(Errc::DataAfterEnd));
    }
    if (magic_have_ < kMagic.size()) {
      const auto take = std::min(kMagic.size() - magic_have_, rest.size());
      if (std::string_view(rest.data(), take) != kMagic.substr(magic_have_, take)) {
        return fail(make_error_code(Errc::BadMagic));
      }
      magic_have_ += take;
      consumed += take;
      continue;
    }
    if (payload_remaining_ > 0) {
      const auto take =
          static_cast<std::size_t>(std::min<std::uint64_t>(payload_remaining_, rest.size()));
      event.kind = BatchEvent::Kind::Data;
      event.payload = rest.first(take);
      payload_remaining_ -= take;
      return consumed + take;
    }
    // Never 0 here: an unknown type fails below as soon as its byte arrives.
    const auto needed = header_needed();
    const auto take = std::min(needed - header_.size(), rest.size());
    header_.append(rest.data(), take);
    consumed += take;
    // A path longer than any valid one is refused before its bytes are buffered.
    if (!in_file_ && header_.size() >= kPathStart &&
        static_cast<RecordType>(header_[0]) != RecordType::End &&
        read_be(header_, 1, 2) > kMaxPathBytes) {
      return fail(make_error_code(Errc::BadPath));
    }
    // The first bytes of a header tell how long the rest is.
    const auto now_needed = header_needed();
    if (now_needed == 0) {
      return fail(make_error_code(Errc::UnknownRecord));
    }
    if (header_.size() < now_needed) continue;
    if (auto done = complete_header(event); !done) return make_error(done.error());
    header_.clear();
    return consumed;
  }
}

Result<void> BatchDecoder::complete_header(BatchEvent& event) {
  if (in_file_) {
    event.kind = BatchEvent::Kind::FileEnd;
    event.crc = static_cast<std::uint32_t>(read_be(header_, 0, 4));
    in_file_ = false;
    return {};
  }
  const auto type = static_cast<RecordType>(header_[0]);
  if (type == RecordType::End) {
    event.kind = BatchEvent::Kind::End;
    event.files = read_be(header_, 1, 8);
    event.bytes = read_be(header_, 9, 8);
    if (event.files != files_ || event.bytes != bytes_) {
      return fail(make_error_code(Errc::WrongCounts));
    }
    ended_ = true;
    return {};
  }
  const auto path_bytes = static_cast<std::size_t>(read_be(header_, 1, 2));
  event.path = header_.substr(kPathStart, path_bytes);
  if (!is_valid_batch_path(event.path)) return fail(make_error_code(Errc::BadPath));
  const auto after = kPathStart + path_bytes;
  switch (type) {
    case RecordType::Directory:
      event.kind = BatchEvent::Kind::Directory;
      return {};
    case RecordType::File:
      event.kind = BatchEvent::Kind::FileBegin;
      event.offset = read_be(header_, after, 8);
      event.length = read_be(header_, after + 8, 8);
      if (event.offset > kMaxFileBytes || event.length > kMaxFileBytes) {
        return fail(make_error_code(Errc::LengthOutOfRange));
      }
      payload_remaining_ = event.length;
      in_file_ = true;
      ++files_;
      bytes_ += event.length;
      return {};
    case RecordType::Refer:
      event.kind = BatchEvent::Kind::Refer;
      event.length = read_be(header_, after, 8);
      return {};
    default:
      event.kind = BatchEvent::Kind::FileError;
      event.message = header_.substr(after + 2);
      return {};
  }
}

Result<void> BatchDecoder::finish() const {
  if (failed_) return make_error(failed_);
  if (!ended_) return make_error(make_error_code(Errc::Truncated));
  return {};
}

}  // namespace gridftp::protocol::batch
