// Session: from TCP connect to a logged-in control connection: greeting, AUTH GSSAPI or AUTH
// TLS, USER/PASS (docs/WIRE.md §1.2, §5.1, §6).
#include <utility>

#include "client/auth/ftps_control_channel.hpp"
#include "client/auth/gsi_authentication.hpp"
#include "client/auth/gsi_control_channel.hpp"
#include "client/session/session.hpp"
#include "client/session/tcp_control_channel.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"
#include "security/tls_contexts.hpp"

namespace gridftp::client {

namespace rc = protocol::control::reply_code;

namespace {

// The Globus client asks the gridmap for the DN's default account (docs/WIRE.md §1.2, §5.5).
constexpr const char* kGsiMappedUser = ":globus-mapping:";

}  // namespace

Result<std::unique_ptr<Session>> Session::connect(transport::asio::io_context& io, const Url& url,
                                                  const std::string& label,
                                                  const SessionOptions& options,
                                                  const std::shared_ptr<spdlog::logger>& log,
                                                  std::shared_ptr<const GsiCredentials> gsi) {
  const bool wants_gsi = url.scheme == Scheme::GsiFtp;
  const bool wants_ftps = url.scheme == Scheme::Ftps;
  if ((url.scheme != Scheme::Ftp && !wants_gsi && !wants_ftps) || (wants_gsi && !gsi)) {
    return make_error(make_error_code(protocol::Errc::BadArgument));
  }
  auto tcp = TcpControlChannel::connect(io, url.host, url.port, options.command_timeout);
  if (!tcp) {
    return make_error(tcp.error());
  }
  std::unique_ptr<ControlChannel> channel;
  GsiControlChannel* gsi_channel = nullptr;
  FtpsControlChannel* ftps_channel = nullptr;
  if (wants_gsi) {
    auto wrapped = std::make_unique<GsiControlChannel>(std::move(*tcp));
    gsi_channel = wrapped.get();
    channel = std::move(wrapped);
  } else if (wants_ftps) {
    auto wrapped = std::make_unique<FtpsControlChannel>(std::move(*tcp));
    ftps_channel = wrapped.get();
    channel = std::move(wrapped);
  } else {
    channel = std::move(*tcp);
  }
  auto control = std::make_unique<ControlConnection>(std::move(channel), label, log);
  control->set_command_timeout(options.command_timeout);
  auto session = std::make_unique<Session>(io, std::move(control), options);
  session->gsi_ = wants_gsi ? std::move(gsi) : nullptr;
  session->gsi_channel_ = gsi_channel;
  session->ftps_channel_ = ftps_channel;
  return session;
}

Result<void> Session::log_in(const Url& url, const std::string& expected_subject) {
  // GSI reads the greeting inside its exchange, with AUTH and the first token already sent.
  if (!gsi_) {
    if (auto greeted = read_greeting(); !greeted) {
      return greeted;
    }
  }
  if (auto authenticated = authenticate(url, expected_subject); !authenticated) {
    return authenticated;
  }
  if (pipelined()) {
    return {};  // USER, PASS and FEAT went with the last token: judged at the next reply read
  }
  if (auto logged_in = login(url); !logged_in) {
    return logged_in;
  }
  return read_features();
}

Session::Session(transport::asio::io_context& io, std::unique_ptr<ControlConnection> control,
                 SessionOptions options)
    : io_(io), control_(std::move(control)), options_(std::move(options)) {}

Result<void> Session::read_greeting() {
  auto greeting = control_->read_reply(options_.command_timeout);
  while (greeting && greeting->code == rc::kServiceReadySoon) {
    greeting = control_->read_reply(options_.command_timeout);
  }
  if (!greeting) {
    return make_error(greeting.error());
  }
  if (greeting->code / 100 != rc::kClassPositiveCompletion) {
    control_->note_failure("(greeting)", *greeting);
    return make_error(rejected_reply_error());
  }
  return {};
}

Result<void> Session::authenticate(const Url& url, const std::string& expected_subject) {
  if (ftps_channel_ != nullptr) {
    return start_ftps(url);
  }
  if (!gsi_) {
    return {};
  }
  // The login flight goes as soon as our side of the exchange is done, protected, before the 235.
  return authenticate_gsi(
      *control_, *gsi_, ExpectedServer{url.host, expected_subject}, login_failure_detail_,
      [this] { return read_greeting(); },
      [this, &url](security::TlsEngine engine) -> Result<void> {
        gsi_channel_->start_protection(std::move(engine));
        return send_login_ahead(url);
      });
}

// RFC 4217: AUTH TLS (234), the TLS handshake on the control connection, then PBSZ 0 and PROT P
// so every data connection is TLS too. A server without AUTH TLS gets no plaintext login.
Result<void> Session::start_ftps(const Url& url) {
  if (auto accepted = control_->command_expecting("AUTH TLS", rc::kClassPositiveCompletion);
      !accepted) {
    login_failure_detail_ = "the server does not offer FTPS (AUTH TLS); nothing was sent in clear";
    return make_error(accepted.error());
  }
  auto context = security::make_ftps_client_context(options_.ftps_trust);
  if (!context) {
    if (!options_.ftps_trust.ca_path.empty()) {
      login_failure_detail_ = "cannot load the CAs in " + options_.ftps_trust.ca_path;
    }
    return make_error(context.error());
  }
  auto engine = security::TlsEngine::create(context->get(), security::TlsEngine::Role::Client);
  if (!engine) {
    return make_error(engine.error());
  }
  if (options_.ftps_trust.verify) {
    if (auto named = engine->expect_host(url.host); !named) {
      return named;
    }
  }
  if (auto secured = ftps_channel_->start_tls(std::move(*engine), options_.command_timeout);
      !secured) {
    login_failure_detail_ =
        "TLS with " + url.origin() + " failed: " + ftps_channel_->handshake_detail();
    return secured;
  }
  for (const char* command : {"PBSZ 0", "PROT P"}) {
    if (auto set = control_->command_expecting(command, rc::kClassPositiveCompletion); !set) {
      return make_error(set.error());
    }
  }
  ftps_context_ = std::move(*context);
  ftps_host_ = url.host;
  return {};
}

Session::Credentials Session::login_credentials(const Url& url) const {
  const bool named = url.has_user && !url.user.empty();
  const std::string anonymous_user = gsi_ ? kGsiMappedUser : "anonymous";
  // GSI proves who we are; its PASS is empty (the plaintext is "PASS \r\n").
  return Credentials{named ? url.user : anonymous_user,
                     named ? url.password : (gsi_ ? std::string() : options_.anonymous_password)};
}

Result<void> Session::send_login_ahead(const Url& url) {
  // One flight, none of it waited for: the replies are judged when the session's next reply is
  // read (a refused login then fails that read with Errc::NotLoggedIn, naming USER or PASS),
  // and FEAT's when a feature is first asked about.
  const auto [user, password] = login_credentials(url);
  auto logged_in_by_user = std::make_shared<bool>(false);
  const auto refused = [this](const std::string& command, const ParsedReply& reply) {
    control_->note_failure(command, reply);
    return make_error(make_error_code(protocol::Errc::NotLoggedIn));
  };
  const auto user_command = "USER " + user;
  auto sent =
      control_->send_unanswered(user_command, [=](const ParsedReply& reply) -> Result<void> {
        *logged_in_by_user = reply.code / 100 == rc::kClassPositiveCompletion;
        if (*logged_in_by_user || reply.code / 100 == rc::kClassPositiveIntermediate) {
          return {};
        }
        return refused(user_command, reply);
      });
  if (!sent) {
    return sent;
  }
  sent =
      control_->send_unanswered("PASS " + password, [=](const ParsedReply& reply) -> Result<void> {
        // After a 230 to USER the PASS was needless and its refusal says nothing.
        if (*logged_in_by_user || reply.code / 100 == rc::kClassPositiveCompletion) {
          return {};
        }
        return refused("PASS", reply);
      });
  if (!sent) {
    return sent;
  }
  features_pending_ = true;
  return control_->send_unanswered("FEAT", [this](const ParsedReply& reply) -> Result<void> {
    take_features(reply);
    return {};
  });
}

Result<void> Session::login(const Url& url) {
  const auto [user, password] = login_credentials(url);
  auto user_reply = control_->command("USER " + user);
  if (!user_reply) {
    return make_error(user_reply.error());
  }
  if (user_reply->code / 100 == rc::kClassPositiveCompletion) {
    return {};  // no password needed
  }
  if (user_reply->code / 100 != rc::kClassPositiveIntermediate) {
    control_->note_failure("USER " + user, *user_reply);
    return make_error(make_error_code(protocol::Errc::NotLoggedIn));
  }
  auto pass_reply = control_->command("PASS " + password);
  if (!pass_reply) {
    return make_error(pass_reply.error());
  }
  if (pass_reply->code / 100 != rc::kClassPositiveCompletion) {
    control_->note_failure("PASS", *pass_reply);
    return make_error(make_error_code(protocol::Errc::NotLoggedIn));
  }
  return {};
}

}  // namespace gridftp::client
