#include "server/session/checksum_commands.hpp"

#include <cerrno>
#include <cstdio>
#include <vector>

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"
#include "security/digest.hpp"
#include "server/storage/stored_checksums.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;

struct ChecksumOutcome {
  std::error_code error;
  std::string hex;
  bool stored = false;  // the value was kept with the file for the next CKSM
};

// Stores `hex` as the whole file's value when the read covered the whole file, `before` being the
// file as it was when the read began: unchanged size and mtime afterwards mean the read saw one
// version of it.
bool store_if_whole_file(int fd, security::DigestAlgorithm algorithm,
                         const protocol::checksum::FileVersion& before, std::uint64_t bytes_read,
                         const std::string& hex) {
  if (bytes_read != before.size_bytes) return false;
  const auto after = storage::file_version_of(fd);
  if (!after || !(*after == before)) return false;
  return storage::store_checksum(fd, algorithm, before, hex).has_value();
}

transport::awaitable<ChecksumOutcome> digest_file(std::shared_ptr<storage::UniqueFd> fd,
                                                  security::DigestAlgorithm algorithm,
                                                  std::uint64_t offset, std::uint64_t length,
                                                  bool may_store) {
  auto digest = security::Digest::create(algorithm);
  if (!digest) co_return ChecksumOutcome{digest.error(), {}};
  const auto before = storage::file_version_of(fd->get());
  const bool from_start = offset == 0;
  std::uint64_t bytes_read = 0;
  std::vector<char> buffer(1 << 20);
  while (length > 0) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(length, buffer.size()));
    const auto got = ::pread(fd->get(), buffer.data(), want, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) co_return ChecksumOutcome{std::error_code(errno, std::generic_category()), {}};
    if (got == 0) break;
    digest->update({buffer.data(), static_cast<std::size_t>(got)});
    offset += static_cast<std::uint64_t>(got);
    length -= static_cast<std::uint64_t>(got);
    bytes_read += static_cast<std::uint64_t>(got);
  }
  auto hex = digest->hex_final();
  if (!hex) co_return ChecksumOutcome{hex.error(), {}};
  const bool stored = may_store && from_start && before &&
                      store_if_whole_file(fd->get(), algorithm, *before, bytes_read, *hex);
  co_return ChecksumOutcome{{}, std::move(*hex), stored};
}

}  // namespace

ChecksumCommands::ChecksumCommands(NamespaceCommands& names, UserLogin& login,
                                   transport::asio::thread_pool& blocking_pool,
                                   SessionReplies& replies, std::shared_ptr<spdlog::logger> log,
                                   std::string tag)
    : names_(names),
      login_(login),
      blocking_pool_(blocking_pool),
      replies_(replies),
      log_(std::move(log)),
      tag_(std::move(tag)) {}

transport::awaitable<void> ChecksumCommands::on_cksm(const std::string& argument) {
  if (!names_.check_storage_or_reply()) co_return;
  char name[16] = {};
  unsigned long long offset = 0;
  long long length = 0;
  int consumed = 0;
  if (std::sscanf(argument.c_str(), "%15s %llu %lld %n", name, &offset, &length, &consumed) != 3 ||
      consumed == 0 || static_cast<std::size_t>(consumed) >= argument.size() || length < -1) {
    replies_.send_error(Condition::BadSyntax, "CKSM <algorithm> <offset> <length> <path>.");
    co_return;
  }
  const auto algorithm = security::parse_digest_algorithm(name);
  if (!algorithm) {
    // 500 (UnknownCommand) as this reply has always been, though 504 would fit: clients may
    // key on the code.
    replies_.send_error(Condition::UnknownCommand, "Unknown checksum algorithm requested.");
    co_return;
  }
  const auto path = names_.resolve_or_reply(argument.substr(static_cast<std::size_t>(consumed)));
  if (!path) co_return;
  auto fd = login_.storage()->open_for_read(*path);
  if (!fd) {
    replies_.send_error(fd.error());
    co_return;
  }
  const std::uint64_t span = length < 0 ? UINT64_MAX : static_cast<std::uint64_t>(length);
  // Only regular files keep values (devices cannot hold user xattrs), and only a request from
  // byte 0 through the end is the whole file's value; a partial CKSM always reads.
  const bool regular = storage::regular_file_size(fd->get()).has_value();
  if (regular && offset == 0) {
    if (const auto stored = storage::read_stored_checksum(fd->get(), *algorithm);
        stored && span >= stored->version.size_bytes) {
      log_->debug("{} cksm {} {} answered from the stored value", tag_, name, *path);
      replies_.send(rc::kFileStatus, stored->hex);
      co_return;
    }
  }
  auto shared_fd = std::make_shared<storage::UniqueFd>(std::move(*fd));
  const auto outcome = co_await transport::asio::co_spawn(
      blocking_pool_, digest_file(shared_fd, *algorithm, offset, span, regular),
      transport::use_awaitable);
  if (outcome.error) {
    replies_.send_error(outcome.error);
    co_return;
  }
  if (outcome.stored) log_->debug("{} cksm {} {} read and stored", tag_, name, *path);
  replies_.send(rc::kFileStatus, outcome.hex);
}

}  // namespace gridftp::server
