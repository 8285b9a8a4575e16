#include "protocol/udpx/packet_header.hpp"

#include "protocol/udpx/byte_codec.hpp"

namespace gridftp::protocol::udpx {
namespace {

// Byte 1 of the common header: K E R F P, then three reserved bits (docs/UDPX.md §1.2).
constexpr std::uint8_t kKeyPhaseBit = 0x80;
constexpr std::uint8_t kEncryptedBit = 0x40;
constexpr std::uint8_t kRetransmissionBit = 0x20;
constexpr std::uint8_t kFinalBit = 0x10;
constexpr std::uint8_t kProbeBit = 0x08;
constexpr std::uint8_t kReservedBits = 0x07;
constexpr std::uint8_t kDataOnlyBits = kRetransmissionBit | kFinalBit | kProbeBit;
constexpr std::uint8_t kLastType = static_cast<std::uint8_t>(PacketType::KeyExchange);

// Packets whose 32-byte front carries a random: the handshake's.
bool has_random_front(PacketType type) {
  return type == PacketType::Hello || type == PacketType::HelloAck ||
         type == PacketType::KeyExchange;
}

void write_common(ByteWriter& writer, const CommonHeader& header) {
  writer.u8(static_cast<std::uint8_t>((kVersion << 4) | static_cast<std::uint8_t>(header.type)));
  std::uint8_t flags = 0;
  if (header.key_phase) flags |= kKeyPhaseBit;
  if (header.encrypted) flags |= kEncryptedBit;
  if (header.retransmission) flags |= kRetransmissionBit;
  if (header.final_block) flags |= kFinalBit;
  if (header.probe) flags |= kProbeBit;
  writer.u8(flags);
  writer.u16(header.transfer_id);
  writer.u32(header.destination_cid);
  writer.u64(header.packet_number);
}

}  // namespace

Result<std::size_t> encode_common_header(const CommonHeader& header, std::span<std::uint8_t> out) {
  ByteWriter writer(out);
  write_common(writer, header);
  return writer.finish();
}

Result<CommonHeader> decode_common_header(std::span<const std::uint8_t> packet) {
  ByteReader reader(packet);
  const auto first = reader.u8();
  const auto flags = reader.u8();
  CommonHeader header;
  header.transfer_id = reader.u16();
  header.destination_cid = reader.u32();
  header.packet_number = reader.u64();
  if (!reader.ok()) return make_error(make_error_code(Errc::Truncated));
  if ((first >> 4) != kVersion) return make_error(make_error_code(Errc::BadVersion));
  const std::uint8_t type = first & 0x0F;
  if (type > kLastType) return make_error(make_error_code(Errc::UnknownType));
  header.type = static_cast<PacketType>(type);
  if ((flags & kReservedBits) != 0) return make_error(make_error_code(Errc::ReservedBits));
  if (header.type != PacketType::Data && (flags & kDataOnlyBits) != 0)
    return make_error(make_error_code(Errc::ReservedBits));
  header.key_phase = (flags & kKeyPhaseBit) != 0;
  header.encrypted = (flags & kEncryptedBit) != 0;
  header.retransmission = (flags & kRetransmissionBit) != 0;
  header.final_block = (flags & kFinalBit) != 0;
  header.probe = (flags & kProbeBit) != 0;
  if (header.type != PacketType::Data && !header.encrypted)
    return make_error(make_error_code(Errc::ClearControl));
  return header;
}

Result<std::size_t> encode_data_front(const CommonHeader& header, const DataFields& fields,
                                      std::span<std::uint8_t> out) {
  ByteWriter writer(out);
  auto data_header = header;
  data_header.type = PacketType::Data;
  write_common(writer, data_header);
  writer.u64(fields.offset);
  writer.u32(fields.tx_time_us);
  writer.u8(fields.attempt);
  writer.zeros(3);
  return writer.finish();
}

Result<DataFields> decode_data_fields(std::span<const std::uint8_t> packet) {
  ByteReader reader(packet);
  (void)reader.bytes(kCommonHeaderBytes);
  DataFields fields;
  fields.offset = reader.u64();
  fields.tx_time_us = reader.u32();
  fields.attempt = reader.u8();
  const auto reserved = reader.bytes(3);
  if (!reader.ok()) return make_error(make_error_code(Errc::Truncated));
  for (const auto byte : reserved)
    if (byte != 0) return make_error(make_error_code(Errc::ReservedBits));
  return fields;
}

Result<std::size_t> encode_hello_front(const CommonHeader& header,
                                       std::span<const std::uint8_t, kRandomBytes> random,
                                       std::span<std::uint8_t> out) {
  ByteWriter writer(out);
  write_common(writer, header);
  writer.bytes(random);
  return writer.finish();
}

Result<std::array<std::uint8_t, kRandomBytes>> decode_hello_random(
    std::span<const std::uint8_t> packet) {
  ByteReader reader(packet);
  (void)reader.bytes(kCommonHeaderBytes);
  const auto bytes = reader.bytes(kRandomBytes);
  if (!reader.ok()) return make_error(make_error_code(Errc::Truncated));
  std::array<std::uint8_t, kRandomBytes> random{};
  for (std::size_t i = 0; i < kRandomBytes; ++i) random[i] = bytes[i];
  return random;
}

std::size_t associated_data_bytes(PacketType type) {
  return type == PacketType::Data || has_random_front(type) ? kFrontBytes : kCommonHeaderBytes;
}

}  // namespace gridftp::protocol::udpx
