// One -cc worker of the copy engine: its own sessions (SessionPool), copying one file at a time
// with -rst retries and resumes, or, under -pp, a batch of third-party files pipelined over one
// pair of sessions. Reports each file to the observer. Used from one thread only.
#pragma once

#include <memory>
#include <vector>

#include "client/copy/copy_engine.hpp"
#include "client/copy/copy_task.hpp"
#include "client/copy/task_queue.hpp"
#include "client/session/session_pool.hpp"

namespace gridftp::client {

class FileWorker {
 public:
  FileWorker(const CopyOptions& options, std::shared_ptr<spdlog::logger> log,
             std::shared_ptr<CredentialStore> credentials);

  // Copies one file (or skips it under -sync level 3 when the digests match), retrying as -rst
  // allows. Reports file_started unless `already_started`, then file_finished. True unless failed.
  bool copy(const QueuedTask& queued, bool already_started = false);
  // -pp: third-party files that share both servers (can_pipeline), pipelined; a file the pipeline
  // did not finish goes through copy(). True unless one failed.
  bool copy_pipelined(const std::vector<QueuedTask>& batch);
  // QUIT on every session.
  void finish() { sessions_.quit_all(); }

  // True when `options` allow pipelining `task` with `first` in one batch.
  static bool can_pipeline(const CopyOptions& options, const CopyTask& first, const CopyTask& task);

 private:
  // One try at `task`; `queued_id` names the file to the observer.
  Result<FileResult> attempt(const CopyTask& task, std::size_t queued_id, RestartState& restart,
                             const std::function<void(std::uint64_t)>& on_progress,
                             std::uint64_t& bytes, std::optional<NetworkFigures>& udpx);
  Result<bool> checksums_match(const CopyTask& task);
  void report_start(const QueuedTask& queued);

  const CopyOptions& options_;
  SessionPool sessions_;
  // The pipeline's cached data connections belong to this pair of sessions (compared by pool
  // generation, since a dropped session's address may be reused).
  std::uint64_t primed_generation_ = 0;
  bool primed_ = false;
};

}  // namespace gridftp::client
