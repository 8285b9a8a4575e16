// One bit per slot of a ring (a block or packet number modulo the ring's size): what the
// receive tracker (blocks held), the send scheduler (blocks queued for retransmission) and the
// replay window (packet numbers seen) each keep. Sized once; no allocation afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gridftp::protocol::udpx {

class SlotBitmap {
 public:
  explicit SlotBitmap(std::size_t slots) : words_((slots + 63) / 64) {}

  bool test(std::size_t slot) const { return ((words_[slot / 64] >> (slot % 64)) & 1U) != 0; }
  void set(std::size_t slot, bool value) {
    const auto bit = std::uint64_t{1} << (slot % 64);
    if (value) {
      words_[slot / 64] |= bit;
    } else {
      words_[slot / 64] &= ~bit;
    }
  }
  // The bits of `slot`'s word from `slot` up, `slot` in bit 0: for scanning a word at a time.
  std::uint64_t bits_from(std::size_t slot) const { return words_[slot / 64] >> (slot % 64); }
  // Whether the 64-slot word that starts at `slot` (a multiple of 64) is all set.
  bool word_full(std::size_t slot) const { return words_[slot / 64] == ~std::uint64_t{0}; }
  void clear_word(std::size_t slot) { words_[slot / 64] = 0; }
  void clear_all() { words_.assign(words_.size(), 0); }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace gridftp::protocol::udpx
