#include "client/transfer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>
#include <vector>

#include "client/staged_file.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::client {
namespace {

// Large enough to keep a loopback stream busy, small enough to stay off the heap's slow path.
constexpr std::size_t kChunkBytes = 256 * 1024;
// A listing bigger than this is almost certainly not a listing; stop reading.
constexpr std::size_t kMaxListingBytes = 64 * 1024 * 1024;

Unexpected errno_error() { return make_error(std::error_code(errno, std::generic_category())); }

// An owned file descriptor for reading a local source file.
class LocalSource {
 public:
  static Result<LocalSource> open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return errno_error();
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
      const int error = S_ISDIR(info.st_mode) ? EISDIR : errno;
      ::close(fd);
      return make_error(std::error_code(error, std::generic_category()));
    }
    return LocalSource(fd, static_cast<std::uint64_t>(info.st_size));
  }
  LocalSource(LocalSource&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), size_bytes_(other.size_bytes_) {}
  LocalSource(const LocalSource&) = delete;
  LocalSource& operator=(const LocalSource&) = delete;
  LocalSource& operator=(LocalSource&&) = delete;
  ~LocalSource() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }

  // Returns 0 at end of file.
  Result<std::size_t> read(std::vector<char>& buffer) {
    for (;;) {
      const auto count = ::read(fd_, buffer.data(), buffer.size());
      if (count >= 0) {
        return static_cast<std::size_t>(count);
      }
      if (errno != EINTR) {
        return errno_error();
      }
    }
  }
  std::uint64_t size_bytes() const { return size_bytes_; }

 private:
  LocalSource(int fd, std::uint64_t size_bytes) : fd_(fd), size_bytes_(size_bytes) {}
  int fd_;
  std::uint64_t size_bytes_;
};

// Reads the data connection to its end into `sink(bytes)`; returns the byte count.
template <typename Sink>
Result<std::uint64_t> drain(DataConnection& data, Sink&& sink) {
  std::vector<char> buffer(kChunkBytes);
  std::uint64_t total = 0;
  for (;;) {
    auto count = data.read_some(buffer);
    if (!count) {
      return make_error(count.error());
    }
    if (*count == 0) {
      return total;
    }
    if (auto written = sink(std::string_view(buffer.data(), *count)); !written) {
      return make_error(written.error());
    }
    total += *count;
  }
}

// After a data-channel failure the server usually explains it (426, 451); read that reply
// briefly so the user sees it, then report the original error.
template <typename T>
Result<T> fail_with_server_reason(Session& session, std::error_code error) {
  (void)session.finish_transfer(std::chrono::seconds(2));
  return make_error(error);
}

// ALLO is advisory (RFC 959 §4.1.3); servers that refuse or ignore it still take the STOR.
Result<void> send_allocate(Session& session, std::uint64_t size_bytes) {
  auto reply = session.control().command("ALLO " + std::to_string(size_bytes));
  if (!reply) {
    return make_error(reply.error());
  }
  return {};
}

}  // namespace

Result<TransferStats> get_file(Session& session, const std::string& remote_path,
                               const std::string& local_path) {
  const auto start = Clock::now();
  auto staged = StagedFile::create(local_path);
  if (!staged) {
    return make_error(staged.error());
  }
  if (auto typed = session.use_binary_type(); !typed) {
    return make_error(typed.error());
  }
  auto data = session.open_passive_data();
  if (!data) {
    return make_error(data.error());
  }
  if (auto begun = session.begin_transfer("RETR " + remote_path); !begun) {
    return make_error(begun.error());
  }
  auto bytes = drain(*data, [&](std::string_view chunk) { return staged->write(chunk); });
  data->close();
  if (!bytes) {
    return fail_with_server_reason<TransferStats>(session, bytes.error());
  }
  if (auto done = session.finish_transfer(session.options().data_timeout); !done) {
    return make_error(done.error());
  }
  if (auto committed = staged->commit(); !committed) {
    return make_error(committed.error());
  }
  return TransferStats{*bytes, Clock::now() - start};
}

Result<TransferStats> put_file(Session& session, const std::string& local_path,
                               const std::string& remote_path) {
  const auto start = Clock::now();
  auto source = LocalSource::open(local_path);
  if (!source) {
    return make_error(source.error());
  }
  if (auto typed = session.use_binary_type(); !typed) {
    return make_error(typed.error());
  }
  auto data = session.open_passive_data();
  if (!data) {
    return make_error(data.error());
  }
  if (auto allocated = send_allocate(session, source->size_bytes()); !allocated) {
    return make_error(allocated.error());
  }
  if (auto begun = session.begin_transfer("STOR " + remote_path); !begun) {
    return make_error(begun.error());
  }
  std::vector<char> buffer(kChunkBytes);
  std::uint64_t total = 0;
  for (;;) {
    auto count = source->read(buffer);
    if (!count) {
      data->close();
      return fail_with_server_reason<TransferStats>(session, count.error());
    }
    if (*count == 0) {
      break;
    }
    if (auto sent = data->write_all(std::string_view(buffer.data(), *count)); !sent) {
      data->close();
      return fail_with_server_reason<TransferStats>(session, sent.error());
    }
    total += *count;
  }
  if (auto finished = data->finish_upload(); !finished) {
    data->close();
    return fail_with_server_reason<TransferStats>(session, finished.error());
  }
  auto done = session.finish_transfer(session.options().data_timeout);
  data->close();
  if (!done) {
    return make_error(done.error());
  }
  return TransferStats{total, Clock::now() - start};
}

Result<TransferStats> third_party_copy(Session& source, const std::string& source_path,
                                       Session& dest, const std::string& dest_path) {
  const auto start = Clock::now();
  for (Session* session : {&source, &dest}) {
    if (auto typed = session->use_binary_type(); !typed) {
      return make_error(typed.error());
    }
  }
  std::optional<std::uint64_t> size_bytes;
  if (source.has_feature("SIZE")) {
    auto size = source.size(source_path);
    if (!size) {
      return make_error(size.error());
    }
    size_bytes = *size;
  }
  // Dest is always passive and source always active (wire doc §1.5).
  auto address = dest.request_passive();
  if (!address) {
    return make_error(address.error());
  }
  if (size_bytes) {
    if (auto allocated = send_allocate(dest, *size_bytes); !allocated) {
      return make_error(allocated.error());
    }
  }
  // The dest answers STOR only once the source has connected, so its replies are read last.
  if (auto sent = dest.control().send("STOR " + dest_path); !sent) {
    return make_error(sent.error());
  }
  if (auto ported = source.send_port(*address); !ported) {
    return make_error(ported.error());
  }
  const auto timeout = source.options().transfer_reply_timeout;
  auto source_done = source.begin_transfer("RETR " + source_path);
  if (source_done) {
    source_done = source.finish_transfer(timeout);
  }
  // Read the dest's outcome even when the source failed: its reply says what the dest saw.
  auto dest_done = dest.finish_transfer(source_done ? timeout : std::chrono::seconds(5));
  if (!source_done) {
    return make_error(source_done.error());
  }
  if (!dest_done) {
    return make_error(dest_done.error());
  }
  return TransferStats{size_bytes.value_or(0), Clock::now() - start};
}

Result<TransferStats> copy_local_file(const std::string& source_path,
                                      const std::string& dest_path) {
  const auto start = Clock::now();
  auto source = LocalSource::open(source_path);
  if (!source) {
    return make_error(source.error());
  }
  auto staged = StagedFile::create(dest_path);
  if (!staged) {
    return make_error(staged.error());
  }
  std::vector<char> buffer(kChunkBytes);
  std::uint64_t total = 0;
  for (;;) {
    auto count = source->read(buffer);
    if (!count) {
      return make_error(count.error());
    }
    if (*count == 0) {
      break;
    }
    if (auto written = staged->write(std::string_view(buffer.data(), *count)); !written) {
      return make_error(written.error());
    }
    total += *count;
  }
  if (auto committed = staged->commit(); !committed) {
    return make_error(committed.error());
  }
  return TransferStats{total, Clock::now() - start};
}

Result<std::vector<ListingEntry>> list_directory(Session& session, const std::string& path) {
  const bool machine_listing = session.has_feature("MLST");
  // Globus converts LF to CRLF in TYPE A even when the line already ends in CRLF, giving CR CR LF;
  // globus-url-copy lists in TYPE I too.
  if (auto typed = session.use_binary_type(); !typed) {
    return make_error(typed.error());
  }
  auto data = session.open_passive_data();
  if (!data) {
    return make_error(data.error());
  }
  if (auto begun = session.begin_transfer((machine_listing ? "MLSD " : "NLST ") + path); !begun) {
    return make_error(begun.error());
  }
  std::string body;
  auto bytes = drain(*data, [&](std::string_view chunk) -> Result<void> {
    if (body.size() + chunk.size() > kMaxListingBytes) {
      return make_error(make_error_code(std::errc::file_too_large));
    }
    body.append(chunk);
    return {};
  });
  data->close();
  if (!bytes) {
    return fail_with_server_reason<std::vector<ListingEntry>>(session, bytes.error());
  }
  if (auto done = session.finish_transfer(session.options().data_timeout); !done) {
    return make_error(done.error());
  }
  std::vector<ListingEntry> entries;
  for (const auto line : split_listing_lines(body)) {
    if (!machine_listing) {
      entries.push_back(ListingEntry{std::string(line), false, false, std::nullopt});
      continue;
    }
    auto entry = parse_mlsd_line(line);
    if (!entry) {
      return make_error(entry.error());
    }
    if (!entry->is_self_or_parent) {
      entries.push_back(std::move(*entry));
    }
  }
  return entries;
}

}  // namespace gridftp::client
