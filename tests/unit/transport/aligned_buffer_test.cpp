#include "transport/aligned_buffer.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

using gridftp::transport::AlignedBuffer;

namespace {
bool page_aligned(const char* p) {
  return reinterpret_cast<std::uintptr_t>(p) % AlignedBuffer::kAlignment == 0;
}
}  // namespace

TEST_CASE("AlignedBuffer is page aligned and as large as asked", "[transport][buffer]") {
  for (const std::size_t bytes :
       {std::size_t{0}, std::size_t{1}, std::size_t{4096}, std::size_t{(1 << 20) + 64}}) {
    AlignedBuffer buffer(bytes);
    CHECK(buffer.size() == bytes);
    CHECK(page_aligned(buffer.data()));
    if (bytes > 0) {
      buffer.span().back() = 'x';  // the whole span is writable (ASan checks the bound)
      CHECK(buffer.span().size() == bytes);
    }
  }
}

TEST_CASE("A released AlignedBuffer is reused by the next one of its size on that thread",
          "[transport][buffer]") {
  const char* first = nullptr;
  {
    AlignedBuffer buffer(1 << 20);
    first = buffer.data();
  }
  AlignedBuffer again(1 << 20);
  CHECK(again.data() == first);
  AlignedBuffer other_size(2 << 20);
  CHECK(other_size.data() != first);
}

TEST_CASE("Several buffers alive at once are distinct, and all come back", "[transport][buffer]") {
  std::vector<const char*> seen;
  {
    std::vector<AlignedBuffer> buffers;
    for (int i = 0; i < 6; ++i) buffers.emplace_back(64 * 1024);  // more than a thread keeps
    for (auto& b : buffers) seen.push_back(b.data());
  }
  std::sort(seen.begin(), seen.end());
  CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
  std::vector<AlignedBuffer> again;
  for (int i = 0; i < 6; ++i) again.emplace_back(64 * 1024);
  for (std::size_t i = 0; i < again.size(); ++i) {
    for (std::size_t j = i + 1; j < again.size(); ++j) CHECK(again[i].data() != again[j].data());
  }
}
