// Third-party transfers (wire doc §1.5, §1.6.3): the client drives two servers' control
// connections; the data goes directly from source to dest.
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "client/mode_e_transfer.hpp"
#include "client/transfer.hpp"
#include "client/transfer_steps.hpp"
#include "protocol/restart/markers.hpp"

namespace gridftp::client {
namespace {

// Performance marker (wire doc §4.1); its text carries the dest's byte count.
constexpr int kPerfMarkerCode = 112;

// Both final replies of a third-party transfer, each read on its own thread (the sessions have
// their own io_contexts). When one side fails, the other gets a short grace to report, then its
// control connection is closed so that a transfer that can no longer finish does not hang.
struct FinalReplies {
  std::optional<Result<ParsedReply>> source;
  std::optional<Result<ParsedReply>> dest;
};

FinalReplies await_final_replies(Session& source, Session& dest, Clock::duration timeout,
                                 const Session::MarkerCallback& on_dest_marker) {
  std::mutex mutex;
  std::condition_variable changed;
  FinalReplies replies;
  const auto watch = [&](Session& session, std::optional<Result<ParsedReply>>& slot,
                         const Session::MarkerCallback& on_marker) {
    auto reply = session.finish_transfer(timeout, on_marker);
    std::lock_guard lock(mutex);
    slot.emplace(std::move(reply));
    changed.notify_all();
  };
  std::thread source_thread(watch, std::ref(source), std::ref(replies.source),
                            Session::MarkerCallback{});
  std::thread dest_thread(watch, std::ref(dest), std::ref(replies.dest), on_dest_marker);
  {
    std::unique_lock lock(mutex);
    const auto failed = [&] {
      return (replies.source && !*replies.source) || (replies.dest && !*replies.dest);
    };
    const auto both = [&] { return replies.source && replies.dest; };
    changed.wait(lock, [&] { return both() || failed(); });
    if (!both() && !changed.wait_for(lock, std::chrono::seconds(5), both)) {
      for (auto [session, slot] : {std::pair{&source, &replies.source}, {&dest, &replies.dest}}) {
        if (!*slot) {
          // Runs inside that thread's read (its io_context), never beside it.
          transport::asio::post(session->io(), [session] { session->control().channel().close(); });
        }
      }
    }
  }
  source_thread.join();
  dest_thread.join();
  return replies;
}

}  // namespace

Result<TransferStats> third_party_copy(Session& source, const std::string& source_path,
                                       Session& dest, const std::string& dest_path,
                                       const TransferOptions& options) {
  const auto start = Clock::now();
  if (auto prepared = prepare_session(source, options); !prepared) {
    return make_error(prepared.error());
  }
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
  if (auto prepared = prepare_session(dest, options); !prepared) {
    return make_error(prepared.error());
  }
  // Dest is always passive and source always active (wire doc §1.5).
  auto address = dest.request_passive();
  if (!address) {
    return make_error(address.error());
  }
  if (auto allocated = send_allocate(dest, allocation_bytes(size_bytes, *range)); !allocated) {
    return make_error(allocated.error());
  }
  // The dest answers STOR only once the source has connected, so its replies are read last.
  if (auto sent = dest.send_transfer_command(store_command(dest_path, *range)); !sent) {
    return make_error(sent.error());
  }
  if (options.parallelism) {
    if (auto set = source.set_parallelism(*options.parallelism); !set) {
      return make_error(set.error());
    }
  }
  if (auto ported = source.send_port(*address); !ported) {
    return make_error(ported.error());
  }
  if (auto sent = source.send_transfer_command(retrieve_command(source_path, *range)); !sent) {
    return make_error(sent.error());
  }
  std::uint64_t marker_bytes = 0;
  auto replies = await_final_replies(
      source, dest, source.options().transfer_reply_timeout, [&](const ParsedReply& reply) {
        const auto bytes = protocol::restart::parse_perf_marker_bytes(reply.lines);
        if (reply.code == kPerfMarkerCode && bytes) {
          marker_bytes = *bytes;
          if (options.on_progress) {
            options.on_progress(*bytes);
          }
        }
      });
  for (auto* reply : {&*replies.source, &*replies.dest}) {
    if (!*reply) {
      return make_error(reply->error());
    }
  }
  if (auto verified = verify_remote(dest, dest_path, *range, *expected, options); !verified) {
    return make_error(verified.error());
  }
  const std::uint64_t bytes =
      *range ? (*range)->length : size_bytes.value_or(marker_bytes);
  return TransferStats{bytes, Clock::now() - start};
}

}  // namespace gridftp::client
