#include "transport/udpx/restart_blocks.hpp"

namespace gridftp::transport::udpx {

using protocol::udpx::RestartLayout;

Result<std::size_t> LaidOutSource::read_at(std::uint64_t offset, std::span<std::uint8_t> out) {
  std::size_t total = 0;
  bool stopped = false;  // an error, or the file ended early
  std::error_code failed;
  layout_.for_each_piece(offset, out.size(), [&](const RestartLayout::Piece& piece) {
    if (stopped) return;
    const auto want = static_cast<std::size_t>(piece.length);
    auto read = file_->read_at(piece.file_offset, out.subspan(total, want));
    if (!read) failed = read.error();
    total += read ? *read : 0;
    stopped = !read || *read < want;
  });
  if (failed) return make_error(failed);
  return total;
}

Result<void> LaidOutSink::write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  std::error_code failed;
  layout_.for_each_piece(offset, bytes.size(), [&](const RestartLayout::Piece& piece) {
    if (failed) return;
    const auto from = static_cast<std::size_t>(piece.stream_offset - offset);
    auto written = file_->write_at(piece.file_offset,
                                   bytes.subspan(from, static_cast<std::size_t>(piece.length)));
    if (!written) {
      failed = written.error();
      return;
    }
    written_->insert(piece.file_offset, piece.file_offset + piece.length);
  });
  if (failed) return make_error(failed);
  return {};
}

}  // namespace gridftp::transport::udpx
