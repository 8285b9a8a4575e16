// The live progress display: per file in flight and in total, bytes, rate, ETA and streams,
// redrawn a few times a second on a terminal (stderr) from a timer thread, with ANSI cursor
// movement. Lines printed through print_above() appear above it and stay; stop() erases it.
// Thread-safe: the engine's threads only update the board, never wait on the terminal.
#pragma once

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string_view>
#include <thread>

#include "client/report/progress_board.hpp"
#include "client/transfer/transfer_observer.hpp"

namespace gridftp::client::report {

class TerminalProgress : public TransferObserver {
 public:
  // Draws on `tty_fd`, which must be a terminal (isatty) and stay open; starts the timer thread.
  explicit TerminalProgress(int tty_fd,
                            Clock::duration redraw_period = std::chrono::milliseconds(250));
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;
  ~TerminalProgress() override;

  void file_started(const FileStart& start) override;
  void file_progress(std::size_t id, std::uint64_t bytes_so_far) override;
  void file_shape(std::size_t id, const FileShape& shape) override;
  void file_finished(const FileEnd& end) override;

  // Erases the display, writes `text` to `stream` (flushed), and draws the display below it.
  void print_above(std::string_view text, std::FILE* stream);
  // Stops the timer thread and erases the display. Idempotent.
  void stop();

 private:
  void redraw_loop();
  // Caller holds screen_mutex_.
  void draw_locked();
  void write_to_tty(const std::string& bytes);

  int tty_fd_;
  Clock::duration redraw_period_;

  std::mutex state_mutex_;  // guards board_ and stopping_
  std::condition_variable wake_;
  ProgressBoard board_;
  bool stopping_ = false;

  std::mutex screen_mutex_;  // guards the terminal and drawn_lines_; taken before state_mutex_
  std::size_t drawn_lines_ = 0;
  std::thread redraw_thread_;  // last: starts once everything above exists
};

}  // namespace gridftp::client::report
