// Third-party transfers (docs/WIRE.md §1.5, §1.6.3): the client drives two servers' control
// connections; the data goes directly from source to dest.
#include <condition_variable>
#include <cstdio>
#include <limits>
#include <mutex>
#include <thread>
#include <utility>

#include "client/data/mode_e_transfer.hpp"
#include "client/transfer/transfer.hpp"
#include "client/transfer/transfer_steps.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/restart/markers.hpp"

namespace gridftp::client {

namespace rc = protocol::control::reply_code;
namespace {

// -rst: the dest's 111 markers every second, so a resumed copy resends little.
constexpr unsigned kRestartMarkerSeconds = 1;

// Both final replies of a third-party transfer, each read on its own thread (the sessions have
// their own io_contexts). When one side fails, the other gets a short grace to report, then its
// control connection is closed so that a transfer that can no longer finish does not hang.
struct FinalReplies {
  std::optional<Result<ParsedReply>> source;
  std::optional<Result<ParsedReply>> dest;
};

// The shared state of the two reply readers: each stores its side's reply and wakes the waiter.
struct ReplyWatch {
  std::mutex mutex;
  std::condition_variable changed;
  FinalReplies replies;

  [[nodiscard]] bool both_arrived() const { return replies.source && replies.dest; }
  [[nodiscard]] bool one_failed() const {
    return (replies.source && !*replies.source) || (replies.dest && !*replies.dest);
  }
};

// One side's final reply, read on its own thread, handed to the waiter.
void read_final_reply(ReplyWatch& watch, Session& session, std::optional<Result<ParsedReply>>& slot,
                      Clock::duration timeout, const Session::MarkerCallback& on_marker) {
  auto reply = session.finish_transfer(timeout, on_marker);
  std::lock_guard lock(watch.mutex);
  slot.emplace(std::move(reply));
  watch.changed.notify_all();
}

// Waits for both replies; once one side has failed, the other gets 5 s before it is cut off.
void wait_or_cut_off(ReplyWatch& watch, Session& source, Session& dest) {
  std::unique_lock lock(watch.mutex);
  const auto both = [&] { return watch.both_arrived(); };
  watch.changed.wait(lock, [&] { return both() || watch.one_failed(); });
  if (!both() && !watch.changed.wait_for(lock, std::chrono::seconds(5), both)) {
    if (!watch.replies.source) source.close_from_reader();
    if (!watch.replies.dest) dest.close_from_reader();
  }
}

FinalReplies await_final_replies(Session& source, Session& dest, Clock::duration timeout,
                                 const Session::MarkerCallback& on_dest_marker) {
  ReplyWatch watch;
  std::thread source_thread(read_final_reply, std::ref(watch), std::ref(source),
                            std::ref(watch.replies.source), timeout, Session::MarkerCallback{});
  std::thread dest_thread(read_final_reply, std::ref(watch), std::ref(dest),
                          std::ref(watch.replies.dest), timeout, on_dest_marker);
  wait_or_cut_off(watch, source, dest);
  source_thread.join();
  dest_thread.join();
  return std::move(watch.replies);
}

// The first failure among both final replies, if any.
Result<void> first_reply_error(const FinalReplies& replies) {
  for (const auto* reply : {&*replies.source, &*replies.dest}) {
    if (!*reply) {
      return make_error(reply->error());
    }
  }
  return {};
}

// -rst: the REST argument that resumes this transfer on both servers, if an earlier attempt left
// something to resume from (restart_state.hpp). Partial (-off/-len) transfers start over.
Result<std::optional<std::string>> resume_argument(Session& dest, const std::string& dest_path,
                                                   const TransferOptions& options,
                                                   std::optional<std::uint64_t> size_bytes) {
  const RestartState* restart = options.restart;
  if (restart == nullptr || !restart->resume || options.range.is_partial()) {
    return std::optional<std::string>{};
  }
  if (options.parallelism || options.udpx) {  // both keep the dest's 111 markers
    return restart_argument(true, restart->dest_ranges);
  }
  // A dest that sends markers (gridftpd) keeps its upload elsewhere until done: only its 111
  // ranges count. Others write in place, so the size of what our STOR began is what they hold.
  std::optional<std::uint64_t> dest_size;
  if (stream_resume_needs_size(*restart)) {
    auto held = dest.size(dest_path);
    if (!held) {
      return make_error(held.error());
    }
    dest_size = *held;
  }
  const auto held = stream_resume_offset(
      *restart, dest_size, size_bytes.value_or(std::numeric_limits<std::uint64_t>::max()));
  if (held == 0) {
    return std::optional<std::string>{};
  }
  return std::optional<std::string>{std::to_string(held)};
}

// What a dest reply during the transfer tells us: progress (112), confirmed ranges (111), and
// that the STOR began (1xx), which makes the dest's partial file ours to resume.
void note_dest_reply(const ParsedReply& reply, const TransferOptions& options,
                     std::uint64_t& marker_bytes) {
  if (options.restart != nullptr &&
      (reply.code == rc::kPerfMarker || reply.code == rc::kRestartMarker)) {
    options.restart->dest_sends_markers = true;
  }
  if (reply.code == rc::kPerfMarker) {
    if (const auto bytes = protocol::restart::parse_perf_marker_bytes(reply.lines)) {
      marker_bytes = *bytes;
      if (options.on_progress) {
        options.on_progress(*bytes);
      }
    }
    return;
  }
  if (options.restart == nullptr) {
    return;
  }
  if (record_range_marker(reply, *options.restart)) {
    return;
  }
  options.restart->dest_store_began = true;
}

// What the source says before the transfer: the -off/-len window, its size and its checksum.
struct SourcePlan {
  std::optional<PartialRange> range;
  std::optional<std::uint64_t> size_bytes;
  std::optional<std::string> expected;
};

Result<SourcePlan> plan_from_source(Session& source, const std::string& source_path,
                                    const TransferOptions& options) {
  // guc asks CKSM before SIZE; only -off without -len needs the size first.
  auto range = resolve_range(options.range, std::nullopt);
  std::optional<std::uint64_t> size_bytes;
  Result<std::optional<std::string>> expected = std::optional<std::string>{};
  if (range) {
    expected = source_checksum(&source, source_path, *range, options);
  }
  // A known -off/-len window gives ALLO its length, so guc sends no SIZE then.
  const bool window_known = range && range->has_value();
  if (expected && !window_known && source.has_feature("SIZE")) {
    auto size = source.size(source_path);
    if (!size) {
      return make_error(size.error());
    }
    size_bytes = *size;
  }
  if (!range && expected) {
    range = resolve_range(options.range, size_bytes);
    if (range) {
      expected = source_checksum(&source, source_path, *range, options);
    }
  }
  if (!range || !expected) {
    return make_error(range ? expected.error() : range.error());
  }
  return SourcePlan{*range, size_bytes, *expected};
}

// -size: what will move, where it is known.
void report_shape(const TransferOptions& options, const SourcePlan& plan) {
  if (options.ask_size && options.on_shape) {
    const auto shown =
        plan.range ? std::optional<std::uint64_t>(plan.range->length) : plan.size_bytes;
    if (shown) {
      options.on_shape(FileShape{shown, options.parallelism.value_or(1)});
    }
  }
}

// Prepares the dest (which may drop -p), brings the source back to MODE S if the dest cannot
// run MODE E, and asks the dest for restart markers under -rst.
Result<void> prepare_dest(Session& source, Session& dest, TransferOptions& options) {
  const bool source_in_mode_e = options.parallelism.has_value();
  if (auto prepared = prepare_session(dest, options); !prepared) {
    return make_error(prepared.error());
  }
  // Both ends must run the same mode: a dest without MODE E takes the source back to MODE S.
  if (source_in_mode_e && !options.parallelism) {
    if (auto moded = source.use_extended_block_mode(false); !moded) {
      return make_error(moded.error());
    }
  }
  // -rst: the dest's 111 markers say what it holds, also in stream mode and over UDPX
  // (gridftpd).
  if (options.restart != nullptr) {
    if (auto asked = dest.ask_restart_markers(kRestartMarkerSeconds); !asked) {
      return make_error(asked.error());
    }
  }
  return {};
}

// What the dest already held: a resumed file counts only what moves in this attempt.
std::uint64_t held_before_resume(const std::optional<std::string>& resume,
                                 const TransferOptions& options) {
  if (!resume) {
    return 0;
  }
  auto held = protocol::restart::parse_range_list(options.parallelism ? *resume : "0-" + *resume);
  return held ? held->covered_bytes() : 0;
}

// REST (when resuming) then STOR/ESTO on the dest, whose reply is read later.
Result<void> start_store(Session& dest, const std::string& dest_path,
                         const std::optional<PartialRange>& range,
                         const std::optional<std::string>& resume) {
  // The same list goes to both servers, right before their transfer commands (docs/WIRE.md §4.3).
  if (resume) {
    if (auto restarted = dest.restart_at(*resume); !restarted) {
      return make_error(restarted.error());
    }
  }
  // The dest answers STOR only once the source has connected, so its replies are read last.
  if (auto sent = dest.send_transfer_command(store_command(dest_path, range)); !sent) {
    return make_error(sent.error());
  }
  return {};
}

// OPTS RETR Parallelism (with -p; with -stripe -sbs the layout first), PORT to the dest's address
// (SPOR to every stripe's), REST (when resuming) and RETR/ERET on the source.
Result<void> start_retrieve(Session& source, const std::string& source_path,
                            const TransferOptions& options, const SourcePlan& plan,
                            const std::vector<protocol::control::HostPort>& stripes,
                            const std::optional<std::string>& resume) {
  if (options.stripe) {
    const auto command = retr_options_command(options.stripe->layout, options.parallelism);
    if (command) {
      if (auto set = source.set_retr_options(*command); !set) {
        return make_error(set.error());
      }
    }
  } else if (options.parallelism) {
    if (auto set = source.set_parallelism(*options.parallelism); !set) {
      return make_error(set.error());
    }
  }
  if (auto ported = source.send_striped_port(stripes); !ported) {
    return make_error(ported.error());
  }
  if (resume) {
    if (auto restarted = source.restart_at(*resume); !restarted) {
      return make_error(restarted.error());
    }
  }
  if (auto sent = source.send_transfer_command(retrieve_command(source_path, plan.range)); !sent) {
    return make_error(sent.error());
  }
  return {};
}

}  // namespace

Result<TransferStats> third_party_copy(Session& source, const std::string& source_path,
                                       Session& dest, const std::string& dest_path,
                                       const TransferOptions& requested) {
  const auto start = Clock::now();
  auto options = requested;  // -p turns into stream mode where a server lacks MODE E
  if (auto prepared = prepare_session(source, options); !prepared) {
    return make_error(prepared.error());
  }
  auto plan = plan_from_source(source, source_path, options);
  if (!plan) {
    return make_error(plan.error());
  }
  report_shape(options, *plan);
  if (auto prepared = prepare_dest(source, dest, options); !prepared) {
    return make_error(prepared.error());
  }
  // Dest is always passive and source always active (docs/WIRE.md §1.5); a striped dest names
  // every stripe (SPAS) and the source connects to each (SPOR).
  auto stripes = receiving_stripes(dest, options.stripe.has_value());
  if (!stripes) {
    return make_error(stripes.error());
  }
  if (auto allocated = send_allocate(dest, allocation_bytes(plan->size_bytes, plan->range));
      !allocated) {
    return make_error(allocated.error());
  }
  auto resume = resume_argument(dest, dest_path, options, plan->size_bytes);
  if (!resume) {
    return make_error(resume.error());
  }
  const std::uint64_t held_before = held_before_resume(*resume, options);
  if (auto started = start_store(dest, dest_path, plan->range, *resume); !started) {
    return make_error(started.error());
  }
  if (auto started = start_retrieve(source, source_path, options, *plan, *stripes, *resume);
      !started) {
    return make_error(started.error());
  }
  std::uint64_t marker_bytes = 0;
  auto replies = await_final_replies(
      source, dest, source.options().transfer_reply_timeout,
      [&](const ParsedReply& reply) { note_dest_reply(reply, options, marker_bytes); });
  if (auto replied = first_reply_error(replies); !replied) {
    return make_error(replied.error());
  }
  if (auto verified = verify_remote(dest, dest_path, plan->range, plan->expected, options);
      !verified) {
    return make_error(verified.error());
  }
  std::uint64_t bytes = plan->range ? plan->range->length : plan->size_bytes.value_or(marker_bytes);
  bytes = bytes > held_before ? bytes - held_before : 0;
  return TransferStats{bytes, Clock::now() - start, std::nullopt};
}

}  // namespace gridftp::client

namespace gridftp::client {
namespace {

// "226 Transfer complete: 5000 files, 20480000 bytes stored." (docs/WIRE.md §7.5).
BatchStored parse_batch_stored(const ParsedReply& reply) {
  BatchStored stored;
  unsigned long long files = 0;
  unsigned long long bytes = 0;
  const std::string text(reply.first_text());
  if (std::sscanf(text.c_str(), "Transfer complete: %llu files, %llu bytes", &files, &bytes) == 2) {
    stored = BatchStored{files, bytes};
  }
  return stored;
}

}  // namespace

Result<BatchStored> third_party_batch(Session& source, const std::string& source_dir, Session& dest,
                                      const std::string& dest_dir,
                                      const TransferOptions& requested) {
  auto options = batch_options(requested);
  for (auto* session : {&source, &dest}) {
    if (auto prepared = prepare_session(*session, options); !prepared) {
      return make_error(prepared.error());
    }
  }
  auto address = dest.request_passive();
  if (!address) {
    return make_error(address.error());
  }
  if (auto sent = dest.send_transfer_command("BSTO " + dest_dir); !sent) {
    return make_error(sent.error());
  }
  if (auto ported = source.send_port(*address); !ported) {
    return make_error(ported.error());
  }
  // No size limit: the dest could do nothing with a file left out ('R').
  if (auto sent = source.send_transfer_command("BRET 0 " + source_dir); !sent) {
    return make_error(sent.error());
  }
  auto replies = await_final_replies(source, dest, source.options().transfer_reply_timeout, {});
  if (auto replied = first_reply_error(replies); !replied) {
    return make_error(replied.error());
  }
  return parse_batch_stored(**replies.dest);
}

}  // namespace gridftp::client
