#include "server/data/batch_sink.hpp"

#include "protocol/batch/batch_errors.hpp"

namespace gridftp::server {

namespace batch = protocol::batch;
using Kind = batch::BatchEvent::Kind;

std::string BatchSink::virtual_path(const std::string& relative) const {
  return top_ == "/" ? "/" + relative : top_ + "/" + relative;
}

Result<void> BatchSink::handle(const batch::BatchEvent& event) {
  switch (event.kind) {
    case Kind::Directory: {
      auto made = storage_.make_directory(virtual_path(event.path));
      if (!made && made.error() != std::errc::file_exists) return made;
      return {};
    }
    case Kind::FileBegin: {
      if (event.offset != 0) return make_error(batch::make_error_code(batch::Errc::WrongCounts));
      auto upload =
          storage_.begin_upload(virtual_path(event.path), storage::UploadMode::Replace, 0);
      if (!upload) return make_error(upload.error());
      upload_.emplace(std::move(*upload));
      path_ = event.path;
      position_ = 0;
      crc_ = protocol::Crc32c{};
      return {};
    }
    case Kind::FileEnd: {
      if (crc_.value() != event.crc) {
        abort();
        return make_error(batch::make_error_code(batch::Errc::ChecksumMismatch));
      }
      auto committed = upload_->commit();
      upload_.reset();
      if (!committed) return committed;
      ++stored_;
      return {};
    }
    case Kind::Refer:
    case Kind::FileError:
      if (unsent_++ == 0) first_unsent_ = event.path;
      return {};
    case Kind::Data:
    case Kind::End:
    case Kind::NeedMore:
      return {};
  }
  return {};
}

void BatchSink::wrote(std::span<const char> bytes) {
  crc_.update(bytes);
  position_ += bytes.size();
  bytes_ += bytes.size();
}

void BatchSink::abort() {
  if (upload_) upload_->abort();
  upload_.reset();
}

}  // namespace gridftp::server
