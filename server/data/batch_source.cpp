#include "server/data/batch_source.hpp"

#include <algorithm>
#include <cerrno>

#include <unistd.h>

#include "protocol/batch/batch_records.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::server {
namespace {

namespace batch = protocol::batch;
using protocol::listing::FileType;

constexpr std::size_t kReadBytes = 1 << 20;

std::error_code errno_code() { return {errno, std::generic_category()}; }

// Reads [from, to) of `fd` onto the end of `out`. Errors: read errors; EIO when the file ended
// first (it shrank after its record's length was announced).
Result<void> read_range(int fd, std::uint64_t from, std::uint64_t to, std::string& out,
                        protocol::Crc32c* crc) {
  while (from < to) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(to - from, kReadBytes));
    const auto old_size = out.size();
    out.resize(old_size + want);
    const auto got = ::pread(fd, out.data() + old_size, want, static_cast<off_t>(from));
    if (got < 0 && errno == EINTR) {
      out.resize(old_size);
      continue;
    }
    if (got <= 0) {
      out.resize(old_size);
      return make_error(got < 0 ? errno_code() : std::make_error_code(std::errc::io_error));
    }
    out.resize(old_size + static_cast<std::size_t>(got));
    if (crc != nullptr)
      crc->update(std::span<const char>(out.data() + old_size, out.size() - old_size));
    from += static_cast<std::uint64_t>(got);
  }
  return {};
}

}  // namespace

BatchSource::BatchSource(const storage::PosixStorage& storage, std::string top,
                         std::uint64_t refer_above,
                         std::optional<protocol::batch::RestartPoint> restart)
    : storage_(storage),
      top_(std::move(top)),
      refer_above_(refer_above),
      restart_(std::move(restart)) {}

std::string BatchSource::virtual_path(const std::string& relative) const {
  if (relative.empty()) return top_;
  return top_ == "/" ? "/" + relative : top_ + "/" + relative;
}

void BatchSource::push_children(const std::string& relative) {
  auto listed = storage_.list_directory(virtual_path(relative));
  if (!listed) return;  // the directory's 'D' record made it; its contents are unreadable
  std::sort(listed->begin(), listed->end(),
            [](const auto& a, const auto& b) { return a.name > b.name; });  // back = smallest
  for (auto& facts : *listed) {
    pending_.push_back(
        Entry{relative.empty() ? facts.name : relative + "/" + facts.name, facts.type});
  }
}

Result<bool> BatchSource::fill(std::string& out, std::size_t want) {
  if (!started_) {
    started_ = true;
    batch::append_magic(out);
    push_children("");
  }
  while (out.size() < want && !ended_) {
    if (file_) {
      if (auto more = continue_file(out, want); !more) return make_error(more.error());
      continue;
    }
    if (pending_.empty()) {
      batch::append_end(out, files_, bytes_);
      ended_ = true;
      break;
    }
    auto entry = std::move(pending_.back());
    pending_.pop_back();
    if (!batch::is_valid_batch_path(entry.path)) {
      ++unreadable_;  // a name no receiver could make (too long for the record)
      continue;
    }
    if (entry.type == FileType::Symlink) {
      // A link is sent as the file it leads to; links to directories are not followed, so a
      // loop of links cannot make the walk endless.
      auto facts = storage_.stat(virtual_path(entry.path));
      entry.type = facts ? facts->type : FileType::Other;
      if (entry.type == FileType::Dir) {
        batch::append_file_error(out, entry.path, "a link to a directory; not followed");
        ++unreadable_;
        continue;
      }
    }
    if (entry.type == FileType::Dir) {
      batch::append_directory(out, entry.path);
      push_children(entry.path);
      continue;
    }
    if (auto started = start_file(entry, out); !started) return make_error(started.error());
  }
  return ended_;
}

Result<void> BatchSource::start_file(const Entry& entry, std::string& out) {
  auto fd = storage_.open_for_read(virtual_path(entry.path));
  if (!fd) {
    batch::append_file_error(out, entry.path, fd.error().message());
    ++unreadable_;
    return {};
  }
  const auto size = storage::regular_file_size(fd->get());
  if (!size) {
    batch::append_file_error(out, entry.path, "not a regular file");
    ++unreadable_;
    return {};
  }
  std::uint64_t offset = 0;
  if (restart_) {
    const auto from = batch::resume_offset(*restart_, entry.path, *size);
    if (!from) return {};
    offset = *from;
  }
  if (refer_above_ != 0 && *size > refer_above_) {
    batch::append_refer(out, entry.path, *size);
    return {};
  }
  crc_ = protocol::Crc32c{};
  if (offset > 0) {
    // The trailer's CRC covers the whole file, so the part the receiver holds is read too.
    std::string prefix;
    for (std::uint64_t at = 0; at < offset; at += prefix.size()) {
      prefix.clear();
      if (auto read = read_range(fd->get(), at, std::min(offset, at + kReadBytes), prefix, &crc_);
          !read) {
        return make_error(read.error());
      }
    }
  }
  batch::append_file_header(out, entry.path, offset, *size - offset);
  file_ = std::move(*fd);
  position_ = offset;
  end_ = *size;
  ++files_;
  bytes_ += *size - offset;
  return {};
}

Result<void> BatchSource::continue_file(std::string& out, std::size_t want) {
  const auto room = std::max<std::size_t>(want > out.size() ? want - out.size() : 0, 1);
  const auto to = std::min<std::uint64_t>(end_, position_ + room);
  if (auto read = read_range(file_->get(), position_, to, out, &crc_); !read) {
    return make_error(read.error());
  }
  position_ = to;
  if (position_ == end_) {
    batch::append_file_trailer(out, crc_.value());
    file_.reset();
  }
  return {};
}

}  // namespace gridftp::server
