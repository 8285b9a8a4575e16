#include "server/session/stream_cache.hpp"

#include <utility>

namespace gridftp::server {

bool StreamCache::can_reuse(bool sending, bool mode_e, bool channel_configured) const {
  if (!mode_e || channel_configured || streams_.empty()) return false;
  return direction_ == (sending ? Direction::Sending : Direction::Receiving);
}

void StreamCache::drop() {
  boost::system::error_code ignored;
  for (const auto& stream : streams_) stream->socket->close(ignored);
  streams_.clear();
  direction_ = Direction::None;
}

std::vector<DataStreamPtr> StreamCache::take() {
  direction_ = Direction::None;
  return std::exchange(streams_, {});
}

void StreamCache::keep(std::vector<DataStreamPtr> streams, Direction direction) {
  streams_ = std::move(streams);
  direction_ = direction;
}

}  // namespace gridftp::server
