#include "client/storage/checksum_check.hpp"

#include <algorithm>
#include <vector>

#include "client/client_errors.hpp"
#include "client/storage/local_source.hpp"

namespace gridftp::client {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1024} * 1024;

char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

Result<std::string> local_file_checksum(const std::string& path,
                                        security::DigestAlgorithm algorithm,
                                        const std::optional<PartialRange>& range) {
  auto source = LocalSource::open(path);
  if (!source) {
    return make_error(source.error());
  }
  auto digest = security::Digest::create(algorithm);
  if (!digest) {
    return make_error(digest.error());
  }
  const std::uint64_t size = source->size_bytes();
  std::uint64_t offset = range ? std::min(range->offset, size) : 0;
  const std::uint64_t end = range ? std::min(size, offset + range->length) : size;
  std::vector<char> buffer(kChunkBytes);
  while (offset < end) {
    const auto count =
        static_cast<std::size_t>(std::min<std::uint64_t>(end - offset, buffer.size()));
    auto chunk = std::span(buffer.data(), count);
    if (auto read = source->read_at(offset, chunk); !read) {
      return make_error(read.error());
    }
    digest->update(chunk);
    offset += count;
  }
  return digest->hex_final();
}

Result<void> compare_checksums(std::string_view source, std::string_view dest) {
  const bool same = source.size() == dest.size() &&
                    std::equal(source.begin(), source.end(), dest.begin(),
                               [](char a, char b) { return to_lower(a) == to_lower(b); });
  if (!same) {
    return make_error(make_error_code(ClientErrc::ChecksumMismatch));
  }
  return {};
}

}  // namespace gridftp::client
