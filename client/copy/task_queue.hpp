// The files waiting for a copy worker: filled by the planner while the workers already drain it,
// closed when planning ends. Several files can be taken at once for -pp. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <vector>

#include "client/copy/copy_task.hpp"

namespace gridftp::client {

struct QueuedTask {
  std::size_t id = 0;  // the observer's file id
  CopyTask task;
};

class TaskQueue {
 public:
  void push(QueuedTask task) {
    {
      std::lock_guard lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    changed_.notify_one();
  }
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    changed_.notify_all();
  }
  // Waits for work; returns up to `most` tasks (more than one only while `batchable(first, next)`
  // holds for each next one), or none once the queue is closed and empty.
  template <typename Predicate>
  std::vector<QueuedTask> take(std::size_t most, Predicate batchable) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return closed_ || !tasks_.empty(); });
    std::vector<QueuedTask> out;
    while (!tasks_.empty() && out.size() < most &&
           (out.empty() || batchable(out.front().task, tasks_.front().task))) {
      out.push_back(std::move(tasks_.front()));
      tasks_.pop_front();
    }
    return out;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<QueuedTask> tasks_;
  bool closed_ = false;
};

}  // namespace gridftp::client
