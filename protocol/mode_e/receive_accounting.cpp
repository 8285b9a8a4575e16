#include "protocol/mode_e/receive_accounting.hpp"

#include "protocol/mode_e/mode_e_errors.hpp"

namespace gridftp::protocol::mode_e {

using protocol::mode_e::DecoderEvent;

Result<void> ReceiveAccounting::on_connection_opened() {
  if (connections_ >= max_connections_) {
    return make_error(make_error_code(Errc::TooManyConnections));
  }
  ++connections_;
  return {};
}

Result<void> ReceiveAccounting::on_data(std::uint64_t offset, std::uint64_t length) {
  if (length == 0) {
    return {};
  }
  if (auto accepted = tracker_.on_data(); !accepted) {
    return accepted;
  }
  received_.insert(offset, offset + length);
  return {};
}

Result<void> ReceiveAccounting::on_eod() { return tracker_.on_eod(); }

Result<void> ReceiveAccounting::on_eof(std::uint64_t expected_eods) {
  return tracker_.on_eof(expected_eods);
}

Result<void> ReceiveAccounting::on_connection_closed(bool saw_eod) const {
  if (saw_eod || is_complete()) {
    return {};
  }
  return make_error(make_error_code(Errc::IncompleteTransfer));
}

Result<std::uint64_t> ReceiveAccounting::contiguous_length() const {
  if (!is_complete()) {
    return make_error(make_error_code(Errc::IncompleteTransfer));
  }
  const auto& ranges = received_.ranges();
  if (ranges.empty()) {
    return std::uint64_t{0};
  }
  if (ranges.size() != 1 || ranges.front().start != 0) {
    return make_error(make_error_code(Errc::IncompleteTransfer));
  }
  return ranges.front().end;
}

Result<void> for_each_event(protocol::mode_e::BlockDecoder& decoder, std::span<const char> input,
                            const std::function<Result<void>(const DecoderEvent&)>& on_event) {
  for (;;) {
    DecoderEvent event;
    auto used = decoder.next(input, event);
    if (!used) {
      return make_error(used.error());
    }
    input = input.subspan(*used);
    if (event.kind == DecoderEvent::Kind::NeedMore) {
      return {};
    }
    if (auto handled = on_event(event); !handled) {
      return handled;
    }
  }
}

}  // namespace gridftp::protocol::mode_e
