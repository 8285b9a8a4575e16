#include "client/copy/file_worker.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "client/copy/third_party_pipeline.hpp"
#include "client/storage/checksum_check.hpp"
#include "client/storage/staged_file.hpp"

namespace gridftp::client {
namespace {

using Role = SessionPool::Role;

// Progress reports per file, at most this often (the observer contract: a few per second).
constexpr auto kProgressInterval = std::chrono::milliseconds(250);

// A checksum for -sync-level 3 comparisons; guc's default algorithm (docs/WIRE.md §1.5).
constexpr auto kSyncDigest = security::DigestAlgorithm::Md5;

enum class Kind { Local, Get, Put, ThirdParty };

Kind kind_of(const CopyTask& task) {
  if (!task.source.is_remote()) {
    return task.dest.is_remote() ? Kind::Put : Kind::Local;
  }
  return task.dest.is_remote() ? Kind::ThirdParty : Kind::Get;
}

std::string origin_key(const Url& url) {
  return (url.has_user ? url.user + '@' : std::string()) + url.origin();
}

// Throttles progress calls for one file to kProgressInterval.
class ProgressThrottle {
 public:
  ProgressThrottle(TransferObserver* observer, std::size_t id) : observer_(observer), id_(id) {}
  void operator()(std::uint64_t bytes) {
    const auto now = Clock::now();
    if (observer_ == nullptr || now - last_ < kProgressInterval) {
      return;
    }
    last_ = now;
    observer_->file_progress(id_, bytes);
  }

 private:
  TransferObserver* observer_;
  std::size_t id_;
  Clock::time_point last_{};
};

// What each file of a -pp batch holds: the plan's size where the listing gave one (-r), else the
// source's SIZE, asked for all the batch's files at once (-f pairs). A file's report needs it,
// since a pipelined transfer's 226 does not say how many bytes moved.
std::vector<std::optional<std::uint64_t>> batch_sizes(Session& source,
                                                      const std::vector<QueuedTask>& batch) {
  std::vector<std::optional<std::uint64_t>> sizes;
  std::vector<std::string> unknown;
  for (const auto& queued : batch) {
    sizes.push_back(queued.task.source_facts.size_bytes);
    if (!sizes.back()) {
      unknown.push_back(queued.task.source.path);
    }
  }
  if (unknown.empty() || !source.has_feature("SIZE")) {
    return sizes;
  }
  // A failure here shows again, with its reason, in the transfers that follow.
  const auto asked = source.sizes(unknown);
  if (!asked) {
    return sizes;
  }
  auto answer = asked->begin();
  for (auto& size : sizes) {
    if (!size) {
      size = *answer++;
    }
  }
  return sizes;
}

}  // namespace

FileWorker::FileWorker(const CopyOptions& options, std::shared_ptr<spdlog::logger> log,
                       std::shared_ptr<CredentialStore> credentials)
    : options_(options), sessions_(options.session, std::move(log), std::move(credentials)) {}

bool FileWorker::can_pipeline(const CopyOptions& options, const CopyTask& first,
                              const CopyTask& task) {
  const auto& transfer = options.transfer;
  return options.pipelining && kind_of(task) == Kind::ThirdParty && !transfer.range.is_partial() &&
         !transfer.verify_checksum && !task.copy_only_if_checksums_differ &&
         origin_key(task.source) == origin_key(first.source) &&
         origin_key(task.dest) == origin_key(first.dest) && !first.copy_only_if_checksums_differ;
}

namespace {

// What a file should amount to, for the progress display's percentage and ETA: the size the
// planner learnt (listing, -sync stat) or a local source's size, cut to the -off/-len window;
// -len alone when nothing else is known (e.g. -len N of /dev/zero). Nullopt: unknown.
std::optional<std::uint64_t> expected_bytes(const CopyTask& task, const RangeRequest& range) {
  auto size = task.source_facts.size_bytes;
  if (!size && !task.source.is_remote()) {
    std::error_code ec;
    const auto local = std::filesystem::file_size(task.source.path, ec);
    if (!ec) size = local;
  }
  const auto offset = range.offset.value_or(0);
  if (size) {
    const auto available = *size > offset ? *size - offset : 0;
    return range.length ? std::min(*range.length, available) : available;
  }
  return range.length;
}

}  // namespace

void FileWorker::report_start(const QueuedTask& queued) {
  if (options_.observer == nullptr) {
    return;
  }
  FileStart start;
  start.id = queued.id;
  start.source = display_url(queued.task.source);
  start.dest = display_url(queued.task.dest);
  start.size = expected_bytes(queued.task, options_.transfer.range);
  start.streams = options_.transfer.parallelism.value_or(1);
  options_.observer->file_started(start);
}

bool FileWorker::copy(const QueuedTask& queued, bool already_started) {
  const auto& task = queued.task;
  if (!already_started) {
    report_start(queued);
  }
  primed_ = false;  // any transfer below may set up other data connections
  const auto start = Clock::now();
  RestartState restart;
  restart.keep_partial = options_.restart.enabled;
  ProgressThrottle throttle(options_.observer, queued.id);
  FileEnd end;
  end.id = queued.id;
  end.attempts = 0;
  RetryCounter retries(options_.restart);
  for (;;) {
    ++end.attempts;
    sessions_.clear_failures();
    std::uint64_t bytes = 0;
    auto result = attempt(task, queued.id, restart, std::ref(throttle), bytes, end.udpx);
    end.bytes += bytes;
    if (result) {
      end.result = *result;
      break;
    }
    const auto detail = sessions_.failure_detail();
    const auto refusal = sessions_.refusal_code();
    sessions_.drop_all();
    const auto delay = retries.failed(result.error(), refusal, Clock::now());
    if (!delay) {
      end.result = FileResult::Failed;
      end.error = "copying " + display_url(task.source) + " to " + display_url(task.dest) + ": " +
                  result.error().message() + (detail.empty() ? "" : ": " + detail);
      if (restart.keep_partial && !task.dest.is_remote()) {
        std::remove(StagedFile::temporary_path_for(task.dest.path).c_str());
      }
      break;
    }
    std::this_thread::sleep_for(*delay);
    restart.resume = true;
  }
  end.elapsed = Clock::now() - start;
  if (options_.observer != nullptr) {
    options_.observer->file_finished(end);
  }
  return end.result != FileResult::Failed;
}

Result<bool> FileWorker::checksums_match(const CopyTask& task) {
  const auto digest_of = [&](const Url& url, Role role) -> Result<std::string> {
    if (!url.is_remote()) {
      return local_file_checksum(url.path, kSyncDigest, std::nullopt);
    }
    auto session = sessions_.session_for(url, role);
    if (!session) {
      return make_error(session.error());
    }
    return (*session)->checksum(kSyncDigest, url.path, std::nullopt);
  };
  auto source = digest_of(task.source, Role::Source);
  if (!source) {
    return make_error(source.error());
  }
  auto dest = digest_of(task.dest, Role::Dest);
  if (!dest) {
    return make_error(dest.error());
  }
  return *source == *dest;
}

Result<FileResult> FileWorker::attempt(const CopyTask& task, std::size_t queued_id,
                                       RestartState& restart,
                                       const std::function<void(std::uint64_t)>& on_progress,
                                       std::uint64_t& bytes, std::optional<NetworkFigures>& udpx) {
  if (task.copy_only_if_checksums_differ) {
    auto same = checksums_match(task);
    if (!same) {
      return make_error(same.error());
    }
    if (*same) {
      return FileResult::Skipped;
    }
  }
  TransferOptions transfer = options_.transfer;
  transfer.on_progress = on_progress;
  transfer.restart = options_.restart.enabled ? &restart : nullptr;
  if (options_.observer != nullptr) {
    transfer.on_shape = [observer = options_.observer, queued_id](const FileShape& shape) {
      observer->file_shape(queued_id, shape);
    };
    // Without a size the display shows bytes and rate only: the get asks the server (SIZE).
    transfer.ask_size =
        options_.learn_sizes && !expected_bytes(task, options_.transfer.range).has_value();
  }
  Result<TransferStats> stats = TransferStats{};
  switch (kind_of(task)) {
    case Kind::Local:
      stats = copy_local_file(task.source.path, task.dest.path);
      break;
    case Kind::Get: {
      auto session = sessions_.session_for(task.source, Role::Source);
      stats = session ? get_file(**session, task.source.path, task.dest.path, transfer)
                      : make_error(session.error());
      break;
    }
    case Kind::Put: {
      auto session = sessions_.session_for(task.dest, Role::Dest);
      stats = session ? put_file(**session, task.source.path, task.dest.path, transfer)
                      : make_error(session.error());
      break;
    }
    case Kind::ThirdParty: {
      auto from = sessions_.session_for(task.source, Role::Source);
      auto to = from ? sessions_.session_for(task.dest, Role::Dest) : make_error(from.error());
      stats = to ? third_party_copy(**from, task.source.path, **to, task.dest.path, transfer)
                 : make_error(to.error());
      break;
    }
  }
  if (!stats) {
    return make_error(stats.error());
  }
  bytes = stats->bytes;
  udpx = stats->udpx;
  return FileResult::Copied;
}

bool FileWorker::copy_pipelined(const std::vector<QueuedTask>& batch) {
  if (batch.size() == 1) {
    return copy(batch.front());
  }
  for (const auto& queued : batch) {
    report_start(queued);
  }
  const auto start = Clock::now();
  const auto& first = batch.front().task;
  sessions_.clear_failures();
  auto from = sessions_.session_for(first.source, Role::Source);
  auto to = from ? sessions_.session_for(first.dest, Role::Dest) : make_error(from.error());
  PipelineOutcome outcome;
  std::vector<std::optional<std::uint64_t>> sizes(batch.size());
  if (to) {
    std::vector<PipelinedFile> files;
    files.reserve(batch.size());
    for (const auto& queued : batch) {
      files.push_back(PipelinedFile{queued.task.source.path, queued.task.dest.path});
    }
    sizes = batch_sizes(**from, batch);
    const bool primed = primed_ && primed_generation_ == sessions_.generation();
    // MODE E (at least one stream) is what lets the data connections be reused.
    TransferOptions transfer = options_.transfer;
    transfer.parallelism = transfer.parallelism.value_or(1);
    std::vector<ProgressThrottle> throttles;
    throttles.reserve(batch.size());
    for (const auto& queued : batch) {
      throttles.emplace_back(options_.observer, queued.id);
    }
    outcome = run_third_party_pipeline(
        **from, **to, files, transfer, primed,
        [&throttles](std::size_t index, std::uint64_t bytes) { throttles[index](bytes); });
    primed_ = !outcome.error;
    primed_generation_ = sessions_.generation();
  }
  for (std::size_t index = 0; index < outcome.completed; ++index) {
    FileEnd end;
    end.id = batch[index].id;
    end.bytes = sizes[index].value_or(0);
    end.elapsed = outcome.finished_at[index] - start;
    if (options_.observer != nullptr) {
      options_.observer->file_finished(end);
    }
  }
  if (outcome.completed == batch.size()) {
    return true;
  }
  // The sessions are out of step; the rest go one by one, each with its own message and retries.
  sessions_.drop_all();
  primed_ = false;
  bool all_ok = true;
  for (std::size_t index = outcome.completed; index < batch.size(); ++index) {
    all_ok = copy(batch[index], true) && all_ok;
  }
  return all_ok;
}

}  // namespace gridftp::client
