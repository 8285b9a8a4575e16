#include "client/copy_job.hpp"

#include <filesystem>
#include <system_error>

#include "protocol/core/errors.hpp"

namespace gridftp::client {
namespace {

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string parent_directory(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

Url with_path(const Url& url, std::string path) {
  Url out = url;
  out.path = std::move(path);
  return out;
}

// Runs of spaces and line breaks as one space, so a multi-line reply fits one report line.
std::string collapse_whitespace(const std::string& text) {
  std::string out;
  bool in_space = false;
  for (const char c : text) {
    const bool space = c == ' ' || c == '\n' || c == '\r' || c == '\t';
    if (space && !in_space && !out.empty()) {
      out += ' ';
    } else if (!space) {
      out += c;
    }
    in_space = space;
  }
  if (!out.empty() && out.back() == ' ') {
    out.pop_back();
  }
  return out;
}

std::string session_key(const Url& url) {
  return (url.has_user ? url.user + '@' : std::string()) + url.origin();
}

Result<std::vector<ListingEntry>> list_local(const std::string& directory) {
  std::error_code ec;
  std::vector<ListingEntry> entries;
  for (std::filesystem::directory_iterator it(directory, ec), end; !ec && it != end;
       it.increment(ec)) {
    ListingEntry entry;
    entry.name = it->path().filename().string();
    entry.is_directory = it->is_directory(ec);
    entries.push_back(std::move(entry));
  }
  if (ec) {
    return make_error(ec);
  }
  return entries;
}

}  // namespace

CopyJob::CopyJob(CopyOptions options, std::shared_ptr<spdlog::logger> log)
    : options_(std::move(options)), log_(std::move(log)) {}

Result<TransferStats> CopyJob::copy(const Url& source, const Url& dest) {
  failure_detail_.clear();
  for (auto& [key, slot] : sessions_) {
    slot.session->control().clear_failure();
  }
  Result<TransferStats> result = TransferStats{};
  if (source.is_directory() && !options_.recursive) {
    failure_detail_ = "the source is a directory; use -r to copy directories";
    result = make_error(make_error_code(protocol::Errc::BadArgument));
  } else if (source.is_directory()) {
    result = copy_tree(source, dest);
  } else {
    result = copy_file(source, dest);
  }
  if (!result) {
    record_failure(result.error());
  }
  return result;
}

Result<std::vector<ListingEntry>> CopyJob::list(const Url& url) {
  failure_detail_.clear();
  auto entries = list_any(url, Role::Source);
  if (!entries) {
    record_failure(entries.error());
  }
  return entries;
}

Result<Session*> CopyJob::session_for(const Url& url, Role role) {
  const auto key = std::make_pair(session_key(url), role);
  if (auto found = sessions_.find(key); found != sessions_.end()) {
    return found->second.session.get();
  }
  if (url.scheme == Scheme::Ftps) {
    failure_detail_ = "ftps:// needs FTPS (AUTH TLS), which gridcp does not support yet";
    return make_error(make_error_code(protocol::Errc::BadArgument));
  }
  std::shared_ptr<const GsiCredentials> gsi;
  if (url.scheme == Scheme::GsiFtp) {
    auto loaded = gsi_credentials();
    if (!loaded) {
      return make_error(loaded.error());
    }
    gsi = std::move(*loaded);
  }
  // Third-party runs hold two sessions to one server; the role tells their dialogues apart.
  const auto label = (role == Role::Source ? "src " : "dst ") + url.origin();
  auto io = std::make_unique<transport::asio::io_context>();
  auto session = Session::connect(*io, url, label, options_.session, log_, std::move(gsi));
  if (!session) {
    failure_detail_ = "cannot connect to " + url.origin();
    return make_error(session.error());
  }
  if (auto logged_in = (*session)->log_in(url); !logged_in) {
    // The session is dropped here, so its refusal must be copied out now.
    failure_detail_ = "cannot log in to " + url.origin();
    const auto& rejection = (*session)->control().last_failure();
    if (!rejection.empty()) {
      failure_detail_ += ": " + rejection;
    }
    if (const auto& why = (*session)->login_failure_detail(); !why.empty()) {
      failure_detail_ += "\n  " + why;
    }
    return make_error(logged_in.error());
  }
  auto* raw = session->get();
  sessions_.emplace(key, SessionSlot{std::move(io), std::move(*session)});
  return raw;
}

Result<std::shared_ptr<const GsiCredentials>> CopyJob::gsi_credentials() {
  if (!gsi_) {
    auto loaded = GsiCredentials::load_from_environment(failure_detail_);
    if (!loaded) {
      return make_error(loaded.error());
    }
    gsi_ = std::move(*loaded);
  }
  return gsi_;
}

Result<TransferStats> CopyJob::copy_file(const Url& source, const Url& dest_given) {
  Url dest = dest_given;
  if (dest.is_directory()) {
    dest.path += base_name(source.path);
  }
  if (observer_ == nullptr) {
    return transfer_file(source, dest, options_.transfer);
  }
  const auto id = next_file_id_++;
  const auto started = Clock::now();
  observer_->file_started(FileStart{id, display_url(source), display_url(dest),
                                    expected_bytes(source),
                                    options_.transfer.parallelism.value_or(1)});
  TransferOptions transfer = options_.transfer;
  transfer.on_progress = [this, id, also = options_.transfer.on_progress](std::uint64_t bytes) {
    observer_->file_progress(id, bytes);
    if (also) {
      also(bytes);
    }
  };
  auto stats = transfer_file(source, dest, transfer);
  FileEnd end{id, FileResult::Copied, 0, Clock::now() - started, 1, {}};
  if (stats) {
    end.bytes = stats->bytes;
    end.elapsed = stats->elapsed;
  } else {
    end.result = FileResult::Failed;
    // What print_failure shows later, on one line: the error, then why (the server's reply).
    end.error = "copying " + display_url(source) + " to " + display_url(dest) + ": " +
                stats.error().message();
    for (const auto& why : {failure_detail_, server_refusals()}) {
      if (!why.empty()) {
        end.error += ": " + collapse_whitespace(why);
      }
    }
  }
  observer_->file_finished(end);
  return stats;
}

std::optional<std::uint64_t> CopyJob::expected_bytes(const Url& source) {
  const auto& range = options_.transfer.range;
  if (range.length) {
    return range.length;  // a source shorter than the window sends less; the ETA then ends early
  }
  std::optional<std::uint64_t> size;
  if (!source.is_remote()) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(source.path, ec)) {
      const auto bytes = std::filesystem::file_size(source.path, ec);
      size = ec ? std::nullopt : std::optional<std::uint64_t>(bytes);
    }
  } else if (options_.ask_source_size) {
    auto session = session_for(source, Role::Source);
    if (session && (*session)->has_feature("SIZE")) {
      auto answer = (*session)->size(source.path);
      size = answer ? *answer : std::nullopt;
      // A refused SIZE is no failure of the copy; the transfer itself will say what is wrong.
      (*session)->control().clear_failure();
    }
  }
  if (!size) {
    return std::nullopt;
  }
  const auto offset = range.offset.value_or(0);
  return *size > offset ? *size - offset : 0;
}

Result<TransferStats> CopyJob::transfer_file(const Url& source, const Url& dest,
                                             const TransferOptions& transfer) {
  if (options_.create_dest) {
    if (auto made = make_dest_directory(dest, parent_directory(dest.path)); !made) {
      return make_error(made.error());
    }
  }
  Result<TransferStats> stats = TransferStats{};
  if (!source.is_remote() && !dest.is_remote()) {
    stats = copy_local_file(source.path, dest.path);
  } else if (!dest.is_remote()) {
    auto session = session_for(source, Role::Source);
    stats = session ? get_file(**session, source.path, dest.path, transfer) : make_error(session.error());
  } else if (!source.is_remote()) {
    auto session = session_for(dest, Role::Dest);
    stats = session ? put_file(**session, source.path, dest.path, transfer) : make_error(session.error());
  } else {
    auto from = session_for(source, Role::Source);
    auto to = from ? session_for(dest, Role::Dest) : make_error(from.error());
    stats = to ? third_party_copy(**from, source.path, **to, dest.path, transfer) : make_error(to.error());
  }
  if (stats && on_file_done_) {
    on_file_done_(source, dest, *stats);
  }
  return stats;
}

Result<TransferStats> CopyJob::copy_tree(const Url& source, const Url& dest_given) {
  Url dest = dest_given;
  if (!dest.is_directory()) {
    dest.path += '/';
  }
  if (auto made = make_dest_directory(dest, dest.path); !made) {
    return make_error(made.error());
  }
  auto entries = list_any(source, Role::Source);
  if (!entries) {
    return make_error(entries.error());
  }
  TransferStats total;
  for (const auto& entry : *entries) {
    const auto suffix = entry.is_directory ? entry.name + '/' : entry.name;
    const auto child_source = with_path(source, source.path + suffix);
    const auto child_dest = with_path(dest, dest.path + suffix);
    auto stats = entry.is_directory ? copy_tree(child_source, child_dest)
                                    : copy_file(child_source, child_dest);
    if (!stats) {
      return stats;
    }
    total.bytes += stats->bytes;
    total.elapsed += stats->elapsed;
  }
  return total;
}

Result<std::vector<ListingEntry>> CopyJob::list_any(const Url& url, Role role) {
  if (!url.is_remote()) {
    return list_local(url.path);
  }
  auto session = session_for(url, role);
  if (!session) {
    return make_error(session.error());
  }
  return list_directory(**session, url.path, options_.transfer.data_security);
}

Result<void> CopyJob::make_dest_directory(const Url& dest, const std::string& directory) {
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
  auto session = session_for(dest, Role::Dest);
  if (!session) {
    return make_error(session.error());
  }
  return (*session)->make_directories(directory);
}

std::string CopyJob::server_refusals() const {
  std::string text;
  for (const auto& [key, slot] : sessions_) {
    const auto& rejection = slot.session->control().last_failure();
    if (!rejection.empty()) {
      text += (text.empty() ? "" : "\n  ") + slot.session->control().label() + " replied to " +
              rejection;
    }
  }
  return text;
}

void CopyJob::record_failure(std::error_code error) {
  if (const auto refusals = server_refusals(); !refusals.empty()) {
    failure_detail_ += (failure_detail_.empty() ? "" : "\n  ") + refusals;
  }
  // After a failure a connection may be mid-transfer (third-party STOR still open) or out of
  // step; reconnecting is cheaper than reasoning about its state.
  if (error) {
    for (auto& [key, slot] : sessions_) {
      slot.session->control().channel().close();
    }
    sessions_.clear();
  }
}

void CopyJob::close_all() {
  for (auto& [key, slot] : sessions_) {
    slot.session->control().quit();
  }
  sessions_.clear();
}

}  // namespace gridftp::client
