// A local file opened for reading as the source of a put or local copy. Reads are sequential
// (read) or positioned (read_at, safe from several threads at once: pread(2)).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "protocol/core/result.hpp"

namespace gridftp::client {

class LocalSource {
 public:
  // Errors: errno from open(2)/fstat(2); EISDIR for a directory.
  static Result<LocalSource> open(const std::string& path);

  LocalSource(LocalSource&& other) noexcept;
  LocalSource(const LocalSource&) = delete;
  LocalSource& operator=(const LocalSource&) = delete;
  LocalSource& operator=(LocalSource&&) = delete;
  ~LocalSource();

  // Reads the next bytes; 0 at end of file. Errors: errno from read(2).
  Result<std::size_t> read(std::span<char> buffer);
  // Fills all of `buffer` from `offset`. Errors: errno from pread(2); EIO when the file ends
  // first (it shrank under us).
  Result<void> read_at(std::uint64_t offset, std::span<char> buffer) const;
  std::uint64_t size_bytes() const { return size_bytes_; }
  // The descriptor, for sendfile(2) of a regular file; -1 for anything else (a pipe, a device).
  int splice_descriptor() const { return regular_ ? fd_ : -1; }

 private:
  LocalSource(int fd, std::uint64_t size_bytes, bool regular)
      : fd_(fd), size_bytes_(size_bytes), regular_(regular) {}
  int fd_;
  std::uint64_t size_bytes_;
  bool regular_;
};

}  // namespace gridftp::client
