#include "client/session/session.hpp"

#include <algorithm>
#include <utility>

#include "client/auth/ftps_control_channel.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::client {

namespace rc = protocol::control::reply_code;

namespace {

// send_setting() for a request whose refusal changes nothing (SBUF, TREV).
constexpr int kAnyReply = 0;

char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return to_lower(x) == to_lower(y);
         });
}

std::string_view first_word(std::string_view line) {
  const auto start = line.find_first_not_of(' ');
  if (start == std::string_view::npos) {
    return {};
  }
  line.remove_prefix(start);
  return line.substr(0, line.find(' '));
}

}  // namespace

Result<void> Session::read_features() {
  auto reply = control_->command("FEAT");
  if (!reply) {
    return make_error(reply.error());
  }
  take_features(*reply);
  return {};
}

void Session::take_features(const ParsedReply& reply) {
  features_pending_ = false;
  // A server without FEAT (RFC 2389 is optional) just has no features.
  if (reply.code / 100 == rc::kClassPositiveCompletion && reply.lines.size() > 2) {
    features_.assign(reply.lines.begin() + 1, reply.lines.end() - 1);
  }
}

bool Session::has_feature(std::string_view name) {
  if (features_pending_) {
    // A failure here (a refused login) stays with the connection: its next read reports it.
    (void)control_->read_unanswered();
    features_pending_ = false;
  }
  return std::any_of(features_.begin(), features_.end(), [&](const std::string& line) {
    return equals_ignoring_case(first_word(line), name);
  });
}

Result<void> Session::send_setting(const std::string& command, int expected_class) {
  if (pipelined()) {
    return control_->send_unanswered(command, expected_class);
  }
  auto reply = expected_class == 0 ? control_->command(command)
                                   : control_->command_expecting(command, expected_class);
  if (!reply) {
    return make_error(reply.error());
  }
  return {};
}

Result<void> Session::use_binary_type() {
  if (binary_type_) {
    return {};
  }
  if (auto set = send_setting("TYPE I", rc::kClassPositiveCompletion); !set) {
    return set;
  }
  binary_type_ = true;
  return {};
}

Result<bool> Session::use_extended_block_mode(bool extended) {
  if (extended && extended_block_mode_refused_) {
    return false;
  }
  if (extended == extended_block_mode_) {
    return extended;
  }
  const char* command = extended ? "MODE E" : "MODE S";
  auto reply = control_->command(command);
  if (!reply) {
    return make_error(reply.error());
  }
  // RFC 959 §4.2: 500-502 and 504 say the server does not know or offer MODE E; stream mode
  // still moves the same bytes, one connection instead of -p.
  const bool not_offered = reply->code >= rc::kSyntaxError &&
                           reply->code <= rc::kParameterNotImplemented &&
                           reply->code != rc::kBadSequence;
  if (extended && not_offered) {
    extended_block_mode_refused_ = true;
    control_->warn("no MODE E (" + std::string(reply->first_text()) +
                   "): stream mode, one data connection");
    return false;
  }
  if (reply->code / 100 != rc::kClassPositiveCompletion) {
    control_->note_failure(command, *reply);
    return make_error(rejected_reply_error());
  }
  extended_block_mode_ = extended;
  return extended;
}

Result<void> Session::set_parallelism(unsigned streams) {
  if (streams == parallelism_) {
    return {};
  }
  if (auto set = set_retr_options(parallelism_command(streams)); !set) {
    return set;
  }
  parallelism_ = streams;
  return {};
}

Result<void> Session::set_retr_options(const std::string& command) {
  if (command == retr_options_) {
    return {};
  }
  if (auto set = send_setting(command, rc::kClassPositiveCompletion); !set) {
    return set;
  }
  retr_options_ = command;
  return {};
}

Result<void> Session::use_tcp_buffer() {
  if (options_.tcp_buffer_bytes == 0 || tcp_buffer_sent_) {
    return {};
  }
  if (auto sent = send_setting(buffer_size_command(options_.tcp_buffer_bytes, has_feature("SBUF")),
                               kAnyReply);
      !sent) {
    return sent;
  }
  tcp_buffer_sent_ = true;
  return {};
}

Result<void> Session::ask_restart_markers(unsigned seconds) {
  if (restart_markers_asked_) {
    return {};
  }
  if (auto sent = send_setting("TREV RESTART " + std::to_string(seconds), kAnyReply); !sent) {
    return sent;
  }
  restart_markers_asked_ = true;
  return {};
}

Result<void> Session::use_net_stack(const std::string& stack) {
  if (stack == net_stack_) {
    return {};
  }
  if (auto set = send_setting("SITE SETNETSTACK " + stack, rc::kClassPositiveCompletion); !set) {
    return set;
  }
  net_stack_ = stack;
  return {};
}

Result<void> Session::use_data_security(const DataSecurityLevel& level) {
  if (!gsi_) {
    return {};
  }
  auto state = data_security_;
  for (const auto& command : data_security_commands(state, level)) {
    if (auto set = send_setting(command, rc::kClassPositiveCompletion); !set) {
      return set;
    }
  }
  data_security_ = state;
  return {};
}

DataChannelSecurity Session::data_channel_security() const {
  if (ftps_context_) {
    auto ftps = std::make_shared<FtpsDataTls>(
        FtpsDataTls{security::share_context(ftps_context_.get()), ftps_host_,
                    options_.ftps_trust.verify, ftps_channel_->resumable_session()});
    return DataChannelSecurity{nullptr, security::DataProtection::Private, std::move(ftps)};
  }
  if (!gsi_ || !data_security_.level.authenticate) {
    return {};
  }
  return DataChannelSecurity{gsi_, data_security_.level.protection, nullptr};
}

Result<void> Session::send_transfer_ahead(const std::optional<std::string>& rest,
                                          const std::string& command) {
  if (!pipelined()) {
    return {};
  }
  std::vector<std::string> flight{passive_command()};
  if (rest) {
    flight.push_back("REST " + *rest);
  }
  flight.push_back(command);
  for (const auto& line : flight) {
    if (auto sent = control_->send_ahead(line); !sent) {
      return sent;
    }
  }
  return {};
}

const char* Session::passive_command() const {
  return control_->channel().is_ipv6() ? "EPSV" : "PASV";
}

Result<protocol::control::HostPort> Session::request_passive() {
  const bool extended = control_->channel().is_ipv6();
  auto reply = control_->command_expecting(passive_command(), rc::kClassPositiveCompletion);
  if (!reply) {
    return make_error(reply.error());
  }
  auto address = extended ? protocol::control::parse_epsv_reply(reply->first_text())
                          : protocol::control::parse_pasv_reply(reply->first_text());
  if (!address) {
    control_->note_failure(passive_command(), *reply);
    return address;
  }
  if (address->address.empty() || address->address == "0.0.0.0") {
    address->address = control_->channel().peer_address();
  }
  return address;
}

Result<std::vector<protocol::control::HostPort>> Session::request_striped_passive() {
  const bool extended = control_->channel().is_ipv6();
  const char* command = extended ? "SPAS 2" : "SPAS";
  auto reply = control_->command_expecting(command, rc::kClassPositiveCompletion);
  if (!reply) {
    return make_error(reply.error());
  }
  auto stripes = protocol::control::parse_spas_reply(reply->lines);
  if (!stripes) {
    control_->note_failure(command, *reply);
    return stripes;
  }
  for (auto& stripe : *stripes) {
    if (stripe.address.empty() || stripe.address == "0.0.0.0") {
      stripe.address = control_->channel().peer_address();
    }
  }
  return stripes;
}

Result<void> Session::send_striped_port(const std::vector<protocol::control::HostPort>& stripes) {
  if (stripes.size() == 1) {
    return send_port(stripes.front());
  }
  auto argument = protocol::control::spor_argument_for(stripes);
  if (!argument) {
    return make_error(argument.error());
  }
  if (auto reply = control_->command_expecting("SPOR " + *argument, rc::kClassPositiveCompletion);
      !reply) {
    return make_error(reply.error());
  }
  return {};
}

Result<DataConnection> Session::open_passive_data() {
  auto address = request_passive();
  if (!address) {
    return make_error(address.error());
  }
  return DataConnection::connect(*address, options_.data_timeout, options_.tcp_buffer_bytes);
}

Result<void> Session::send_port(const protocol::control::HostPort& address) {
  auto port_argument = protocol::control::port_argument_for(address);
  auto eprt_argument = protocol::control::eprt_argument_for(address);
  if (!port_argument && !eprt_argument) {
    return make_error(eprt_argument.error());
  }
  const auto command = port_argument ? "PORT " + *port_argument : "EPRT " + *eprt_argument;
  if (auto reply = control_->command_expecting(command, rc::kClassPositiveCompletion); !reply) {
    return make_error(reply.error());
  }
  return {};
}

Result<void> Session::restart_at(const std::string& argument) {
  constexpr int kIntermediate = 3;
  auto reply = control_->command_expecting("REST " + argument, kIntermediate);
  if (!reply) {
    return make_error(reply.error());
  }
  return {};
}

Result<void> Session::restart_batch_at(const std::string& argument) {
  constexpr int kIntermediate = 3;
  auto reply = control_->command_expecting("BRST " + argument, kIntermediate);
  if (!reply) {
    return make_error(reply.error());
  }
  return {};
}

Result<ParsedReply> Session::begin_transfer(const std::string& command) {
  if (auto sent = send_transfer_command(command); !sent) {
    return make_error(sent.error());
  }
  return expect_transfer_start();
}

Result<void> Session::send_transfer_command(const std::string& command) {
  transfer_command_ = command;
  return control_->send(command);
}

Result<ParsedReply> Session::expect_transfer_start() {
  auto reply = control_->read_reply(options_.command_timeout);
  if (!reply) {
    return reply;
  }
  if (!reply->is_preliminary()) {
    control_->note_failure(transfer_command_, *reply);
    return make_error(rejected_reply_error());
  }
  transfer_began_ = true;
  return reply;
}

Result<ParsedReply> Session::finish_transfer(Clock::duration timeout,
                                             const MarkerCallback& on_marker) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const auto left = deadline - Clock::now();
    auto reply =
        control_->read_reply(left > Clock::duration::zero() ? left : Clock::duration::zero());
    if (!reply || reply->is_preliminary()) {
      if (!reply) {
        return reply;
      }
      // A pipelined transfer's 125/150 is read here; markers only come once it runs.
      transfer_began_ = true;
      if (on_marker) {
        on_marker(*reply);
      }
      continue;  // 111/112 markers and similar
    }
    const bool began = std::exchange(transfer_began_, false);  // the next one starts afresh
    if (reply->code / 100 != rc::kClassPositiveCompletion) {
      control_->note_failure(transfer_command_, *reply, began);
      return make_error(rejected_reply_error());
    }
    return reply;
  }
}

void Session::close_from_reader() {
  transport::asio::post(io_, [this] { control().channel().close(); });
}

}  // namespace gridftp::client
