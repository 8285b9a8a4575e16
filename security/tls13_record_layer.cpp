#include "security/tls13_record_layer.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <functional>

#include "security/tls_engine.hpp"
#include "security/tls_record_framing.hpp"

namespace gridftp::security {
namespace {

// Room kept free behind sealed data for an alert or a KeyUpdate answer.
constexpr std::size_t kControlReserve = 64;
// A run goes to the workers from this many full records: below it, waking a helper costs about
// what it saves.
constexpr std::size_t kMinRecordsPerRun = 4;
// NewSessionTicket is the largest message we expect after the handshake; a few KiB at most.
constexpr std::size_t kMaxHandshakeMessageBytes = std::size_t{64} * 1024;

enum HandshakeType : std::uint8_t { kNewSessionTicket = 4, kKeyUpdate = 24 };
enum AlertDescription : std::uint8_t { kCloseNotify = 0 };
constexpr std::uint8_t kAlertLevelWarning = 1;

// Makes `copies` hold a copy of `cipher`'s current key for each of `lanes` threads; copies of an
// earlier key (before a KeyUpdate) are dropped first.
bool copy_key_for_lanes(const Tls13RecordCipher& cipher, std::vector<Tls13RecordCipher>& copies,
                        std::size_t lanes) {
  if (!copies.empty() && copies.front().key_generation() != cipher.key_generation()) copies.clear();
  while (copies.size() < lanes) {
    auto copy = cipher.copy();
    if (!copy) return false;
    copies.push_back(std::move(*copy));
  }
  return true;
}

// Seals or opens records 0 .. records - 1 of a run numbered from `base` on `workers`, one record
// per job: per_record(cipher, i) on the copy of the key that belongs to the thread's lane, moved
// to record base + i. Whether every record was done.
bool for_each_record_on_workers(
    RecordWorkers& workers, std::vector<Tls13RecordCipher>& copies, std::uint64_t base,
    std::size_t records, const std::function<bool(Tls13RecordCipher&, std::size_t)>& per_record) {
  std::atomic<bool> all_done{true};
  workers.run(records, [&](std::size_t i, std::size_t lane) {
    auto& cipher = copies[lane];
    // Forward only: a lane takes its records in increasing order, and every record number a copy
    // reaches lies beyond those it used in earlier runs.
    const bool done = cipher.skip(base + i - cipher.record_number()) && per_record(cipher, i);
    if (!done) all_done.store(false, std::memory_order_relaxed);
  });
  return all_done.load(std::memory_order_relaxed);  // run() returns after every job's store
}

}  // namespace

Result<Tls13RecordLayer> Tls13RecordLayer::create(Tls13Suite suite,
                                                  std::span<const std::uint8_t> write_secret,
                                                  std::span<const std::uint8_t> read_secret,
                                                  std::size_t buffer_bytes) {
  auto sealer = Tls13RecordCipher::create(suite, write_secret, Tls13RecordCipher::Direction::Seal);
  if (!sealer) return make_error(sealer.error());
  auto opener = Tls13RecordCipher::create(suite, read_secret, Tls13RecordCipher::Direction::Open);
  if (!opener) return make_error(opener.error());
  return Tls13RecordLayer(std::move(*sealer), std::move(*opener),
                          std::max(buffer_bytes, kTls13MaxRecordBytes));
}

Tls13RecordLayer::Tls13RecordLayer(Tls13RecordCipher sealer, Tls13RecordCipher opener,
                                   std::size_t buffer_bytes)
    : sealer_(std::move(sealer)),
      opener_(std::move(opener)),
      output_(buffer_bytes + kControlReserve),
      input_(buffer_bytes) {}

std::error_code Tls13RecordLayer::fail(std::string reason) {
  failed_ = true;
  last_error_ = std::move(reason);
  return make_error_code(TlsErrc::Fatal);
}

// --- network side ---

std::span<char> Tls13RecordLayer::input_space() {
  const bool plain_pending = plain_end_ > plain_begin_;
  if (!plain_pending && input_begin_ == input_end_) input_begin_ = input_end_ = 0;
  // Move a partial record to the front once a whole one might no longer fit behind it; never
  // while opened plaintext still waits in front of it.
  if (!plain_pending && input_begin_ > 0 && input_.size() - input_end_ < kTls13MaxRecordBytes) {
    std::memmove(input_.data(), input_.data() + input_begin_, input_end_ - input_begin_);
    input_end_ -= input_begin_;
    input_begin_ = 0;
  }
  return {input_.data() + input_end_, input_.size() - input_end_};
}

void Tls13RecordLayer::commit_input(std::size_t bytes) {
  input_end_ = std::min(input_end_ + bytes, input_.size());
}

std::span<const char> Tls13RecordLayer::pending_output() const {
  return {output_.data() + output_begin_, output_end_ - output_begin_};
}

void Tls13RecordLayer::consume_output(std::size_t bytes) {
  output_begin_ = std::min(output_begin_ + bytes, output_end_);
  if (output_begin_ == output_end_) output_begin_ = output_end_ = 0;
}

// --- sending ---

Result<void> Tls13RecordLayer::seal_record(ContentType type, std::span<const char> content) {
  auto sealed = sealer_.seal(type, content, std::span<char>(output_).subspan(output_end_));
  if (!sealed) return make_error(fail("sealing a record failed"));
  output_end_ += *sealed;
  return {};
}

void Tls13RecordLayer::make_output_room(std::size_t need) {
  if (output_.size() - kControlReserve - output_end_ < need && output_begin_ > 0) {
    std::memmove(output_.data(), output_.data() + output_begin_, output_end_ - output_begin_);
    output_end_ -= output_begin_;
    output_begin_ = 0;
  }
}

Result<std::size_t> Tls13RecordLayer::seal_full_records_on_workers(std::span<const char> plain) {
  constexpr std::size_t kFullRecordBytes = tls13_record_bytes(kTls13MaxPlaintextBytes);
  if (workers_ == nullptr || workers_->width() < 2) return 0;
  make_output_room(kFullRecordBytes * kMinRecordsPerRun);
  const std::size_t records =
      std::min(plain.size() / kTls13MaxPlaintextBytes,
               (output_.size() - kControlReserve - output_end_) / kFullRecordBytes);
  if (records < kMinRecordsPerRun) return 0;
  if (!copy_key_for_lanes(sealer_, lane_sealers_, workers_->width()))
    return make_error(fail("copying the record key failed"));
  // Record i of the run gets number base + i and lands at i * kFullRecordBytes, as sealing one
  // by one would have put it.
  const std::uint64_t base = sealer_.record_number();
  if (!sealer_.skip(records)) return make_error(fail("the record numbers of this key are used up"));
  char* const out = output_.data() + output_end_;
  const bool sealed = for_each_record_on_workers(
      *workers_, lane_sealers_, base, records, [&](Tls13RecordCipher& cipher, std::size_t i) {
        return static_cast<bool>(
            cipher.seal(ContentType::ApplicationData,
                        plain.subspan(i * kTls13MaxPlaintextBytes, kTls13MaxPlaintextBytes),
                        {out + i * kFullRecordBytes, kFullRecordBytes}));
      });
  if (!sealed) return make_error(fail("sealing a record failed"));
  output_end_ += records * kFullRecordBytes;
  return records * kTls13MaxPlaintextBytes;
}

Result<std::size_t> Tls13RecordLayer::write(std::span<const char> plain) {
  if (failed_ || shut_down_) return make_error(TlsErrc::Fatal);
  auto taken = seal_full_records_on_workers(plain);
  if (!taken) return taken;
  while (*taken < plain.size()) {
    const auto chunk = std::min(plain.size() - *taken, kTls13MaxPlaintextBytes);
    const auto need = tls13_record_bytes(chunk);
    make_output_room(need);
    if (output_.size() - kControlReserve - output_end_ < need) break;
    if (auto sealed = seal_record(ContentType::ApplicationData, plain.subspan(*taken, chunk));
        !sealed) {
      return make_error(sealed.error());
    }
    *taken += chunk;
  }
  return taken;
}

void Tls13RecordLayer::shutdown() {
  if (failed_ || shut_down_) return;
  const std::array<char, 2> close_notify{static_cast<char>(kAlertLevelWarning),
                                         static_cast<char>(kCloseNotify)};
  (void)seal_record(ContentType::Alert, close_notify);
  shut_down_ = true;
}

// --- receiving ---

Result<std::size_t> Tls13RecordLayer::open_full_records_on_workers(std::span<char> out) {
  constexpr std::size_t kFullRecordBytes = tls13_record_bytes(kTls13MaxPlaintextBytes);
  if (workers_ == nullptr || workers_->width() < 2) return 0;
  const char* const in = input_.data() + input_begin_;
  const std::size_t available = input_end_ - input_begin_;
  const std::size_t room =
      std::min(available / kFullRecordBytes, out.size() / kTls13MaxPlaintextBytes);
  std::size_t records = 0;
  for (; records < room; ++records) {
    auto length = first_tls_record_length(
        {in + records * kFullRecordBytes, available - records * kFullRecordBytes});
    if (!length || *length != kFullRecordBytes) break;
  }
  if (records < kMinRecordsPerRun) return 0;
  if (!copy_key_for_lanes(opener_, lane_openers_, workers_->width()))
    return make_error(fail("copying the record key failed"));
  opened_types_.assign(records, 0);
  const std::uint64_t base = opener_.record_number();
  for_each_record_on_workers(
      *workers_, lane_openers_, base, records, [&](Tls13RecordCipher& cipher, std::size_t i) {
        auto type =
            cipher.open_exact({in + i * kFullRecordBytes, kFullRecordBytes},
                              out.subspan(i * kTls13MaxPlaintextBytes, kTls13MaxPlaintextBytes));
        // Left at 0 on failure: opened again one by one, where the error is reported.
        if (!type) return false;
        opened_types_[i] = *type;
        return true;
      });
  // Taken up to the first record that is not unpadded application data: a KeyUpdate there
  // changes the key of every record after it, so those are opened again one by one.
  std::size_t taken = 0;
  while (taken < records &&
         opened_types_[taken] == static_cast<std::uint8_t>(ContentType::ApplicationData)) {
    ++taken;
  }
  if (taken < records) lane_openers_.clear();  // they went past the records taken
  if (!opener_.skip(taken)) return make_error(fail("the record numbers of this key are used up"));
  input_begin_ += taken * kFullRecordBytes;
  return taken * kTls13MaxPlaintextBytes;
}

Result<std::size_t> Tls13RecordLayer::whole_record() const {
  // Framing as for the handshake; what TLS 1.3 allows after it (application_data records of at
  // most 2^14 + 256 bytes) is Tls13RecordCipher::open's to judge.
  auto length = first_tls_record_length({input_.data() + input_begin_, input_end_ - input_begin_});
  if (!length) return make_error(length.error());
  return length->value_or(0);
}

Result<std::size_t> Tls13RecordLayer::read(std::span<char> out) {
  if (failed_) return make_error(TlsErrc::Fatal);
  std::size_t total = 0;
  if (plain_end_ > plain_begin_) {
    total = std::min(out.size(), plain_end_ - plain_begin_);
    std::memcpy(out.data(), input_.data() + plain_begin_, total);
    plain_begin_ += total;
    if (total == out.size()) return total;
  }
  // Plaintext opened before a failure is handed out first; the stream stays failed, so the
  // error comes with the next call.
  const auto stop = [&total](std::error_code error) -> Result<std::size_t> {
    if (total > 0) return total;
    return make_error(error);
  };
  while (total < out.size()) {
    if (peer_closed_) break;
    auto opened_on_workers = open_full_records_on_workers(out.subspan(total));
    if (!opened_on_workers) return stop(opened_on_workers.error());
    if (*opened_on_workers > 0) {
      total += *opened_on_workers;
      continue;
    }
    auto length = whole_record();
    if (!length) return stop(fail("bytes that are not a TLS record"));
    if (*length == 0) break;
    if (*length < tls13_record_bytes(0)) return stop(fail("a record too short to be protected"));
    const std::span<const char> record(input_.data() + input_begin_, *length);
    const std::size_t inner_bytes = *length - kTls13HeaderBytes - kTls13TagBytes;
    // Straight into the caller's buffer when a whole record fits; in place otherwise.
    const bool direct = out.size() - total >= inner_bytes;
    if (!direct && total > 0) break;
    const std::span<char> target =
        direct ? out.subspan(total)
               : std::span<char>(input_.data() + input_begin_ + kTls13HeaderBytes, inner_bytes);
    auto opened = opener_.open(record, target);
    if (!opened) return stop(fail("a forged or damaged record"));
    input_begin_ += *length;
    const auto content = target.first(opened->content_bytes);
    if (opened->type != ContentType::ApplicationData) {
      if (auto taken = take_control_record(opened->type, content); !taken) {
        return stop(taken.error());
      }
      continue;
    }
    if (direct) {
      total += content.size();
      continue;
    }
    const auto n = std::min(out.size(), content.size());
    std::memcpy(out.data(), content.data(), n);
    plain_begin_ = static_cast<std::size_t>(content.data() - input_.data()) + n;
    plain_end_ = plain_begin_ + (content.size() - n);
    total = n;
    break;
  }
  if (total == 0 && peer_closed_) return make_error(TlsErrc::PeerClosed);
  return total;
}

Result<void> Tls13RecordLayer::take_control_record(ContentType type,
                                                   std::span<const char> content) {
  if (type == ContentType::Alert) {
    if (content.size() == 2 && static_cast<std::uint8_t>(content[1]) == kCloseNotify) {
      peer_closed_ = true;
      return {};
    }
    const int description = content.size() == 2 ? static_cast<std::uint8_t>(content[1]) : -1;
    return make_error(fail("the peer sent TLS alert " + std::to_string(description)));
  }
  if (type != ContentType::Handshake) {
    return make_error(fail("a record of content type " + std::to_string(static_cast<int>(type)) +
                           " after the handshake"));
  }
  handshake_bytes_.append(content.data(), content.size());
  return take_handshake_messages();
}

Result<void> Tls13RecordLayer::take_handshake_messages() {
  while (handshake_bytes_.size() >= 4) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(handshake_bytes_.data());
    const std::size_t length =
        (std::size_t{bytes[1]} << 16U) | (std::size_t{bytes[2]} << 8U) | bytes[3];
    if (length > kMaxHandshakeMessageBytes) {
      return make_error(fail("a post-handshake message too large"));
    }
    if (handshake_bytes_.size() < 4 + length) return {};
    switch (bytes[0]) {
      case kNewSessionTicket:
        break;  // data connections never resume a session
      case kKeyUpdate: {
        // RFC 8446 §4.6.3: one byte, update_not_requested(0) or update_requested(1), and the
        // last message of its record, since the next record uses the new key.
        if (length != 1 || bytes[4] > 1 || handshake_bytes_.size() != 5) {
          return make_error(fail("a malformed KeyUpdate"));
        }
        const bool answer = bytes[4] == 1;
        handshake_bytes_.clear();
        if (!opener_.update()) return make_error(fail("deriving the peer's next key failed"));
        if (answer && !shut_down_) {
          const std::array<char, 5> key_update{static_cast<char>(kKeyUpdate), 0, 0, 1, 0};
          if (auto sent = seal_record(ContentType::Handshake, key_update); !sent) return sent;
          if (!sealer_.update()) return make_error(fail("deriving our next key failed"));
        }
        return {};
      }
      default:
        return make_error(
            fail("an unexpected post-handshake message (type " + std::to_string(bytes[0]) + ")"));
    }
    handshake_bytes_.erase(0, 4 + length);
  }
  return {};
}

}  // namespace gridftp::security
