#include "transport/aligned_buffer.hpp"

#include <array>
#include <cstdlib>
#include <new>
#include <utility>

namespace gridftp::transport {
namespace {

// aligned_alloc wants a multiple of the alignment, and at least one byte.
std::size_t rounded(std::size_t bytes) {
  constexpr auto kAlign = AlignedBuffer::kAlignment;
  return bytes == 0 ? kAlign : (bytes + kAlign - 1) / kAlign * kAlign;
}

// Enough for a thread's streams of one transfer in each direction; more would only hold memory.
constexpr std::size_t kKeptPerThread = 4;

class ReleasedBuffers {
 public:
  ReleasedBuffers() = default;
  ReleasedBuffers(const ReleasedBuffers&) = delete;
  ReleasedBuffers& operator=(const ReleasedBuffers&) = delete;
  ~ReleasedBuffers();

  char* take(std::size_t capacity) {
    for (auto& kept : kept_) {
      if (kept.data != nullptr && kept.capacity == capacity) {
        return std::exchange(kept.data, nullptr);
      }
    }
    return nullptr;
  }

  bool keep(char* data, std::size_t capacity) {
    for (auto& kept : kept_) {
      if (kept.data == nullptr) {
        kept = {data, capacity};
        return true;
      }
    }
    return false;
  }

 private:
  struct Kept {
    char* data = nullptr;
    std::size_t capacity = 0;
  };
  std::array<Kept, kKeptPerThread> kept_{};
};

thread_local ReleasedBuffers released;
// Trivially destructible, so still readable when a buffer dies after `released` has (thread exit).
thread_local bool released_gone = false;

ReleasedBuffers::~ReleasedBuffers() {
  released_gone = true;
  for (auto& kept : kept_) std::free(kept.data);
}

}  // namespace

AlignedBuffer::AlignedBuffer(std::size_t bytes)
    : size_(bytes), data_(nullptr, Release{rounded(bytes)}) {
  const auto capacity = data_.get_deleter().capacity;
  char* data = released_gone ? nullptr : released.take(capacity);
  if (data == nullptr) data = static_cast<char*>(std::aligned_alloc(kAlignment, capacity));
  if (data == nullptr) throw std::bad_alloc();
  data_.reset(data);
}

void AlignedBuffer::Release::operator()(char* p) const noexcept {
  if (released_gone || !released.keep(p, capacity)) std::free(p);
}

}  // namespace gridftp::transport
