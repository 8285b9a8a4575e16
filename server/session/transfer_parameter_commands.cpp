#include "server/session/transfer_parameter_commands.hpp"

#include <charconv>
#include <cstdio>

#include "protocol/control/reply_codes.hpp"
#include "protocol/control/retr_options.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/core/text_case.hpp"
#include "protocol/restart/byte_range_set.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;

}  // namespace

TransferParameterCommands::TransferParameterCommands(StreamCache& cached_streams,
                                                     SessionReplies& replies)
    : cached_streams_(cached_streams), replies_(replies) {}

transport::awaitable<void> TransferParameterCommands::on_type(const std::string& argument) {
  const auto type = protocol::ascii_upper(argument);
  if (type == "I" || type == "L 8" || type == "L8") {
    settings_.ascii = false;
    replies_.send(rc::kCommandOk, "Type set to I.");
  } else if (type == "A" || type == "A N") {
    settings_.ascii = true;
    replies_.send(rc::kCommandOk, "Type set to A.");
  } else {
    replies_.send_error(Condition::ParameterNotImplemented,
                        "Type " + argument.substr(0, 16) + " not supported.");
  }
  co_return;
}

transport::awaitable<void> TransferParameterCommands::on_mode(const std::string& argument) {
  const auto mode = protocol::ascii_upper(argument);
  if (mode == "S" || mode == "E") {
    if (settings_.mode_e != (mode == "E")) cached_streams_.drop();
    settings_.mode_e = mode == "E";
    replies_.send(rc::kCommandOk, "Mode set to " + mode + ".");
  } else {
    replies_.send_error(Condition::ParameterNotImplemented,
                        "'MODE " + argument.substr(0, 16) + "' unrecognized transfer mode.");
  }
  co_return;
}

transport::awaitable<void> TransferParameterCommands::on_stru(const std::string& argument) {
  if (protocol::ascii_upper(argument) == "F") {
    replies_.send(rc::kCommandOk, "STRU F ok.");
  } else {
    replies_.send_error(Condition::ParameterNotImplemented, "Only file structure is supported.");
  }
  co_return;
}

transport::awaitable<void> TransferParameterCommands::on_allo(const std::string& argument) {
  // Space is not reserved ahead of time (the upload fails with 452 if the disk fills), but the
  // size is kept: an upload that ends short of it was cut off, not complete.
  std::uint64_t bytes = 0;
  const auto* end = argument.data() + argument.size();
  const auto [ptr, ec] = std::from_chars(argument.data(), end, bytes);
  if (ec == std::errc() && (ptr == end || *ptr == ' ')) settings_.allocated_bytes = bytes;
  replies_.send(rc::kCommandOk, "ALLO command successful.");
  co_return;
}

transport::awaitable<void> TransferParameterCommands::on_rest(const std::string& argument) {
  if (argument.find('-') != std::string::npos) {
    // MODE E form (docs/WIRE.md §4.3): the ranges already at the receiver,
    // "0-4980736,5242880-6000000".
    auto ranges = protocol::restart::parse_range_list(argument);
    if (!ranges) {
      replies_.send_error(Condition::BadSyntax, "bad parameter.");
      co_return;
    }
    settings_.restart_with(std::move(*ranges));
    replies_.send(rc::kPendingFurtherInfo,
                  "Restart Marker OK. Send STORE or RETR to initiate transfer.");
    co_return;
  }
  std::uint64_t offset = 0;
  const auto* end = argument.data() + argument.size();
  const auto [ptr, ec] = std::from_chars(argument.data(), end, offset);
  if (argument.empty() || ec != std::errc() || ptr != end) {
    replies_.send_error(Condition::BadSyntax, "Bad REST parameter.");
    co_return;
  }
  settings_.restart_at(offset);
  replies_.send(rc::kPendingFurtherInfo,
                "Restarting at " + argument + ". Send STORE or RETRIEVE to initiate transfer.");
}

transport::awaitable<void> TransferParameterCommands::on_trev(const std::string& argument) {
  // "TREV RESTART|PERF <seconds>": the marker period while receiving (GFD.20 markers).
  unsigned seconds = 0;
  char kind[16] = {};
  if (std::sscanf(argument.c_str(), "%15s %u", kind, &seconds) != 2 || seconds == 0 ||
      seconds > 3600) {
    replies_.send_error(Condition::BadSyntax, "TREV RESTART|PERF <seconds>.");
    co_return;
  }
  settings_.marker_seconds = seconds;
  if (protocol::ascii_upper(kind) == "RESTART") settings_.restart_markers = true;
  replies_.send(rc::kCommandOk, "Command Successful.");
}

transport::awaitable<void> TransferParameterCommands::on_opts(const std::string& argument) {
  const auto option = protocol::ascii_upper(argument);
  if (option == "UTF8 ON" || option == "UTF8") {
    replies_.send(rc::kCommandOk, "UTF8 mode enabled.");
  } else if (option.starts_with("RETR ")) {
    auto retr = protocol::control::parse_retr_options(argument.substr(5));
    if (!retr) {
      replies_.send_error(Condition::BadSyntax, "Bad OPTS RETR parameters.");
      co_return;
    }
    if (retr->parallelism) settings_.parallelism = *retr->parallelism;
    if (retr->stripe_layout)
      settings_.stripe_layout.kind = *retr->stripe_layout == "Partitioned"
                                         ? protocol::mode_e::StripeLayout::Kind::Partitioned
                                         : protocol::mode_e::StripeLayout::Kind::Blocked;
    if (retr->block_size) settings_.stripe_layout.block_size = *retr->block_size;
    replies_.send(rc::kCommandOk, "OPTS Command Successful.");
  } else if (option.starts_with("MLST ")) {
    replies_.send(
        rc::kCommandOk,
        "MLST OPTS "
        "Type;Size;Modify;Perm;UNIX.mode;UNIX.owner;UNIX.uid;UNIX.group;UNIX.gid;Unique;");
  } else {
    replies_.send_error(Condition::BadSyntax, "OPTS not understood.");
  }
  co_return;
}

}  // namespace gridftp::server
