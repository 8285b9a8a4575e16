// Where an upload's bytes go to disk: on a thread of the writer's own, started at its first write,
// never on the thread that runs the transfer's coroutine. Those are the control I/O threads (stream
// mode) and the data loops (MODE E), shared by every session's commands, sockets and timers; a slow
// or hung disk (a throttled volume, a stalled network file system) would hold them all. With the
// write on its own thread the disk holds only that thread: other sessions go on, this one still
// answers STAT and ABOR, and the stall watch still runs. One writer per data connection, so MODE E
// streams write in parallel as before.
//
// A receiver keeps one write in flight while it reads the next buffer (start, then finish before
// the buffer is used again): the copy from the socket and the copy into the page cache run on
// two cores at once, and each hand-off carries a whole block or buffer, not one read.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "protocol/core/result.hpp"
#include "server/storage/upload.hpp"
#include "transport/asio.hpp"
#include "transport/deadline.hpp"
#include "transport/task_group.hpp"

namespace gridftp::server {

class DiskWriter {
 public:
  // With a thread of its own, started at the first write.
  DiskWriter() = default;
  // On `shared`, the one disk thread of an upload whose MODE E streams all write the same file:
  // ext4 (like most file systems) takes the file's lock for each buffered write, so writers on
  // several threads only queue for it, spinning (measured: a 4 GB -p 4 put spent 15% of its
  // CPU in rwsem_spin_on_owner and took three times Globus's CPU), while one thread writes
  // them one after another.
  explicit DiskWriter(std::shared_ptr<transport::asio::thread_pool> shared)
      : shared_thread_(std::move(shared)) {}
  DiskWriter(const DiskWriter&) = delete;
  DiskWriter& operator=(const DiskWriter&) = delete;

  // upload.write_at(offset, bytes) on the writer's thread; the caller waits for it, so `bytes`
  // stays valid. `watch` is the connection's stall watch, left running: a write it outlasts has
  // held the connection past the data timeout (the watch closed it), and fails the transfer.
  // Errors: errno from the write; Condition::DiskStalled when `watch` expired meanwhile.
  transport::awaitable<Result<void>> write_at(storage::Upload& upload, std::uint64_t offset,
                                              std::span<const char> bytes,
                                              const transport::Deadline& watch);

  // Starts upload.write_at(offset, bytes) on the writer's thread and returns at once; `owner` is
  // the caller's executor, where finish() is awaited. `bytes` and `upload` must stay valid
  // until finish() returns. At most one write in flight: call finish() before the next start().
  // `written`, if set, is called on the writer's thread as soon as the write succeeded, so the
  // bytes count as received (restart markers) without waiting for the caller's next turn.
  using WrittenHook = std::function<void(std::uint64_t offset, std::size_t length)>;
  // `hold` is kept until the write has ended, whatever happens to the caller (the buffer that
  // `bytes` points into, say).
  void start(const transport::asio::any_io_executor& owner, storage::Upload& upload,
             std::uint64_t offset, std::span<const char> bytes, WrittenHook written = {},
             std::shared_ptr<const void> hold = {});
  // Waits for the started write (at once when none is); its outcome as write_at's.
  transport::awaitable<Result<void>> finish(const transport::Deadline& watch);

 private:
  std::optional<transport::asio::thread_pool> thread_;
  std::shared_ptr<transport::asio::thread_pool> shared_thread_;
  std::optional<transport::TaskGroup> in_flight_;
};

}  // namespace gridftp::server
