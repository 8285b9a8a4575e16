#include "server/logging/reopenable_file_sink.hpp"

#include <spdlog/common.h>

namespace gridftp::server {
namespace {

std::unique_ptr<spdlog::details::file_helper> open_for_append(const std::filesystem::path& path) {
  auto file = std::make_unique<spdlog::details::file_helper>();
  file->open(path.string(), false);
  return file;
}

}  // namespace

ReopenableFileSink::ReopenableFileSink(const std::filesystem::path& path)
    : path_(std::filesystem::absolute(path)), file_(open_for_append(path_)) {}

bool ReopenableFileSink::reopen(std::string& error) {
  // Opened before the lock is taken and swapped under it: no line waits on the open, and a
  // failed open keeps the old file.
  std::unique_ptr<spdlog::details::file_helper> fresh;
  try {
    fresh = open_for_append(path_);
  } catch (const spdlog::spdlog_ex& failure) {
    error = failure.what();
    return false;
  }
  const std::lock_guard lock(mutex_);
  file_->flush();
  file_.swap(fresh);
  return true;
}

void ReopenableFileSink::sink_it_(const spdlog::details::log_msg& message) {
  spdlog::memory_buf_t formatted;
  formatter_->format(message, formatted);
  file_->write(formatted);
}

void ReopenableFileSink::flush_() { file_->flush(); }

}  // namespace gridftp::server
