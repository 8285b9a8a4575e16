#include "client/data/mode_e_transfer.hpp"

#include <mutex>

#include "client/data/mode_e_receiver.hpp"
#include "client/data/mode_e_sender.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/restart/markers.hpp"

namespace gridftp::client {

namespace rc = protocol::control::reply_code;

namespace {

// The receiver's range markers during a put, kept for a -rst resume.
Session::MarkerCallback range_recorder(RestartState* restart) {
  if (restart == nullptr) {
    return {};
  }
  return [restart](const ParsedReply& reply) { (void)record_range_marker(reply, *restart); };
}

}  // namespace

bool record_range_marker(const ParsedReply& reply, RestartState& restart) {
  if (reply.code != rc::kRestartMarker) {
    return false;
  }
  if (reply.lines.empty()) {
    return true;
  }
  if (auto ranges = protocol::restart::parse_range_marker(reply.lines.front())) {
    restart.dest_ranges.insert(*ranges);
  }
  return true;
}

std::error_code with_server_reason(Session& session, std::error_code error,
                                   const Session::MarkerCallback& on_marker) {
  // The server replies once every stream has ended on its side too, which can take a few
  // seconds on a loaded host; its reply (451 for a failing disk) is the reason the user needs.
  (void)session.finish_transfer(std::chrono::seconds(10), on_marker);
  return error;
}

Result<void> send_allocate(Session& session, std::optional<std::uint64_t> size_bytes) {
  if (!size_bytes) {
    return {};
  }
  auto reply = session.control().command("ALLO " + std::to_string(*size_bytes));
  if (!reply) {
    return make_error(reply.error());
  }
  return {};
}

Result<std::uint64_t> receive_mode_e(Session& session, const StagedFile& staged,
                                     const ModeEReceiveRequest& request, ProgressTicker& progress) {
  if (auto set = session.set_parallelism(request.streams); !set) {
    return make_error(set.error());
  }
  std::mutex written_mutex;  // the streams' threads all write blocks
  auto receiver = ModeEReceiver::listen(
      session.local_address(),
      [&](std::uint64_t offset, std::string_view bytes) {
        auto written = staged.write_at(request.local_offset + offset, bytes);
        if (written && request.written != nullptr && !bytes.empty()) {
          std::lock_guard lock(written_mutex);
          request.written->insert(offset, offset + bytes.size());
        }
        progress.add(bytes.size(), Clock::now());
        return written;
      },
      session.options().data_timeout, session.data_channel_security(),
      session.options().tcp_buffer_bytes);
  if (!receiver) {
    return make_error(receiver.error());
  }
  // In MODE E the sender connects: the server gets PORT even for a get (docs/WIRE.md §2.1).
  if (auto ported = session.send_port((*receiver)->address()); !ported) {
    return make_error(ported.error());
  }
  (*receiver)->start();
  // REST goes right before the transfer command (RFC 3659 §5.3).
  if (request.resume) {
    if (auto restarted = session.restart_at(*request.resume); !restarted) {
      return make_error(restarted.error());
    }
  }
  if (auto begun = session.begin_transfer(request.command); !begun) {
    return make_error(begun.error());
  }
  auto received = (*receiver)->wait();
  if (!received) {
    return make_error(with_server_reason(session, received.error()));
  }
  if (auto done = session.finish_transfer(session.options().data_timeout); !done) {
    return make_error(done.error());
  }
  return received;
}

Result<std::vector<protocol::control::HostPort>> receiving_stripes(Session& session, bool striped) {
  if (striped) return session.request_striped_passive();
  auto address = session.request_passive();
  if (!address) return make_error(address.error());
  return std::vector<protocol::control::HostPort>{std::move(*address)};
}

Result<std::uint64_t> send_mode_e(Session& session, const LocalSource& source,
                                  const ModeESendRequest& request) {
  RestartState* restart = request.restart;
  // What the receiver confirmed in a failed attempt is not sent again (REST first, §4.3).
  std::optional<std::string> rest;
  protocol::restart::ByteRangeSet present;
  if (restart != nullptr && restart->resume) {
    rest = restart_argument(true, restart->dest_ranges);
    present = restart->dest_ranges;
  } else if (restart != nullptr) {
    restart->dest_ranges = {};
  }
  // In MODE E the receiver is passive (docs/WIRE.md §2.1); a striped one names every stripe.
  auto stripes = receiving_stripes(session, request.stripe.has_value());
  if (!stripes) {
    return make_error(stripes.error());
  }
  if (auto allocated = send_allocate(session, request.allocate_bytes); !allocated) {
    return make_error(allocated.error());
  }
  auto sender = ModeESender::create(
      source,
      SendPlan{std::move(*stripes), request.stripe ? request.stripe->layout : std::nullopt,
               request.streams, request.block_size_bytes, request.local_offset, request.length,
               session.options().data_timeout, session.data_channel_security(), request.progress,
               std::move(present), session.options().tcp_buffer_bytes});
  if (!sender) {
    return make_error(sender.error());
  }
  if (rest) {
    if (auto restarted = session.restart_at(*rest); !restarted) {
      return make_error(restarted.error());
    }
  }
  if (auto sent = session.send_transfer_command(request.command); !sent) {
    return make_error(sent.error());
  }
  (*sender)->start();
  if (auto begun = session.expect_transfer_start(); !begun) {
    (*sender)->cancel();
    return make_error(begun.error());
  }
  const auto record_ranges = range_recorder(restart);
  auto sent = (*sender)->wait();
  if (!sent) {
    (*sender)->close();
    return make_error(with_server_reason(session, sent.error(), record_ranges));
  }
  auto done = session.finish_transfer(session.options().data_timeout, record_ranges);
  // Our FIN comes after the 226, as globus-url-copy's does (docs/WIRE.md §2.5).
  (*sender)->close();
  if (!done) {
    return make_error(done.error());
  }
  return sent;
}

}  // namespace gridftp::client
