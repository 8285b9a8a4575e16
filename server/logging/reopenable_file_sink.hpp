// A log file that can be opened again at its path: after logrotate renames it away, SIGHUP makes
// the server write a new file where the config says (packaging/gridftpd.logrotate). spdlog's own
// basic_file_sink cannot reopen.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include <spdlog/details/file_helper.h>
#include <spdlog/sinks/base_sink.h>

namespace gridftp::server {

class ReopenableFileSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // Opens `path` for appending (made absolute first, so a later chdir cannot move the file).
  // Throws spdlog::spdlog_ex naming the file when it cannot be opened.
  explicit ReopenableFileSink(const std::filesystem::path& path);

  // Opens the file at the path again and writes there from now on. A file that cannot be
  // opened leaves the old one in use (nothing is lost) and returns false with `error` set.
  bool reopen(std::string& error);
  const std::filesystem::path& path() const { return path_; }

 protected:
  void sink_it_(const spdlog::details::log_msg& message) override;
  void flush_() override;

 private:
  std::filesystem::path path_;
  std::unique_ptr<spdlog::details::file_helper> file_;
};

}  // namespace gridftp::server
