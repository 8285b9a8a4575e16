// MODE E connections the last transfer left idle at EOD, reusable by the next transfer in the
// same direction (GFD.20 connection caching; reply 125) until PASV/PORT/SPAS/SPOR, MODE, DCAU,
// PROT or a failure drops them. Not the running transfer's connections: those the session holds.
#pragma once

#include <cstddef>
#include <vector>

#include "server/data/mode_e_streams.hpp"

namespace gridftp::server {

class StreamCache {
 public:
  enum class Direction { None, Sending, Receiving };

  // The reuse rule: in MODE E, with no new address given since (PASV/PORT leave the data channel
  // configured), and with connections cached by a transfer in the same direction.
  bool can_reuse(bool sending, bool mode_e, bool channel_configured) const;
  bool is_empty() const { return streams_.empty(); }
  std::size_t size() const { return streams_.size(); }
  // Closes the cached connections and forgets them. Runs on the session strand: cached
  // connections have no coroutine on their data loops any more.
  void drop();
  // Hands the cached connections to a transfer; the cache is then empty, with no direction.
  std::vector<DataStreamPtr> take();
  // Keeps a finished transfer's connections for the next transfer in `direction`.
  void keep(std::vector<DataStreamPtr> streams, Direction direction);

  // Connections the last MODE E transfer used, for its transfer-log line.
  std::size_t streams_used() const { return streams_used_; }
  void set_streams_used(std::size_t count) { streams_used_ = count; }

 private:
  std::vector<DataStreamPtr> streams_;
  Direction direction_ = Direction::None;
  std::size_t streams_used_ = 0;
};

}  // namespace gridftp::server
