#include "client/transfer/transfer.hpp"

#include <algorithm>
#include <cerrno>
#include <utility>
#include <vector>

#include "client/data/mode_e_transfer.hpp"
#include "client/data/udpx_data.hpp"
#include "client/report/progress_ticker.hpp"
#include "client/storage/checksum_check.hpp"
#include "client/storage/local_source.hpp"
#include "client/storage/staged_file.hpp"
#include "client/transfer/transfer_steps.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::client {
namespace {

// -rst: the receiver's 111 markers every second, so a resumed put resends little.
constexpr unsigned kRestartMarkerSeconds = 1;
// Large enough to keep a loopback stream busy, small enough to stay off the heap's slow path.
constexpr std::size_t kChunkBytes = std::size_t{256} * 1024;
// A listing bigger than this is almost certainly not a listing; stop reading.
constexpr std::size_t kMaxListingBytes = std::size_t{64} * 1024 * 1024;

template <typename T>
Result<T> fail_with_server_reason(Session& session, std::error_code error) {
  return make_error(with_server_reason(session, error));
}

// -off alone needs the source's size to turn into an ERET length, and ask_size wants it for the
// progress display (told through on_shape); otherwise no SIZE is sent.
Result<std::optional<PartialRange>> remote_range(Session& session, const std::string& path,
                                                 const TransferOptions& options) {
  const auto& request = options.range;
  const bool offset_alone = request.offset && !request.length;
  const bool for_display =
      options.ask_size && options.on_shape && !request.is_partial() && session.has_feature("SIZE");
  std::optional<std::uint64_t> size_bytes;
  if (offset_alone || for_display) {
    auto size = session.size(path);
    if (!size) {
      return make_error(size.error());
    }
    size_bytes = *size;
  }
  auto range = resolve_range(request, size_bytes);
  if (range && options.ask_size && options.on_shape) {
    const auto expected = *range ? std::optional<std::uint64_t>((*range)->length) : size_bytes;
    if (expected) {
      options.on_shape(FileShape{expected, options.parallelism.value_or(1)});
    }
  }
  return range;
}

// Stream-mode body of a get: the bytes arrive in order from the local offset on.
Result<std::uint64_t> receive_stream(Session& session, const std::string& command,
                                     const StagedFile& staged, std::uint64_t local_offset,
                                     const std::optional<std::string>& rest,
                                     ProgressTicker& progress) {
  auto data = session.open_passive_data();
  if (!data) {
    return make_error(data.error());
  }
  // REST goes right before the transfer command (RFC 3659 §5.3); a resumed get starts there.
  if (rest) {
    if (auto restarted = session.restart_at(*rest); !restarted) {
      return make_error(restarted.error());
    }
  }
  if (auto begun = begin_stream_transfer(session, *data, command); !begun) {
    return make_error(begun.error());
  }
  std::uint64_t position = local_offset;
  auto bytes = drain(*data, [&](std::string_view chunk) {
    auto written = staged.write_at(position, chunk);
    position += chunk.size();
    progress.add(chunk.size(), Clock::now());
    return written;
  });
  if (bytes) {
    (void)data->end_sending();  // the server may be gone already; the data is all here
  }
  data->close();
  if (!bytes) {
    return fail_with_server_reason<std::uint64_t>(session, bytes.error());
  }
  if (auto done = session.finish_transfer(session.options().data_timeout); !done) {
    return make_error(done.error());
  }
  return bytes;
}

// A stream-mode put: `length` bytes from the local offset, less the first `held` bytes that the
// destination kept from a failed attempt (REST held + STOR: only the rest moves). With `restart`
// (-rst), the destination's markers and whether its STOR began are kept for the next attempt.
struct StreamSend {
  std::string command;
  std::optional<std::uint64_t> allocate_bytes;
  std::uint64_t local_offset = 0;
  std::uint64_t length = 0;
  std::uint64_t held = 0;
  RestartState* restart = nullptr;
};

// The destination's 111 and 112 markers during a stream put: it sends them (gridftpd, after
// TREV RESTART), so its 111 ranges, not its file's size, say what it holds.
Session::MarkerCallback stream_marker_recorder(RestartState* restart) {
  if (restart == nullptr) {
    return {};
  }
  return [restart](const ParsedReply& reply) {
    // A performance marker, or a range marker it recorded: either way the destination sends.
    if (reply.code == protocol::control::reply_code::kPerfMarker ||
        record_range_marker(reply, *restart)) {
      restart->dest_sends_markers = true;
    }
  };
}

Result<std::uint64_t> send_stream(Session& session, LocalSource& source, const StreamSend& send,
                                  ProgressTicker& progress) {
  auto data = session.open_passive_data();
  if (!data) {
    return make_error(data.error());
  }
  // ALLO announces what this STOR carries: a resumed one carries only the rest.
  auto allocate = send.allocate_bytes;
  if (allocate) {
    *allocate = *allocate > send.held ? *allocate - send.held : 0;
  }
  if (auto allocated = send_allocate(session, allocate); !allocated) {
    return make_error(allocated.error());
  }
  if (send.held > 0) {
    if (auto restarted = session.restart_at(std::to_string(send.held)); !restarted) {
      return make_error(restarted.error());
    }
  }
  if (auto begun = begin_stream_transfer(session, *data, send.command); !begun) {
    return make_error(begun.error());
  }
  if (send.restart != nullptr) {
    send.restart->dest_store_began = true;
  }
  const auto record_markers = stream_marker_recorder(send.restart);
  std::vector<char> buffer(kChunkBytes);
  std::uint64_t total = send.held;
  while (total < send.length) {
    const auto count =
        static_cast<std::size_t>(std::min<std::uint64_t>(send.length - total, buffer.size()));
    auto chunk = std::span(buffer.data(), count);
    auto sent = source.read_at(send.local_offset + total, chunk);
    if (sent) {
      sent = data->write_all(std::string_view(chunk.data(), chunk.size()));
    }
    if (!sent) {
      data->close();
      return make_error(with_server_reason(session, sent.error(), record_markers));
    }
    total += count;
    progress.add(count, Clock::now());
  }
  if (auto finished = data->end_sending(); !finished) {
    data->close();
    return make_error(with_server_reason(session, finished.error(), record_markers));
  }
  auto done = session.finish_transfer(session.options().data_timeout, record_markers);
  data->close();
  if (!done) {
    return make_error(done.error());
  }
  return total - send.held;
}

// -rst, stream mode: how much of the file the destination kept from a failed attempt
// (stream_resume_offset), asking its SIZE only where its markers do not say. 0: start over.
Result<std::uint64_t> stream_put_held(Session& session, const std::string& remote_path,
                                      RestartState* restart, std::uint64_t length) {
  if (restart == nullptr) {
    return std::uint64_t{0};
  }
  if (!restart->resume) {
    restart->dest_ranges = {};  // a fresh upload: nothing it held counts
  }
  std::optional<std::uint64_t> dest_size;
  if (stream_resume_needs_size(*restart)) {
    auto size = session.size(remote_path);
    if (!size) {
      return make_error(size.error());
    }
    dest_size = *size;
  }
  return stream_resume_offset(*restart, dest_size, length);
}

}  // namespace

namespace {

// A get retried under -rst picks up the partial file of the failed attempt. In stream mode its
// size is the count of bytes that arrived in order, and REST n asks the server for the rest (RFC
// 3659); in MODE E and over UDPX the attempts recorded which ranges they wrote, and REST lists
// them (docs/WIRE.md §4.3, docs/UDPX.md §8). `held_bytes` is what the partial file already holds.
struct GetResume {
  std::optional<std::string> rest;
  std::uint64_t held_bytes = 0;
};

Result<StagedFile> staged_for_get(const std::string& local_path, const TransferOptions& options,
                                  bool resumable, GetResume& resume) {
  resume = {};
  const bool resuming = resumable && options.restart != nullptr && options.restart->resume;
  if (!resuming && options.restart != nullptr) {
    options.restart->local_ranges = {};  // a fresh staged file holds nothing yet
  }
  auto staged = resuming ? StagedFile::reopen(local_path) : StagedFile::create(local_path);
  if (!staged || !resuming) {
    return staged;
  }
  if (options.parallelism || options.udpx) {
    resume.rest = restart_argument(true, options.restart->local_ranges);
    resume.held_bytes = options.restart->local_ranges.covered_bytes();
    return staged;
  }
  auto held = staged->size_bytes();
  if (!held) {
    return make_error(held.error());
  }
  resume.held_bytes = *held;
  resume.rest = *held > 0 ? std::optional<std::string>(std::to_string(*held)) : std::nullopt;
  return staged;
}

}  // namespace

Result<TransferStats> get_file(Session& session, const std::string& remote_path,
                               const std::string& local_path, const TransferOptions& requested) {
  const auto start = Clock::now();
  auto options = requested;  // -p turns into stream mode on a server without MODE E
  if (auto prepared = prepare_session(session, options); !prepared) {
    return make_error(prepared.error());
  }
  auto range = remote_range(session, remote_path, options);
  if (!range) {
    return make_error(range.error());
  }
  auto expected = source_checksum(&session, remote_path, *range, options);
  if (!expected) {
    return make_error(expected.error());
  }
  const bool resumable = !range->has_value();
  GetResume resume;
  auto staged = staged_for_get(local_path, options, resumable, resume);
  if (!staged) {
    return make_error(staged.error());
  }
  if (options.restart != nullptr && options.restart->keep_partial && resumable) {
    staged->keep_for_resume();
  }
  // guc writes an -off/-len window at its own offset in the local file (docs/WIRE.md §1.5). MODE E
  // blocks carry their file offsets, so a resumed get still writes them from 0.
  const std::uint64_t stream_offset = *range ? (*range)->offset : resume.held_bytes;
  const std::uint64_t local_offset =
      options.parallelism ? (*range ? (*range)->offset : 0) : stream_offset;
  const auto command = retrieve_command(remote_path, *range);
  // Progress counts the whole file: a resumed get starts from what was already here.
  const auto held = resume.held_bytes;
  ProgressTicker progress(options.on_progress
                              ? ProgressTicker::Report([&options, held](std::uint64_t bytes) {
                                  options.on_progress(bytes + held);
                                })
                              : ProgressTicker::Report{});
  auto* written =
      options.restart != nullptr && resumable ? &options.restart->local_ranges : nullptr;
  std::optional<NetworkFigures> figures;
  Result<std::uint64_t> bytes = std::uint64_t{0};
  if (options.udpx) {
    // UDPX blocks carry their file offsets: a -off window lands at its own offset, as in guc.
    auto received =
        receive_udpx(session, command, *staged, resume.rest, written, *options.udpx, progress);
    if (received) figures = *received;
    bytes = received ? Result<std::uint64_t>(received->bytes) : make_error(received.error());
  } else if (options.parallelism) {
    bytes = receive_mode_e(
        session, *staged,
        ModeEReceiveRequest{command, *options.parallelism, local_offset, resume.rest, written},
        progress);
  } else {
    bytes = receive_stream(session, command, *staged, local_offset, resume.rest, progress);
  }
  if (!bytes) {
    return make_error(bytes.error());
  }
  if (*expected) {
    auto local = local_file_checksum(staged->temporary_path(), *options.verify_checksum, *range);
    auto same = local ? compare_checksums(**expected, *local) : make_error(local.error());
    if (!same) {
      return make_error(same.error());  // the staged file is removed, never renamed into place
    }
  }
  if (auto committed = staged->commit(); !committed) {
    return make_error(committed.error());
  }
  return TransferStats{*bytes, Clock::now() - start, figures};
}

Result<TransferStats> put_file(Session& session, const std::string& local_path,
                               const std::string& remote_path, const TransferOptions& requested) {
  const auto start = Clock::now();
  auto options = requested;  // -p turns into stream mode on a server without MODE E
  auto source = LocalSource::open(local_path);
  if (!source) {
    return make_error(source.error());
  }
  auto range = resolve_range(options.range, source->size_bytes());
  if (!range) {
    return make_error(range.error());
  }
  const std::uint64_t local_offset = *range ? (*range)->offset : 0;
  const std::uint64_t available =
      source->size_bytes() > local_offset ? source->size_bytes() - local_offset : 0;
  const std::uint64_t length = *range ? std::min((*range)->length, available) : available;
  auto expected = source_checksum(nullptr, local_path, *range, options);
  if (!expected) {
    return make_error(expected.error());
  }
  if (auto prepared = prepare_session(session, options); !prepared) {
    return make_error(prepared.error());
  }
  const auto command = store_command(remote_path, *range);
  const auto allocate = allocation_bytes(source->size_bytes(), *range);
  // -off/-len windows start over; a whole file resumes from what the receiver confirmed.
  RestartState* restart = range->has_value() ? nullptr : options.restart;
  const bool stream_mode = !options.parallelism && !options.udpx;
  if (restart != nullptr) {
    if (auto asked = session.ask_restart_markers(kRestartMarkerSeconds); !asked) {
      return make_error(asked.error());
    }
  }
  auto stream_held = stream_mode ? stream_put_held(session, remote_path, restart, length)
                                 : Result<std::uint64_t>(std::uint64_t{0});
  if (!stream_held) {
    return make_error(stream_held.error());
  }
  // Progress counts the whole file: a resumed put starts from what the receiver confirmed.
  const bool resumes = !stream_mode && restart != nullptr && restart->resume;
  const auto held = resumes ? restart->dest_ranges.covered_bytes() : *stream_held;
  ProgressTicker progress(options.on_progress
                              ? ProgressTicker::Report([&options, held](std::uint64_t bytes) {
                                  options.on_progress(bytes + held);
                                })
                              : ProgressTicker::Report{});
  std::optional<NetworkFigures> figures;
  Result<std::uint64_t> bytes = std::uint64_t{0};
  if (options.udpx) {
    auto allocated = send_allocate(session, allocate);
    auto sent = allocated ? send_udpx(session, command, *source, local_offset, length, restart,
                                      *options.udpx, progress)
                          : make_error(allocated.error());
    if (sent) figures = *sent;
    bytes = sent ? Result<std::uint64_t>(length) : make_error(sent.error());
  } else if (options.parallelism) {
    bytes = send_mode_e(
        session, *source,
        ModeESendRequest{command, allocate, *options.parallelism, options.block_size_bytes,
                         local_offset, length, &progress, restart, options.stripe});
  } else {
    bytes = send_stream(session, *source,
                        StreamSend{command, allocate, local_offset, length, *stream_held, restart},
                        progress);
  }
  if (!bytes) {
    return make_error(bytes.error());
  }
  if (auto verified = verify_remote(session, remote_path, *range, *expected, options); !verified) {
    return make_error(verified.error());
  }
  return TransferStats{*bytes, Clock::now() - start, figures};
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
  return TransferStats{total, Clock::now() - start, std::nullopt};
}

Result<std::vector<protocol::listing::ListingEntry>> list_directory(
    Session& session, const std::string& path, const DataSecurityLevel& data_security) {
  const bool machine_listing = session.has_feature("MLST");
  // Globus converts LF to CRLF in TYPE A even when the line already ends in CRLF, giving CR CR LF;
  // globus-url-copy lists in TYPE I too.
  if (auto typed = session.use_binary_type(); !typed) {
    return make_error(typed.error());
  }
  if (auto secured = session.use_data_security(data_security); !secured) {
    return make_error(secured.error());
  }
  auto data = session.open_passive_data();
  if (!data) {
    return make_error(data.error());
  }
  const auto command = (machine_listing ? "MLSD " : "NLST ") + path;
  if (auto begun = begin_stream_transfer(session, *data, command); !begun) {
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
  if (bytes) {
    (void)data->end_sending();  // answers the server's close_notify (FTPS)
  }
  data->close();
  if (!bytes) {
    return fail_with_server_reason<std::vector<protocol::listing::ListingEntry>>(session,
                                                                                 bytes.error());
  }
  if (auto done = session.finish_transfer(session.options().data_timeout); !done) {
    return make_error(done.error());
  }
  std::vector<protocol::listing::ListingEntry> entries;
  for (const auto line : protocol::listing::split_listing_lines(body)) {
    if (!machine_listing) {
      entries.push_back(protocol::listing::ListingEntry{std::string(line), false, false,
                                                        std::nullopt, std::nullopt});
      continue;
    }
    auto entry = protocol::listing::parse_mlsd_line(line);
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
