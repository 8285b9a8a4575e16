#include "protocol/checksum/in_order_feed.hpp"

namespace gridftp::protocol::checksum {

bool InOrderFeed::accept(std::uint64_t offset, std::uint64_t length) {
  if (given_up_) return false;
  if (length == 0) return true;
  if (offset != fed_bytes_ || offset + length < offset) {
    given_up_ = true;
    return false;
  }
  fed_bytes_ += length;
  return true;
}

}  // namespace gridftp::protocol::checksum
