#include "server/session/reply_queue.hpp"

#include <algorithm>
#include <iterator>

namespace gridftp::server {

bool ReplyQueue::push(std::string bytes) {
  backlog_ += bytes.size();
  pending_.push_back(std::move(bytes));
  return !writing_;
}

bool ReplyQueue::try_begin_writing() {
  if (writing_) return false;
  writing_ = true;
  return true;
}

void ReplyQueue::take_batch(std::vector<std::string>& batch) {
  batch.assign(std::make_move_iterator(pending_.begin()), std::make_move_iterator(pending_.end()));
  pending_.clear();
}

void ReplyQueue::written(std::size_t bytes) { backlog_ -= std::min(bytes, backlog_); }

bool ReplyQueue::close_when_drained() {
  closing_ = true;
  return !writing_;
}

}  // namespace gridftp::server
