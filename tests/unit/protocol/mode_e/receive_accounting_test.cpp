#include "protocol/mode_e/receive_accounting.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/mode_e/block_header.hpp"
#include "protocol/mode_e/mode_e_errors.hpp"

using gridftp::protocol::mode_e::BlockDecoder;
using gridftp::protocol::mode_e::BlockHeader;
using gridftp::protocol::mode_e::DecoderEvent;
using gridftp::protocol::mode_e::Errc;
using gridftp::protocol::mode_e::ReceiveAccounting;
namespace mode_e = gridftp::protocol::mode_e;

namespace {

std::string header(std::uint8_t descriptors, std::uint64_t count, std::uint64_t offset) {
  const auto bytes = mode_e::encode_header(BlockHeader{descriptors, count, offset});
  return {bytes.begin(), bytes.end()};
}

std::string block(std::uint64_t offset, const std::string& payload) {
  return header(0, payload.size(), offset) + payload;
}

// Feeds one connection's bytes, split at `cut`, into the accounting; returns whether that
// connection reached its EOD, or the first error.
gridftp::Result<bool> feed(ReceiveAccounting& accounting, std::string& file,
                           const std::string& wire, std::size_t cut) {
  BlockDecoder decoder;
  bool saw_eod = false;
  const auto handle = [&](const DecoderEvent& event) -> gridftp::Result<void> {
    switch (event.kind) {
      case DecoderEvent::Kind::Data:
        if (file.size() < event.offset + event.payload.size()) {
          file.resize(event.offset + event.payload.size());
        }
        file.replace(event.offset, event.payload.size(), event.payload.data(),
                     event.payload.size());
        return accounting.on_data(event.offset, event.payload.size());
      case DecoderEvent::Kind::Eof:
        return accounting.on_eof(event.eod_count);
      case DecoderEvent::Kind::Eod:
        saw_eod = true;
        return accounting.on_eod();
      default:
        return {};
    }
  };
  const std::span<const char> all(wire.data(), wire.size());
  for (auto part : {all.first(cut), all.subspan(cut)}) {
    if (auto fed = gridftp::protocol::mode_e::for_each_event(decoder, part, handle); !fed) {
      return gridftp::make_error(fed.error());
    }
  }
  return saw_eod;
}

}  // namespace

TEST_CASE("ReceiveAccounting completes the observed 4-stream put at any split",
          "[client][mode_e]") {
  // docs/WIRE.md §2.4, put -p 4, scaled down: blocks of 4 bytes, 10 bytes in all.
  const std::vector<std::string> streams{block(0, "0123") + block(4, "4567") + header(0x48, 0, 4),
                                         block(8, "89") + header(0x08, 0, 0), header(0x08, 0, 0),
                                         header(0x08, 0, 0)};
  const auto cut = static_cast<std::size_t>(GENERATE(range(0, 17)));
  ReceiveAccounting accounting(8);
  std::string file;
  for (const auto& wire : streams) {
    REQUIRE(accounting.on_connection_opened());
    auto ended = feed(accounting, file, wire, std::min(cut, wire.size()));
    REQUIRE(ended);
    CHECK(*ended);
  }
  CHECK(accounting.is_complete());
  CHECK(file == "0123456789");
  auto length = accounting.contiguous_length();
  REQUIRE(length);
  CHECK(*length == 10);
}

TEST_CASE("ReceiveAccounting waits for connections that come after the EOF", "[client][mode_e]") {
  ReceiveAccounting accounting(8);
  REQUIRE(accounting.on_eof(3));
  REQUIRE(accounting.on_eod());
  CHECK_FALSE(accounting.is_complete());
  REQUIRE(accounting.on_data(0, 5));
  REQUIRE(accounting.on_eod());
  CHECK_FALSE(accounting.is_complete());
  REQUIRE(accounting.on_eod());
  CHECK(accounting.is_complete());
}

TEST_CASE("ReceiveAccounting completes an empty file", "[client][mode_e]") {
  ReceiveAccounting accounting(8);
  REQUIRE(accounting.on_eof(1));
  REQUIRE(accounting.on_eod());
  auto length = accounting.contiguous_length();
  REQUIRE(length);
  CHECK(*length == 0);
}

TEST_CASE("ReceiveAccounting reports holes and early closes", "[client][mode_e]") {
  ReceiveAccounting accounting(8);
  CHECK_FALSE(accounting.contiguous_length());  // not complete yet
  REQUIRE(accounting.on_data(4, 4));
  CHECK(accounting.on_connection_closed(false).error() ==
        make_error_code(Errc::IncompleteTransfer));
  CHECK(accounting.on_connection_closed(true));
  REQUIRE(accounting.on_eof(1));
  REQUIRE(accounting.on_eod());
  CHECK(accounting.contiguous_length().error() == make_error_code(Errc::IncompleteTransfer));
  CHECK(accounting.on_connection_closed(false));  // complete: a close no longer matters
}

TEST_CASE("ReceiveAccounting limits connections", "[client][mode_e]") {
  ReceiveAccounting accounting(2);
  REQUIRE(accounting.on_connection_opened());
  REQUIRE(accounting.on_connection_opened());
  CHECK(accounting.on_connection_opened().error() == make_error_code(Errc::TooManyConnections));
}

TEST_CASE("ReceiveAccounting passes on EodTracker's errors", "[client][mode_e]") {
  ReceiveAccounting accounting(8);
  REQUIRE(accounting.on_eof(1));
  REQUIRE(accounting.on_eod());
  CHECK(accounting.on_eod().error() == make_error_code(mode_e::Errc::TooManyEods));
  CHECK(accounting.on_data(0, 1).error() == make_error_code(mode_e::Errc::DataAfterLastEod));
  CHECK(accounting.on_eof(2).error() == make_error_code(mode_e::Errc::ConflictingEofCount));
}

TEST_CASE("for_each_event stops at a decoder error", "[client][mode_e]") {
  BlockDecoder decoder;
  const auto wire = header(0x20, 1, 0) + "x";  // ERR: suspect data
  int events = 0;
  auto fed = gridftp::protocol::mode_e::for_each_event(
      decoder, std::span<const char>(wire.data(), wire.size()),
      [&](const DecoderEvent&) -> gridftp::Result<void> {
        ++events;
        return {};
      });
  REQUIRE_FALSE(fed);
  CHECK(fed.error() == make_error_code(mode_e::Errc::SuspectData));
  CHECK(events == 0);
}

TEST_CASE("for_each_event stops at a handler error", "[client][mode_e]") {
  BlockDecoder decoder;
  const auto wire = block(0, "ab") + block(2, "cd");
  int events = 0;
  auto fed = gridftp::protocol::mode_e::for_each_event(
      decoder, std::span<const char>(wire.data(), wire.size()),
      [&](const DecoderEvent&) -> gridftp::Result<void> {
        ++events;
        return gridftp::make_error(std::make_error_code(std::errc::operation_canceled));
      });
  CHECK(fed.error() == std::make_error_code(std::errc::operation_canceled));
  CHECK(events == 1);
}
