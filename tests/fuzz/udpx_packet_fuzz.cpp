// UDPX datagrams as a receiving socket gets them: the clear common header and DATA/HELLO
// fronts, the AEAD check (which a forged packet must fail), and every control body as decoded
// after the tag verified. Bodies that decode must encode back to a body that decodes the same.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "protocol/udpx/control_bodies.hpp"
#include "protocol/udpx/packet_header.hpp"
#include "security/udpx/packet_protection.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace pu = gridftp::protocol::udpx;
namespace su = gridftp::security::udpx;

// Decodes `body`, and if it decodes, encodes the result and decodes that again.
template <typename Body, typename Decode, typename Encode>
void round_trip(std::span<const std::uint8_t> body, Decode decode, Encode encode) {
  auto decoded = decode(body);
  if (!decoded) return;
  std::array<std::uint8_t, 2048> buffer{};
  auto written = encode(*decoded, std::span(buffer));
  FUZZ_CHECK(written.has_value());
  auto again = decode(std::span<const std::uint8_t>(buffer.data(), *written));
  FUZZ_CHECK(again && *again == *decoded);
}

void decode_body(pu::PacketType type, std::span<const std::uint8_t> body) {
  switch (type) {
    case pu::PacketType::Ack:
      round_trip<pu::AckBody>(body, pu::decode_ack, pu::encode_ack);
      break;
    case pu::PacketType::Feedback:
      round_trip<pu::FeedbackBody>(body, pu::decode_feedback, pu::encode_feedback);
      break;
    case pu::PacketType::Xfer:
      round_trip<pu::XferBody>(body, pu::decode_xfer, pu::encode_xfer);
      break;
    case pu::PacketType::Ping:
      round_trip<pu::PingBody>(body, pu::decode_ping, pu::encode_ping);
      break;
    case pu::PacketType::Hello:
    case pu::PacketType::HelloAck:
      round_trip<pu::HelloBody>(body, pu::decode_hello, [](const pu::HelloBody& hello, auto out) {
        return pu::encode_hello(hello, 0, out);
      });
      break;
    case pu::PacketType::Nak: {
      std::vector<pu::BlockRange> ranges;
      if (auto header = pu::decode_nak(body, ranges)) {
        for (const auto& range : ranges)
          FUZZ_CHECK(range.count >= 1 && range.start + range.count > range.start);
      }
      break;
    }
    case pu::PacketType::Close:
      (void)pu::decode_close(body);
      break;
    case pu::PacketType::CloseAck:
      (void)pu::decode_close_ack(body);
      break;
    case pu::PacketType::Data:
    case pu::PacketType::KeyExchange:
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> packet(data, size);
  auto header = pu::decode_common_header(packet);
  if (!header) return 0;
  if (header->type == pu::PacketType::Data) (void)pu::decode_data_fields(packet);
  if (header->type == pu::PacketType::Hello) (void)pu::decode_hello_random(packet);

  // A packet from someone without the key never opens.
  static auto protection = su::PacketProtection::create(su::PacketKeys{});
  FUZZ_CHECK(protection.has_value());
  const auto associated = pu::associated_data_bytes(header->type);
  std::vector<std::uint8_t> copy(packet.begin(), packet.end());
  if (copy.size() >= associated + su::kTagBytes && size > 0) {
    auto opened = protection->open(
        copy, associated, header->packet_number,
        header->encrypted ? su::BodyProtection::Encrypt : su::BodyProtection::AuthenticateOnly);
    FUZZ_CHECK(!opened);
  }
  // What follows the associated data, as if it had verified.
  if (size >= associated) decode_body(header->type, packet.subspan(associated));
  return 0;
}
