#include "server/storage/stored_checksums.hpp"

#include <array>
#include <cctype>
#include <cerrno>
#include <system_error>

#include <sys/stat.h>
#include <sys/xattr.h>

namespace gridftp::server::storage {
namespace {

using protocol::checksum::FileVersion;
using protocol::checksum::StoredChecksum;
using security::DigestAlgorithm;

constexpr std::array kAlgorithms{DigestAlgorithm::Adler32, DigestAlgorithm::Md5,
                                 DigestAlgorithm::Sha1,    DigestAlgorithm::Sha256,
                                 DigestAlgorithm::Sha512,  DigestAlgorithm::Crc32c};

// "v1 " + 20 digits of size + 20 of seconds + "." + 9 + " " + 128 hex: 200 bytes is plenty.
constexpr std::size_t kMaxValueBytes = 256;

std::error_code last_errno() { return {errno, std::generic_category()}; }

}  // namespace

std::string stored_checksum_attribute(DigestAlgorithm algorithm) {
  std::string name = "user.gridftpd.cksum.";
  for (const char c : security::digest_algorithm_name(algorithm))
    name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

Result<FileVersion> file_version_of(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) return make_error(last_errno());
  return FileVersion{.size_bytes = static_cast<std::uint64_t>(info.st_size),
                     .mtime_seconds = static_cast<std::int64_t>(info.st_mtim.tv_sec),
                     .mtime_nanoseconds = static_cast<std::uint32_t>(info.st_mtim.tv_nsec)};
}

std::optional<StoredChecksum> read_stored_checksum(int fd, DigestAlgorithm algorithm) {
  std::array<char, kMaxValueBytes> value{};
  const auto size =
      ::fgetxattr(fd, stored_checksum_attribute(algorithm).c_str(), value.data(), value.size());
  if (size <= 0) return std::nullopt;
  auto stored = protocol::checksum::parse_stored_checksum(
      std::string_view(value.data(), static_cast<std::size_t>(size)));
  if (!stored) return std::nullopt;
  // The file as it is now, after the attribute was read: a write racing this check changes the
  // mtime it is compared with, never the other way round.
  const auto now = file_version_of(fd);
  if (!now || !(*now == stored->version)) return std::nullopt;
  return stored;
}

Result<void> store_checksum(int fd, DigestAlgorithm algorithm, const FileVersion& version,
                            std::string_view hex) {
  const auto value =
      protocol::checksum::format_stored_checksum(StoredChecksum{version, std::string(hex)});
  if (::fsetxattr(fd, stored_checksum_attribute(algorithm).c_str(), value.data(), value.size(),
                  0) != 0) {
    return make_error(last_errno());
  }
  return {};
}

void clear_stored_checksums(int fd) {
  // One listing first: most files written to carry no attributes at all, and then this costs one
  // call, not one per algorithm. A list too long for the buffer is the rare case: remove blindly.
  std::array<char, 1024> names{};
  const auto listed = ::flistxattr(fd, names.data(), names.size());
  if (listed == 0 || (listed < 0 && errno != ERANGE)) return;
  const std::string_view list(names.data(), listed < 0 ? 0 : static_cast<std::size_t>(listed));
  for (const auto algorithm : kAlgorithms) {
    const auto name = stored_checksum_attribute(algorithm);
    if (listed < 0 || list.find(name + '\0') != std::string_view::npos)
      ::fremovexattr(fd, name.c_str());
  }
}

}  // namespace gridftp::server::storage
