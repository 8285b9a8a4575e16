#include "client/copy/third_party_pipeline.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "client/transfer/transfer_steps.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/restart/markers.hpp"

namespace gridftp::client {

namespace rc = protocol::control::reply_code;
namespace {

// After one server fails, the other gets this long to report before its connection is closed:
// its transfer can no longer finish, and the files are sent again on fresh sessions anyway.
constexpr auto kFailureGrace = std::chrono::seconds(2);

// MODE E with cached connections needs no per-file address commands; the first file of a fresh
// pair of sessions sets them up: dest PASV, source OPTS RETR and PORT (docs/WIRE.md §1.5).
Result<void> prime(Session& source, Session& dest, const TransferOptions& requested) {
  auto options = requested;
  if (auto prepared = prepare_session(source, options); !prepared) {
    return prepared;
  }
  if (auto prepared = prepare_session(dest, options); !prepared) {
    return prepared;
  }
  if (!options.parallelism) {
    // A server without MODE E cannot keep data connections from file to file: the files go
    // one by one instead (copy_pipelined's fallback).
    return make_error(make_error_code(std::errc::operation_not_supported));
  }
  auto address = dest.request_passive();
  if (!address) {
    return make_error(address.error());
  }
  if (auto set = source.set_parallelism(options.parallelism.value_or(1)); !set) {
    return set;
  }
  return source.send_port(*address);
}

Result<void> send_all(Session& source, Session& dest, const std::vector<PipelinedFile>& files) {
  // Dest first: it must be listening for the transfer before the source connects or reuses.
  for (const auto& file : files) {
    if (auto sent = dest.send_transfer_command("STOR " + file.dest_path); !sent) {
      return sent;
    }
  }
  for (const auto& file : files) {
    if (auto sent = source.send_transfer_command("RETR " + file.source_path); !sent) {
      return sent;
    }
  }
  return {};
}

// Reads one final reply per file on each session, each on its own thread, and closes the other
// side's connection shortly after a failure so a transfer that cannot finish does not hang us.
struct ReaderState {
  std::mutex mutex;
  std::condition_variable changed;
  std::atomic<std::size_t> source_done = 0;
  std::atomic<std::size_t> dest_done = 0;
  bool source_ended = false;
  bool dest_ended = false;
  std::error_code source_error;
  std::error_code dest_error;
};

void read_finals(Session& session, std::size_t count, ReaderState& state, bool is_dest,
                 std::vector<Clock::time_point>& finished_at,
                 const std::function<void(std::size_t, std::uint64_t)>& on_dest_marker) {
  for (std::size_t index = 0; index < count; ++index) {
    Session::MarkerCallback on_marker;
    if (is_dest && on_dest_marker) {
      on_marker = [&, index](const ParsedReply& reply) {
        if (reply.code != rc::kPerfMarker) {
          return;
        }
        if (const auto bytes = protocol::restart::parse_perf_marker_bytes(reply.lines)) {
          on_dest_marker(index, *bytes);
        }
      };
    }
    auto reply = session.finish_transfer(session.options().transfer_reply_timeout, on_marker);
    if (!reply) {
      std::lock_guard lock(state.mutex);
      (is_dest ? state.dest_error : state.source_error) = reply.error();
      break;
    }
    // Only this thread writes its count and the waiter reads it after both threads end, so a
    // file's success needs no lock or wake-up (both cost a futex each per file at -cc 8).
    if (is_dest) {
      finished_at[index] = Clock::now();
      state.dest_done.fetch_add(1, std::memory_order_relaxed);
    } else {
      state.source_done.fetch_add(1, std::memory_order_relaxed);
    }
  }
  std::lock_guard lock(state.mutex);
  (is_dest ? state.dest_ended : state.source_ended) = true;
  state.changed.notify_all();
}

// Waits until both readers ended, or one failed and the other then had kFailureGrace to end; a
// reader still waiting after that has its connection closed, which ends its read.
void wait_for_readers(ReaderState& state, Session& source, Session& dest) {
  std::unique_lock lock(state.mutex);
  const auto both_ended = [&] { return state.source_ended && state.dest_ended; };
  const auto failed = [&] { return state.source_error || state.dest_error; };
  state.changed.wait(lock, [&] { return both_ended() || failed(); });
  if (both_ended() || state.changed.wait_for(lock, kFailureGrace, both_ended)) {
    return;
  }
  if (!state.source_ended) source.close_from_reader();
  if (!state.dest_ended) dest.close_from_reader();
}

}  // namespace

PipelineOutcome run_third_party_pipeline(
    Session& source, Session& dest, const std::vector<PipelinedFile>& files,
    const TransferOptions& options, bool primed,
    const std::function<void(std::size_t, std::uint64_t)>& on_dest_marker) {
  PipelineOutcome outcome;
  outcome.finished_at.resize(files.size());
  if (!primed) {
    if (auto ready = prime(source, dest, options); !ready) {
      outcome.error = ready.error();
      return outcome;
    }
  }
  if (auto sent = send_all(source, dest, files); !sent) {
    outcome.error = sent.error();
    return outcome;
  }
  ReaderState state;
  std::thread source_reader(read_finals, std::ref(source), files.size(), std::ref(state), false,
                            std::ref(outcome.finished_at), std::cref(on_dest_marker));
  std::thread dest_reader(read_finals, std::ref(dest), files.size(), std::ref(state), true,
                          std::ref(outcome.finished_at), std::cref(on_dest_marker));
  wait_for_readers(state, source, dest);
  source_reader.join();
  dest_reader.join();
  outcome.completed = std::min(state.source_done.load(), state.dest_done.load());
  if (outcome.completed < files.size()) {
    outcome.error = state.source_error ? state.source_error : state.dest_error;
    if (!outcome.error) {
      outcome.error = make_error_code(std::errc::connection_aborted);
    }
  }
  return outcome;
}

}  // namespace gridftp::client
