// A zero-filled page of memory shared between the listener and its session processes: a memfd
// the listener makes and maps, handed to each session process as a descriptor (the spawn's dup2
// clears close-on-exec) and mapped there. Holds lock-free atomics only.
#pragma once

#include <cstddef>

#include "protocol/core/result.hpp"

namespace gridftp::server {

class SharedPage {
 public:
  // A new page of `bytes` named `name` (shown in /proc/PID/fd). Errors: errno from memfd_create,
  // ftruncate or mmap.
  static Result<SharedPage> create(const char* name, std::size_t bytes);
  // The page a parent handed over on `fd`, taken over (closed with the page). Errors: errno.
  static Result<SharedPage> attach(int fd, std::size_t bytes);

  SharedPage(SharedPage&& other) noexcept;
  SharedPage& operator=(SharedPage&&) = delete;
  SharedPage(const SharedPage&) = delete;
  SharedPage& operator=(const SharedPage&) = delete;
  ~SharedPage();

  int fd() const { return fd_; }
  void* data() const { return data_; }

 private:
  SharedPage(int fd, void* data, std::size_t bytes) : fd_(fd), data_(data), bytes_(bytes) {}
  int fd_;
  void* data_;
  std::size_t bytes_;
};

}  // namespace gridftp::server
