#include "client/copy/copy_engine.hpp"

#include <atomic>
#include <filesystem>
#include <thread>

#include <sys/stat.h>

#include "client/copy/copy_task.hpp"
#include "client/copy/file_worker.hpp"
#include "client/copy/task_queue.hpp"
#include "client/session/session_pool.hpp"
#include "client/storage/batch_receiver.hpp"
#include "client/storage/local_tree_reader.hpp"
#include "client/transfer/batch_get.hpp"
#include "client/transfer/batch_put.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::client {
namespace {

using Role = SessionPool::Role;

// -pp sends this many files' commands before reading their replies. Each batch drains before the
// next is sent, so a deeper window wastes fewer round trips (16 measured slower than 64 on
// loopback); after a failure at most this many files are redone one by one.
constexpr std::size_t kPipelineDepth = 64;

Result<std::vector<protocol::listing::ListingEntry>> list_local(const std::string& directory) {
  std::error_code ec;
  std::vector<protocol::listing::ListingEntry> entries;
  for (std::filesystem::directory_iterator it(directory, ec), end; !ec && it != end;
       it.increment(ec)) {
    protocol::listing::ListingEntry entry;
    entry.name = it->path().filename().string();
    struct stat info {};
    if (::stat(it->path().c_str(), &info) != 0) {
      continue;  // vanished or unreadable: the copy of it would fail anyway
    }
    entry.is_directory = S_ISDIR(info.st_mode);
    entry.size_bytes = static_cast<std::uint64_t>(info.st_size);
    entry.modify_seconds = info.st_mtim.tv_sec;
    entries.push_back(std::move(entry));
  }
  if (ec) {
    return make_error(ec);
  }
  return entries;
}

std::optional<protocol::listing::ListingEntry> stat_local(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return std::nullopt;
  }
  protocol::listing::ListingEntry entry;
  entry.is_directory = S_ISDIR(info.st_mode);
  entry.size_bytes = static_cast<std::uint64_t>(info.st_size);
  entry.modify_seconds = info.st_mtim.tv_sec;
  return entry;
}

std::string parent_directory(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

FileFacts facts_of(const protocol::listing::ListingEntry& entry) {
  return FileFacts{entry.size_bytes, entry.modify_seconds};
}

}  // namespace

class CopyEngine::Impl {
 public:
  Impl(CopyOptions options, std::shared_ptr<spdlog::logger> log)
      : options_(std::move(options)),
        log_(std::move(log)),
        credentials_(std::make_shared<CredentialStore>()),
        planner_(options_.session, log_, credentials_) {}

  bool run(const std::vector<UrlPair>& pairs);
  Result<std::vector<protocol::listing::ListingEntry>> list(const Url& url, std::string& detail);

 private:
  void plan_pair(const UrlPair& pair);
  void plan_file(CopyTask task);
  void plan_tree(const DirectoryPair& top);
  // A tree in one batch transfer where both remote ends list BATCH (docs/WIRE.md §7): a get
  // with -rst resuming at its restart point, a put or a third-party copy sent again whole;
  // false when batch mode does not apply (the tree is then planned file by file).
  bool copy_tree_in_batch(const DirectoryPair& top);
  enum class BatchKind { None, Get, Put, ThirdParty };
  BatchKind batch_kind(const DirectoryPair& top);
  bool has_batch(const Url& url, Role role);
  void batch_get_tree(const DirectoryPair& top);
  // One try of a put or third-party batch; reports what it copied.
  Result<void> batch_send_tree(const DirectoryPair& top, BatchKind kind,
                               std::vector<ReferredFile>& referred);
  // Runs `attempt` as -rst allows; reports the tree failed with the last error otherwise.
  void retry_batch(const DirectoryPair& top, const std::function<Result<void>()>& attempt,
                   const std::function<void(const std::string&)>& on_give_up);
  // The files a batch left out for their size go to the -cc workers one by one.
  void enqueue_referred(const DirectoryPair& top, const std::vector<ReferredFile>& referred);
  void report_copied(const std::string& source, const std::string& dest, std::uint64_t bytes,
                     Clock::duration elapsed);
  void enqueue(CopyTask task, const std::optional<protocol::listing::ListingEntry>& dest_entry);
  // Reports a file (or directory) the planner could not turn into copies.
  void fail(const std::string& source, const std::string& dest, const std::string& message);
  void skip(const CopyTask& task);
  // A file the planner settled itself: one start and one end for the observer, under a new id.
  void report(FileStart start, FileEnd end);
  std::size_t next_id() { return ids_++; }
  std::string planner_detail(std::error_code error);

  Result<std::vector<protocol::listing::ListingEntry>> list_any(const Url& url, Role role);
  Result<std::optional<protocol::listing::ListingEntry>> stat_any(const Url& url, Role role);
  Result<void> make_directory(const Url& dest, const std::string& directory);
  void work();

  CopyOptions options_;
  std::shared_ptr<spdlog::logger> log_;
  std::shared_ptr<CredentialStore> credentials_;
  SessionPool planner_;  // listings, MLST and MKD; used by the planning thread only
  TaskQueue queue_;
  std::size_t ids_ = 0;
  std::atomic<bool> all_ok_{true};
};

bool CopyEngine::Impl::run(const std::vector<UrlPair>& pairs) {
  std::vector<std::thread> workers;
  const unsigned count = std::max(1U, options_.concurrency);
  for (unsigned i = 0; i < count; ++i) {
    workers.emplace_back([this] { work(); });
  }
  for (const auto& pair : pairs) {
    plan_pair(pair);
  }
  queue_.close();
  for (auto& worker : workers) {
    worker.join();
  }
  planner_.quit_all();
  return all_ok_;
}

void CopyEngine::Impl::work() {
  FileWorker worker(options_, log_, credentials_);
  const std::size_t most = options_.pipelining ? kPipelineDepth : 1;
  for (;;) {
    auto batch = queue_.take(most, [this](const CopyTask& first, const CopyTask& next) {
      return FileWorker::can_pipeline(options_, first, next);
    });
    if (batch.empty()) {
      break;
    }
    const bool ok = batch.size() == 1 && !FileWorker::can_pipeline(options_, batch.front().task,
                                                                   batch.front().task)
                        ? worker.copy(batch.front())
                        : worker.copy_pipelined(batch);
    if (!ok) {
      all_ok_ = false;
    }
  }
  worker.finish();
}

void CopyEngine::Impl::fail(const std::string& source, const std::string& dest,
                            const std::string& message) {
  all_ok_ = false;
  FileEnd end;
  end.result = FileResult::Failed;
  end.error = message;
  report(FileStart{0, source, dest, std::nullopt, 1}, std::move(end));
}

void CopyEngine::Impl::skip(const CopyTask& task) {
  FileEnd end;
  end.result = FileResult::Skipped;
  report(FileStart{0, display_url(task.source), display_url(task.dest),
                   task.source_facts.size_bytes, 1},
         std::move(end));
}

void CopyEngine::Impl::report(FileStart start, FileEnd end) {
  if (options_.observer == nullptr) {
    return;
  }
  start.id = end.id = next_id();
  options_.observer->file_started(start);
  options_.observer->file_finished(end);
}

std::string CopyEngine::Impl::planner_detail(std::error_code error) {
  auto detail = planner_.failure_detail();
  planner_.clear_failures();
  // A refused command may leave a listing's data connection half-open: start afresh.
  planner_.drop_all();
  return error.message() + (detail.empty() ? "" : ": " + detail);
}

void CopyEngine::Impl::plan_pair(const UrlPair& pair) {
  auto source = parse_url(pair.source);
  auto dest = parse_url(pair.dest);
  if (!source || !dest) {
    const auto& bad = source ? pair.dest : pair.source;
    fail(pair.source, pair.dest,
         "copying " + pair.source + " to " + pair.dest + ": bad URL: " + bad);
    return;
  }
  if (source->is_directory() && !options_.recursive) {
    fail(pair.source, pair.dest,
         "copying " + pair.source + ": the source is a directory; use -r to copy directories");
    return;
  }
  if (source->is_directory()) {
    const DirectoryPair top{*source, as_directory(*dest)};
    if (!copy_tree_in_batch(top)) plan_tree(top);
    return;
  }
  CopyTask task;
  task.source = *source;
  task.dest = dest_for_file(*source, *dest);
  plan_file(std::move(task));
}

void CopyEngine::Impl::plan_file(CopyTask task) {
  const auto failed = [&](const std::string& what, std::error_code error) {
    fail(display_url(task.source), display_url(task.dest),
         "copying " + display_url(task.source) + " to " + display_url(task.dest) + ": " + what +
             planner_detail(error));
  };
  if (options_.create_dest) {
    if (auto made = make_directory(task.dest, parent_directory(task.dest.path)); !made) {
      failed("cannot create the destination directory: ", made.error());
      return;
    }
  }
  if (!options_.sync.enabled) {
    enqueue(std::move(task), std::nullopt);
    return;
  }
  auto source_entry = stat_any(task.source, Role::Source);
  auto dest_entry = source_entry ? stat_any(task.dest, Role::Dest) : source_entry;
  if (!dest_entry) {
    failed("", dest_entry.error());
    return;
  }
  if (*source_entry) {
    task.source_facts = facts_of(**source_entry);
  }
  enqueue(std::move(task), *dest_entry);
}

void CopyEngine::Impl::enqueue(CopyTask task,
                               const std::optional<protocol::listing::ListingEntry>& dest_entry) {
  if (options_.sync.enabled) {
    const auto dest_facts =
        dest_entry ? std::optional<FileFacts>(facts_of(*dest_entry)) : std::nullopt;
    switch (decide_sync(options_.sync.level, task.source_facts, dest_facts)) {
      case SyncVerdict::Skip:
        skip(task);
        return;
      case SyncVerdict::CompareChecksums:
        task.copy_only_if_checksums_differ = true;
        break;
      case SyncVerdict::Copy:
        break;
    }
  }
  queue_.push(QueuedTask{next_id(), std::move(task)});
}

void CopyEngine::Impl::plan_tree(const DirectoryPair& top) {
  std::vector<DirectoryPair> pending{top};
  while (!pending.empty()) {
    const auto directory = pending.back();
    pending.pop_back();
    const auto source_text = display_url(directory.source);
    const auto dest_text = display_url(directory.dest);
    if (auto made = make_directory(directory.dest, directory.dest.path); !made) {
      fail(source_text, dest_text,
           "copying " + source_text + " to " + dest_text +
               ": cannot create the directory: " + planner_detail(made.error()));
      continue;
    }
    auto entries = list_any(directory.source, Role::Source);
    if (!entries) {
      fail(source_text, dest_text,
           "listing " + source_text + ": " + planner_detail(entries.error()));
      continue;
    }
    auto level = plan_tree_level(directory, *entries);
    // -sync compares against the destination directory's listing: one MLSD, not one MLST a file.
    std::map<std::string, protocol::listing::ListingEntry> existing;
    if (options_.sync.enabled && !level.files.empty()) {
      if (auto dest_entries = list_any(directory.dest, Role::Dest)) {
        for (auto& entry : *dest_entries) {
          existing.emplace(entry.name, std::move(entry));
        }
      } else {
        planner_detail(dest_entries.error());  // a missing destination: everything is copied
      }
    }
    for (auto& task : level.files) {
      const auto name = task.dest.path.substr(directory.dest.path.size());
      const auto found = existing.find(name);
      enqueue(std::move(task), found == existing.end() || found->second.is_directory
                                   ? std::nullopt
                                   : std::optional<protocol::listing::ListingEntry>(found->second));
    }
    // Depth-first, in listing order.
    pending.insert(pending.end(), level.directories.rbegin(), level.directories.rend());
  }
}

bool CopyEngine::Impl::has_batch(const Url& url, Role role) {
  auto session = planner_.session_for(url, role);
  if (!session) {
    planner_detail(session.error());
    return false;  // the file-by-file plan reports it
  }
  return (*session)->has_feature("BATCH");
}

CopyEngine::Impl::BatchKind CopyEngine::Impl::batch_kind(const DirectoryPair& top) {
  // -sync compares file by file, -off/-len shape single transfers, and -verify-checksum names an
  // algorithm of its own: those keep the file-by-file plan. -udp sends the batch as one UDPX
  // stream (docs/UDPX.md §1.9).
  const bool from_remote = top.source.is_remote();
  const bool to_remote = top.dest.is_remote();
  if (!options_.batch || (!from_remote && !to_remote) || options_.sync.enabled ||
      options_.transfer.range.is_partial() || options_.transfer.verify_checksum) {
    return BatchKind::None;
  }
  if ((from_remote && !has_batch(top.source, Role::Source)) ||
      (to_remote && !has_batch(top.dest, Role::Dest))) {
    return BatchKind::None;
  }
  if (!from_remote) return BatchKind::Put;
  return to_remote ? BatchKind::ThirdParty : BatchKind::Get;
}

bool CopyEngine::Impl::copy_tree_in_batch(const DirectoryPair& top) {
  const auto kind = batch_kind(top);
  if (kind == BatchKind::None) return false;
  if (kind == BatchKind::Get) {
    batch_get_tree(top);
    return true;
  }
  if (auto made = make_directory(top.dest, top.dest.path); !made) {
    fail(display_url(top.source), display_url(top.dest),
         "copying " + display_url(top.source) + " to " + display_url(top.dest) +
             ": cannot create the directory: " + planner_detail(made.error()));
    return true;
  }
  std::vector<ReferredFile> referred;
  retry_batch(
      top, [&] { return batch_send_tree(top, kind, referred); }, [](const std::string&) {});
  enqueue_referred(top, referred);
  return true;
}

void CopyEngine::Impl::enqueue_referred(const DirectoryPair& top,
                                        const std::vector<ReferredFile>& referred) {
  for (const auto& file : referred) {
    CopyTask task;
    task.source = top.source;
    task.source.path += file.path;
    task.dest = top.dest;
    task.dest.path += file.path;
    task.source_facts.size_bytes = file.size;
    enqueue(std::move(task), std::nullopt);
  }
}

void CopyEngine::Impl::retry_batch(const DirectoryPair& top,
                                   const std::function<Result<void>()>& attempt,
                                   const std::function<void(const std::string&)>& on_give_up) {
  RetryCounter retries(options_.restart);
  for (;;) {
    planner_.clear_failures();
    auto done = attempt();
    if (done) return;
    const auto refusal = planner_.refusal_code();
    const auto message = planner_detail(done.error());  // drops the sessions too
    const auto delay = retries.failed(done.error(), refusal, Clock::now());
    if (!delay) {
      on_give_up(message);
      const auto source = display_url(top.source);
      fail(source, display_url(top.dest), "copying " + source + " in one batch: " + message);
      return;
    }
    std::this_thread::sleep_for(*delay);
  }
}

void CopyEngine::Impl::report_copied(const std::string& source, const std::string& dest,
                                     std::uint64_t bytes, Clock::duration elapsed) {
  FileEnd end;
  end.bytes = bytes;
  end.elapsed = elapsed;
  report(FileStart{0, source, dest, bytes, 1}, std::move(end));
}

void CopyEngine::Impl::batch_get_tree(const DirectoryPair& top) {
  BatchReceiver receiver(top.dest.path, display_url(top.source), display_url(top.dest),
                         options_.observer, [this] { return next_id(); });
  retry_batch(
      top,
      [&]() -> Result<void> {
        auto session = planner_.session_for(top.source, Role::Source);
        if (!session) return make_error(session.error());
        auto done = batch_get(**session, top.source.path, options_.transfer, receiver);
        if (!done) receiver.interrupt();
        return done;
      },
      [&](const std::string& message) { receiver.give_up(message); });
  if (receiver.files_failed() > 0) all_ok_ = false;
  enqueue_referred(top, receiver.referred());
}

Result<void> CopyEngine::Impl::batch_send_tree(const DirectoryPair& top, BatchKind kind,
                                               std::vector<ReferredFile>& referred) {
  const auto started = Clock::now();
  const auto source_base = display_url(top.source);
  const auto dest_base = display_url(top.dest);
  auto dest = planner_.session_for(top.dest, Role::Dest);
  if (!dest) return make_error(dest.error());
  if (kind == BatchKind::ThirdParty) {
    auto source = planner_.session_for(top.source, Role::Source);
    if (!source) return make_error(source.error());
    auto stored =
        third_party_batch(**source, top.source.path, **dest, top.dest.path, options_.transfer);
    if (!stored) return make_error(stored.error());
    // The client sees no file of a third-party batch: the tree is one entry.
    report_copied(source_base, dest_base, stored->bytes, Clock::now() - started);
    return {};
  }
  LocalTreeReader reader(top.source.path);
  protocol::batch::BatchEncoder encoder(reader, batch_refer_above(options_.transfer));
  std::vector<ReferredFile> sent;
  referred.clear();
  encoder.refer_to([&](const std::string& path, std::uint64_t size) {
    referred.push_back(ReferredFile{path, size});
  });
  encoder.on_file_sent([&](const std::string& path, std::uint64_t size) {
    sent.push_back(ReferredFile{path, size});
  });
  // A local file we cannot read fails on its own, not the server's batch.
  std::vector<std::pair<std::string, std::string>> refused;
  encoder.refuse_to(
      [&](const std::string& path, const std::string& why) { refused.emplace_back(path, why); });
  if (auto done = batch_put(**dest, top.dest.path, options_.transfer, encoder); !done) {
    return done;
  }
  // Stored, all of them, once the server's 226 came; the time is the batch's.
  const auto elapsed = Clock::now() - started;
  for (const auto& file : sent) {
    report_copied(source_base + file.path, dest_base + file.path, file.size, elapsed);
  }
  for (const auto& [path, why] : refused) {
    fail(source_base + path, dest_base + path, "copying " + source_base + path + ": " + why);
  }
  return {};
}

Result<std::vector<protocol::listing::ListingEntry>> CopyEngine::Impl::list_any(const Url& url,
                                                                                Role role) {
  if (!url.is_remote()) {
    return list_local(url.path);
  }
  auto session = planner_.session_for(url, role);
  if (!session) {
    return make_error(session.error());
  }
  return list_directory(**session, url.path, options_.transfer.data_security);
}

Result<std::optional<protocol::listing::ListingEntry>> CopyEngine::Impl::stat_any(const Url& url,
                                                                                  Role role) {
  if (!url.is_remote()) {
    return stat_local(url.path);
  }
  auto session = planner_.session_for(url, role);
  if (!session) {
    return make_error(session.error());
  }
  return (*session)->stat(url.path);
}

Result<void> CopyEngine::Impl::make_directory(const Url& dest, const std::string& directory) {
  if (directory.empty() || directory == "/") {
    return {};
  }
  if (!dest.is_remote()) {
    std::error_code ec;
    std::filesystem::create_directories(directory, ec);
    if (ec) {
      return make_error(ec);
    }
    return {};
  }
  auto session = planner_.session_for(dest, Role::Dest);
  if (!session) {
    return make_error(session.error());
  }
  return (*session)->make_directories(directory);
}

Result<std::vector<protocol::listing::ListingEntry>> CopyEngine::Impl::list(const Url& url,
                                                                            std::string& detail) {
  auto entries = list_any(url, Role::Source);
  if (!entries) {
    detail = planner_.failure_detail();
  }
  planner_.quit_all();
  return entries;
}

CopyEngine::CopyEngine(CopyOptions options, std::shared_ptr<spdlog::logger> log)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(log))) {}

CopyEngine::~CopyEngine() = default;

bool CopyEngine::run(const std::vector<UrlPair>& pairs) { return impl_->run(pairs); }

Result<std::vector<protocol::listing::ListingEntry>> CopyEngine::list(const Url& url) {
  failure_detail_.clear();
  return impl_->list(url, failure_detail_);
}

}  // namespace gridftp::client
