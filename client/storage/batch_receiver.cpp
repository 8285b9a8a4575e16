#include "client/storage/batch_receiver.hpp"

#include <filesystem>
#include <fstream>

#include "client/client_errors.hpp"
#include "protocol/batch/batch_errors.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::client {
namespace {

namespace batch = protocol::batch;
using Kind = batch::BatchEvent::Kind;

// The CRC-32C of the first `length` bytes of `path` (a resumed file's part already held).
Result<std::uint32_t> crc_of_prefix(const std::string& path, std::uint64_t length,
                                    protocol::Crc32c& crc) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> buffer(1 << 20);
  while (length > 0 && in) {
    const auto want = static_cast<std::streamsize>(std::min<std::uint64_t>(length, buffer.size()));
    in.read(buffer.data(), want);
    const auto got = in.gcount();
    if (got <= 0) break;
    crc.update(std::span<const char>(buffer.data(), static_cast<std::size_t>(got)));
    length -= static_cast<std::uint64_t>(got);
  }
  if (length != 0) return make_error(std::make_error_code(std::errc::io_error));
  return crc.value();
}

}  // namespace

BatchReceiver::BatchReceiver(std::string dest_dir, std::string source_base, std::string dest_base,
                             TransferObserver* observer, std::function<std::size_t()> next_id)
    : dest_dir_(std::move(dest_dir)),
      source_base_(std::move(source_base)),
      dest_base_(std::move(dest_base)),
      observer_(observer),
      next_id_(std::move(next_id)) {}

BatchReceiver::~BatchReceiver() = default;

std::string BatchReceiver::local_path(const std::string& path) const {
  return dest_dir_.empty() || dest_dir_.back() == '/' ? dest_dir_ + path : dest_dir_ + "/" + path;
}

void BatchReceiver::begin_attempt() {
  decoder_ = batch::BatchDecoder{};
  complete_ = false;
  std::error_code ignored;
  std::filesystem::create_directories(dest_dir_, ignored);
}

Result<void> BatchReceiver::consume(std::span<const char> bytes) {
  batch::BatchEvent event;
  do {
    auto used = decoder_.next(bytes, event);
    if (!used) return make_error(used.error());
    bytes = bytes.subspan(*used);
    if (auto handled = handle(event); !handled) return handled;
  } while (event.kind != Kind::NeedMore);
  return {};
}

Result<void> BatchReceiver::handle(const batch::BatchEvent& event) {
  switch (event.kind) {
    case Kind::NeedMore:
      return {};
    case Kind::Directory: {
      std::error_code ec;
      std::filesystem::create_directories(local_path(event.path), ec);
      if (ec) return make_error(ec);
      return {};
    }
    case Kind::FileBegin:
      return begin_file(event);
    case Kind::Data: {
      auto& file = *current_;
      if (file.staged) {
        if (auto written = file.staged->write_at(
                file.position, std::string_view(event.payload.data(), event.payload.size()));
            !written) {
          return written;
        }
      }
      crc_.update(event.payload);
      file.position += event.payload.size();
      file.moved += event.payload.size();
      // What is on disk is held: a resume asks for the rest of this file. The last byte is
      // left out until the trailer has come, so that a point always names a file not yet
      // whole (a point at a file's size means "held whole").
      if (file.staged && file.position > 0) {
        held_ = batch::RestartPoint{std::min(file.position, file.end - 1), file.path};
      }
      if (observer_ != nullptr) observer_->file_progress(file.id, file.position);
      return {};
    }
    case Kind::FileEnd:
      return end_file(event.crc);
    case Kind::Refer:
      referred_.push_back(ReferredFile{event.path, event.length});
      return {};
    case Kind::FileError: {
      const auto id = next_id_();
      if (observer_ != nullptr) {
        observer_->file_started(
            FileStart{id, source_base_ + event.path, dest_base_ + event.path, std::nullopt, 1});
      }
      report_failed(id, event.path, event.message);
      return {};
    }
    case Kind::End:
      complete_ = true;
      return {};
  }
  return {};
}

Result<void> BatchReceiver::begin_file(const batch::BatchEvent& event) {
  const auto target = local_path(event.path);
  const bool resuming = current_ && current_->path == event.path && !current_->staged &&
                        event.offset > 0 && held_ && held_->path == event.path &&
                        event.offset == held_->offset;
  if (!resuming) {
    if (current_) give_up("the server did not resend it");
    // emplace(Current{}), not emplace(): clang reads Current as not default-constructible while
    // BatchReceiver, which encloses it, is still incomplete.
    current_.emplace(Current{});
    current_->id = next_id_();
    current_->path = event.path;
    current_->started = Clock::now();
    if (observer_ != nullptr) {
      observer_->file_started(FileStart{current_->id, source_base_ + event.path,
                                        dest_base_ + event.path, event.offset + event.length, 1});
    }
  } else {
    ++current_->attempts;
  }
  auto& file = *current_;
  file.position = event.offset;
  file.end = event.offset + event.length;
  crc_ = protocol::Crc32c{};
  if (event.offset == 0) {
    auto staged = StagedFile::create(target);
    if (!staged) return make_error(staged.error());
    file.staged.emplace(std::move(*staged));
    return {};
  }
  // Only the file a restart point names may start past 0, at exactly the point.
  if (!resuming) return make_error(batch::make_error_code(batch::Errc::WrongCounts));
  auto staged = StagedFile::reopen(target);
  if (!staged) return make_error(staged.error());
  auto held = staged->size_bytes();
  if (!held || *held < event.offset) {
    return make_error(std::make_error_code(std::errc::io_error));
  }
  if (auto cut = staged->truncate(event.offset); !cut) return cut;
  if (auto prefix = crc_of_prefix(staged->temporary_path(), event.offset, crc_); !prefix) {
    return make_error(prefix.error());
  }
  file.staged.emplace(std::move(*staged));
  return {};
}

Result<void> BatchReceiver::end_file(std::uint32_t crc) {
  auto file = std::move(*current_);
  current_.reset();
  held_ = batch::RestartPoint{file.end, file.path};
  if (crc != crc_.value()) {
    report_failed(file.id, file.path,
                  "checksum mismatch: CRC-32C " + std::to_string(crc_.value()) + ", the server's " +
                      std::to_string(crc),
                  file.attempts);
    return {};  // the staged file goes with `file`
  }
  if (auto committed = file.staged->commit(); !committed) return committed;
  ++copied_;
  if (observer_ != nullptr) {
    FileEnd end;
    end.id = file.id;
    end.result = FileResult::Copied;
    end.bytes = file.moved;
    end.elapsed = Clock::now() - file.started;
    end.attempts = file.attempts;
    observer_->file_finished(end);
  }
  return {};
}

Result<void> BatchReceiver::finish_stream() { return decoder_.finish(); }

void BatchReceiver::interrupt() {
  if (!current_ || !current_->staged) return;
  // With nothing of it on disk the point still names the file before, and the file is dropped.
  if (held_ && held_->path == current_->path) current_->staged->keep_for_resume();
  current_->staged.reset();
}

void BatchReceiver::give_up(const std::string& why) {
  if (!current_) return;
  auto file = std::move(*current_);
  current_.reset();
  if (file.staged) file.staged.reset();
  std::error_code ignored;
  std::filesystem::remove(StagedFile::temporary_path_for(local_path(file.path)), ignored);
  report_failed(file.id, file.path, why, file.attempts);
}

void BatchReceiver::report_failed(std::size_t id, const std::string& path,
                                  const std::string& message, unsigned attempts) {
  ++failed_;
  if (observer_ == nullptr) return;
  FileEnd end;
  end.id = id;
  end.result = FileResult::Failed;
  end.attempts = attempts;
  end.error = "copying " + source_base_ + path + ": " + message;
  observer_->file_finished(end);
}

}  // namespace gridftp::client
