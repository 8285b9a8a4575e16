#include "protocol/batch/batch_encoder.hpp"

#include <algorithm>

#include "protocol/batch/batch_records.hpp"

namespace gridftp::protocol::batch {
namespace {

constexpr std::size_t kReadBytes = 1 << 20;

}  // namespace

BatchEncoder::BatchEncoder(TreeReader& reader, std::uint64_t refer_above,
                           std::optional<RestartPoint> restart)
    : reader_(reader), refer_above_(refer_above), restart_(std::move(restart)) {}

void BatchEncoder::refuse(const std::string& path, const std::string& why, std::string& out) {
  if (on_refuse_) {
    on_refuse_(path, why);
  } else {
    append_file_error(out, path, why);
  }
  ++unreadable_;
}

void BatchEncoder::push_children(const std::string& relative, std::string& out) {
  auto listed = reader_.list(relative);
  if (!listed) {
    if (!relative.empty()) refuse(relative, listed.error().message(), out);
    return;
  }
  std::sort(listed->begin(), listed->end(),
            [](const auto& a, const auto& b) { return a.name > b.name; });  // back = smallest
  for (auto& entry : *listed) {
    pending_.push_back(
        Pending{relative.empty() ? entry.name : relative + "/" + entry.name, entry.kind});
  }
}

Result<bool> BatchEncoder::fill(std::string& out, std::size_t want) {
  if (!started_) {
    started_ = true;
    append_magic(out);
    push_children("", out);
  }
  while (out.size() < want && !ended_) {
    if (file_) {
      if (auto more = continue_file(out, want); !more) return make_error(more.error());
      continue;
    }
    if (pending_.empty()) {
      append_end(out, files_, bytes_);
      ended_ = true;
      break;
    }
    const auto entry = std::move(pending_.back());
    pending_.pop_back();
    if (!is_valid_batch_path(entry.path)) {
      ++unreadable_;  // a name too long for any record: it cannot even be named in an 'X'
      continue;
    }
    switch (entry.kind) {
      case TreeEntry::Kind::Directory:
        append_directory(out, entry.path);
        push_children(entry.path, out);
        break;
      case TreeEntry::Kind::LinkToDirectory:
        refuse(entry.path, "a link to a directory; not followed", out);
        break;
      case TreeEntry::Kind::Other:
        refuse(entry.path, "not a regular file", out);
        break;
      case TreeEntry::Kind::File:
        if (auto started = start_file(entry.path, out); !started) {
          return make_error(started.error());
        }
        break;
    }
  }
  return ended_;
}

Result<void> BatchEncoder::read_into(std::uint64_t from, std::uint64_t to, std::string& out) {
  while (from < to) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(to - from, kReadBytes));
    const auto old_size = out.size();
    out.resize(old_size + want);
    auto got = file_->read_at(from, std::span<char>(out.data() + old_size, want));
    if (!got || *got == 0) {
      out.resize(old_size);
      // A file that ends before its announced length cannot complete its record.
      return make_error(got ? std::make_error_code(std::errc::io_error) : got.error());
    }
    out.resize(old_size + *got);
    crc_.update(std::span<const char>(out.data() + old_size, *got));
    from += *got;
  }
  return {};
}

Result<void> BatchEncoder::start_file(const std::string& path, std::string& out) {
  auto opened = reader_.open(path);
  if (!opened) {
    refuse(path, opened.error().message(), out);
    return {};
  }
  const auto size = (*opened)->size();
  std::uint64_t offset = 0;
  if (restart_) {
    const auto from = resume_offset(*restart_, path, size);
    if (!from) return {};
    offset = *from;
  }
  if (refer_above_ != 0 && size > refer_above_) {
    if (on_refer_) {
      on_refer_(path, size);
    } else {
      append_refer(out, path, size);
    }
    return {};
  }
  file_ = std::move(*opened);
  crc_ = Crc32c{};
  if (offset > 0) {
    // The trailer's CRC covers the whole file, so the part the receiver holds is read too.
    std::string prefix;
    for (std::uint64_t at = 0; at < offset; at += prefix.size()) {
      prefix.clear();
      if (auto read = read_into(at, std::min(offset, at + kReadBytes), prefix); !read) {
        file_.reset();
        return read;
      }
    }
  }
  append_file_header(out, path, offset, size - offset);
  file_path_ = path;
  position_ = offset;
  end_ = size;
  ++files_;
  bytes_ += size - offset;
  return {};
}

Result<void> BatchEncoder::continue_file(std::string& out, std::size_t want) {
  const auto room = std::max<std::size_t>(want > out.size() ? want - out.size() : 0, 1);
  const auto to = std::min<std::uint64_t>(end_, position_ + room);
  if (auto read = read_into(position_, to, out); !read) return read;
  position_ = to;
  if (position_ == end_) {
    append_file_trailer(out, crc_.value());
    file_.reset();
    if (on_sent_) on_sent_(file_path_, end_);
  }
  return {};
}

}  // namespace gridftp::protocol::batch
