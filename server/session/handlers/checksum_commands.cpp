// CKSM <algorithm> <offset> <length> <path> (GFD.47; length -1 = to EOF): the digest is computed on
// the blocking pool, because hashing a large file would hold an I/O thread for seconds.
#include <cerrno>
#include <cstdio>
#include <vector>

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"
#include "security/digest.hpp"
#include "server/session/control_session.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;

struct ChecksumOutcome {
  std::error_code error;
  std::string hex;
};

transport::awaitable<ChecksumOutcome> digest_file(std::shared_ptr<storage::UniqueFd> fd,
                                                  security::DigestAlgorithm algorithm,
                                                  std::uint64_t offset, std::uint64_t length) {
  auto digest = security::Digest::create(algorithm);
  if (!digest) co_return ChecksumOutcome{digest.error(), {}};
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
  }
  auto hex = digest->hex_final();
  if (!hex) co_return ChecksumOutcome{hex.error(), {}};
  co_return ChecksumOutcome{{}, std::move(*hex)};
}

}  // namespace

transport::awaitable<void> ControlSession::on_cksm(const std::string& argument) {
  if (!check_storage_or_reply()) co_return;
  char name[16] = {};
  unsigned long long offset = 0;
  long long length = 0;
  int consumed = 0;
  if (std::sscanf(argument.c_str(), "%15s %llu %lld %n", name, &offset, &length, &consumed) != 3 ||
      consumed == 0 || static_cast<std::size_t>(consumed) >= argument.size() || length < -1) {
    send(rc::kParameterSyntaxError, "CKSM <algorithm> <offset> <length> <path>.");
    co_return;
  }
  const auto algorithm = security::parse_digest_algorithm(name);
  if (!algorithm) {
    send(rc::kSyntaxError, "Unknown checksum algorithm requested.");
    co_return;
  }
  const auto path = resolve_or_reply(argument.substr(static_cast<std::size_t>(consumed)));
  if (!path) co_return;
  auto fd = storage_->open_for_read(*path);
  if (!fd) {
    send_error(fd.error());
    co_return;
  }
  const std::uint64_t span = length < 0 ? UINT64_MAX : static_cast<std::uint64_t>(length);
  auto shared_fd = std::make_shared<storage::UniqueFd>(std::move(*fd));
  const auto outcome = co_await asio::co_spawn(services_.blocking_pool,
                                               digest_file(shared_fd, *algorithm, offset, span),
                                               transport::use_awaitable);
  if (outcome.error) {
    send_error(outcome.error);
    co_return;
  }
  send(rc::kFileStatus, outcome.hex);
}

}  // namespace gridftp::server
