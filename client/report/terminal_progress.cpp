#include "client/report/terminal_progress.hpp"

#include <algorithm>
#include <cerrno>

#include <sys/ioctl.h>
#include <unistd.h>

#include "client/report/progress_screen.hpp"
#include "client/report/terminal_frame.hpp"

namespace gridftp::client::report {
namespace {

constexpr std::size_t kDefaultColumns = 80;
constexpr std::size_t kDefaultRows = 24;
// Enough rows to follow -cc transfers, few enough to leave the scrolled-out lines readable.
constexpr std::size_t kMostFileRows = 8;

struct TerminalSize {
  std::size_t columns = kDefaultColumns;
  std::size_t rows = kDefaultRows;
};

TerminalSize terminal_size(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0 || size.ws_row == 0) {
    return {};
  }
  return {size.ws_col, size.ws_row};
}

}  // namespace

TerminalProgress::TerminalProgress(int tty_fd, Clock::duration redraw_period)
    : tty_fd_(tty_fd),
      redraw_period_(redraw_period),
      board_(Clock::now()),
      redraw_thread_([this] { redraw_loop(); }) {}

TerminalProgress::~TerminalProgress() { stop(); }

void TerminalProgress::file_started(const FileStart& start) {
  std::lock_guard lock(state_mutex_);
  board_.start(start, Clock::now());
}

void TerminalProgress::file_progress(std::size_t id, std::uint64_t bytes_so_far) {
  std::lock_guard lock(state_mutex_);
  board_.progress(id, bytes_so_far, Clock::now());
}

void TerminalProgress::file_shape(std::size_t id, const FileShape& shape) {
  std::lock_guard lock(state_mutex_);
  board_.reshape(id, shape);
}

void TerminalProgress::file_finished(const FileEnd& end) {
  std::lock_guard lock(state_mutex_);
  board_.finish(end, Clock::now());
}

void TerminalProgress::print_above(std::string_view text, std::FILE* stream) {
  std::lock_guard screen(screen_mutex_);
  write_to_tty(erase_frame(drawn_lines_));
  drawn_lines_ = 0;
  std::fwrite(text.data(), 1, text.size(), stream);
  std::fflush(stream);
  bool stopping = false;
  {
    std::lock_guard lock(state_mutex_);
    stopping = stopping_;
  }
  if (!stopping) {
    draw_locked();
  }
}

void TerminalProgress::stop() {
  {
    std::lock_guard lock(state_mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (redraw_thread_.joinable()) {
    redraw_thread_.join();
  }
  std::lock_guard screen(screen_mutex_);
  write_to_tty(erase_frame(drawn_lines_));
  drawn_lines_ = 0;
}

void TerminalProgress::redraw_loop() {
  for (;;) {
    {
      std::unique_lock lock(state_mutex_);
      if (wake_.wait_for(lock, redraw_period_, [this] { return stopping_; })) {
        return;
      }
    }
    std::lock_guard screen(screen_mutex_);
    draw_locked();
  }
}

void TerminalProgress::draw_locked() {
  ProgressSnapshot snapshot;
  {
    std::lock_guard lock(state_mutex_);
    snapshot = board_.snapshot(Clock::now());
  }
  if (snapshot.active.empty()) {
    // Between files (and while connecting) there is nothing to follow; the lines above suffice.
    write_to_tty(erase_frame(drawn_lines_));
    drawn_lines_ = 0;
    return;
  }
  const auto size = terminal_size(tty_fd_);
  // One column short of the width: a line that fills the last column would make some
  // terminals wrap, and the cursor-up count would no longer match.
  const auto width = std::max<std::size_t>(size.columns, 2) - 1;
  const auto rows = std::min(kMostFileRows, size.rows > 2 ? size.rows - 2 : 1);
  const auto lines = render_progress(snapshot, width, rows);
  write_to_tty(redraw_frame(drawn_lines_, lines));
  drawn_lines_ = lines.size();
}

void TerminalProgress::write_to_tty(const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const auto written = ::write(tty_fd_, bytes.data() + done, bytes.size() - done);
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (written <= 0) {
      return;  // a display that cannot be drawn is not worth failing a transfer for
    }
    done += static_cast<std::size_t>(written);
  }
}

}  // namespace gridftp::client::report
