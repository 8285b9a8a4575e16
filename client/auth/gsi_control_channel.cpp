#include "client/auth/gsi_control_channel.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "transport/protected_lines.hpp"

namespace gridftp::client {
namespace {

constexpr std::size_t kReadChunkBytes = std::size_t{16} * 1024;

}  // namespace

GsiControlChannel::GsiControlChannel(std::unique_ptr<ControlChannel> inner)
    : LayeredControlChannel(std::move(inner)) {}

void GsiControlChannel::start_protection(security::TlsEngine engine) {
  engine_.emplace(std::move(engine));
}

Result<void> GsiControlChannel::write_line(std::string_view line) {
  if (!engine_) {
    return inner_->write_line(line);
  }
  std::string plain(line);
  plain += "\r\n";
  auto command = transport::protect_command(*engine_, plain);
  if (!command) {
    return make_error(command.error());
  }
  return inner_->write_line(*command);
}

Result<std::size_t> GsiControlChannel::read_some(std::span<char> buffer, Clock::duration timeout) {
  if (!engine_ && plain_.empty()) {
    return inner_->read_some(buffer, timeout);
  }
  const auto deadline = Clock::now() + timeout;
  std::array<char, kReadChunkBytes> chunk{};
  while (plain_.empty()) {
    const auto left = deadline - Clock::now();
    auto count =
        inner_->read_some(chunk, left > Clock::duration::zero() ? left : Clock::duration::zero());
    if (!count || *count == 0) {
      return count;
    }
    if (auto unwrapped = unwrap_received(std::string_view(chunk.data(), *count)); !unwrapped) {
      return make_error(unwrapped.error());
    }
  }
  const auto n = std::min(buffer.size(), plain_.size());
  std::memcpy(buffer.data(), plain_.data(), n);
  plain_.erase(0, n);
  return n;
}

Result<void> GsiControlChannel::unwrap_received(std::string_view bytes) {
  std::vector<protocol::control::ProtectedLine> lines;
  if (auto fed = reader_.feed(bytes, lines); !fed) {
    return fed;
  }
  for (const auto& line : lines) {
    if (line.kind == protocol::control::ProtectedLine::Kind::Clear) {
      plain_ += line.bytes;  // Globus sends some refusals (530) unprotected
      continue;
    }
    auto plain = transport::unprotect_token(*engine_, line.bytes);
    if (!plain) {
      return make_error(plain.error());
    }
    plain_ += *plain;
  }
  return {};
}

}  // namespace gridftp::client
