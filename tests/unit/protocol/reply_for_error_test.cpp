#include "protocol/control/reply_for_error.hpp"

#include <cerrno>
#include <future>
#include <string>
#include <system_error>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/control/reply.hpp"
#include "protocol/core/errors.hpp"

using gridftp::Condition;
using gridftp::error_code_for;
using gridftp::protocol::Errc;
using gridftp::protocol::control::format_reply;
using gridftp::protocol::control::reply_for_error;

namespace {

void check_well_formed(const gridftp::protocol::control::Reply& reply) {
  REQUIRE(reply.lines.size() == 1);
  CHECK_FALSE(reply.lines[0].empty());
  CHECK(reply.code >= 400);  // errors are transient (4yz) or permanent (5yz) negatives
  CHECK(reply.code <= 599);
  const auto wire = format_reply(reply);
  CHECK(wire.find("\r\n") == wire.size() - 2);
}

}  // namespace

TEST_CASE("reply_for_error maps every Condition to its reply code", "[control][reply_for_error]") {
  auto [condition, code] = GENERATE(table<Condition, int>({
      {Condition::NotLoggedIn, 530},
      {Condition::BadSequence, 503},
      {Condition::BadSyntax, 501},
      {Condition::UnknownCommand, 500},
      {Condition::NotImplemented, 502},
      {Condition::ParameterNotImplemented, 504},
      {Condition::NotFound, 550},
      {Condition::PermissionDenied, 550},
      {Condition::AlreadyExists, 553},
      {Condition::DirectoryNotEmpty, 550},
      {Condition::NotADirectory, 550},
      {Condition::IsADirectory, 550},
      {Condition::NoSpace, 452},
      {Condition::DataConnection, 425},
      {Condition::UnexpectedDataPeer, 425},
      {Condition::UnexpectedDataIdentity, 425},
      {Condition::TransferAborted, 426},
      {Condition::ProtectionRequired, 536},
      {Condition::LineTooLong, 500},
      {Condition::TooManySessions, 421},
      {Condition::LoginFailed, 530},
      {Condition::BadAddress, 501},
      {Condition::UnsupportedNetworkProtocol, 522},
      {Condition::FileNameNotAllowed, 553},
      {Condition::TransferFailed, 451},
      {Condition::DiskStalled, 451},
      {Condition::ServiceClosing, 421},
      {Condition::ProtectionDenied, 533},
      {Condition::IntegrityCheckFailed, 535},
      {Condition::NotRegularFile, 550},
      {Condition::LocalError, 451},
  }));
  INFO("condition " << static_cast<int>(condition) << ": " << error_code_for(condition).message());
  const auto reply = reply_for_error(error_code_for(condition));
  CHECK(reply.code == code);
  check_well_formed(reply);
}

TEST_CASE("reply_for_error gives every Condition enumerator a named, well-formed error reply",
          "[control][reply_for_error]") {
  // LocalError is the last enumerator; everything from NotLoggedIn up to it must be handled.
  const auto last = static_cast<int>(Condition::LocalError);
  for (int value = 1; value <= last; ++value) {
    const std::error_code ec(value, gridftp::condition_category());
    INFO("condition " << value);
    CHECK(ec.message() != "unknown condition");
    const auto reply = reply_for_error(ec);
    check_well_formed(reply);
    if (value != last && value != static_cast<int>(Condition::TransferFailed)) {
      // Only LocalError (and TransferFailed) may fall through to the generic "local error".
      CHECK(reply.lines[0] != "Local error in processing.");
    }
  }
}

TEST_CASE("reply_for_error maps errno values from storage", "[control][reply_for_error]") {
  auto [error, code] = GENERATE(table<int, int>({
      {ENOENT, 550},       {EACCES, 550},       {EPERM, 550},     {EROFS, 550},
      {EXDEV, 550},        {ELOOP, 550},        {ENOTDIR, 550},   {EISDIR, 550},
      {EEXIST, 553},       {ENOTEMPTY, 550},    {ENOSPC, 452},    {EDQUOT, 452},
      {EFBIG, 452},        {ENAMETOOLONG, 553}, {EINVAL, 553},    {ECONNREFUSED, 425},
      {ECONNRESET, 425},   {EPIPE, 425},        {ETIMEDOUT, 425}, {ENETUNREACH, 425},
      {EHOSTUNREACH, 425}, {ECANCELED, 426},    {EIO, 451},       {ENOMEM, 451},
  }));
  INFO("errno " << error << ": " << std::generic_category().message(error));
  const auto generic = reply_for_error(std::error_code(error, std::generic_category()));
  CHECK(generic.code == code);
  check_well_formed(generic);
  const auto system = reply_for_error(std::error_code(error, std::system_category()));
  CHECK(system.code == code);
}

TEST_CASE("reply_for_error maps protocol::Errc values", "[control][reply_for_error]") {
  auto [errc, code] = GENERATE(table<Errc, int>({
      {Errc::LineTooLong, 500},
      {Errc::EmptyCommand, 500},
      {Errc::UnknownVerb, 500},
      {Errc::MissingArgument, 501},
      {Errc::UnexpectedArgument, 501},
      {Errc::BadArgument, 501},
      {Errc::BadHostPort, 501},
      {Errc::UnsupportedAddressFamily, 522},
      {Errc::BadSequence, 503},
      {Errc::NotLoggedIn, 530},
      {Errc::BadReply, 501},
      {Errc::PathEscapesRoot, 550},
  }));
  INFO("errc " << static_cast<int>(errc) << ": " << make_error_code(errc).message());
  const auto reply = reply_for_error(make_error_code(errc));
  CHECK(reply.code == code);
  check_well_formed(reply);
}

TEST_CASE("reply_for_error gives 451 for an unrelated or empty error",
          "[control][reply_for_error]") {
  CHECK(reply_for_error(std::make_error_code(std::future_errc::broken_promise)).code == 451);
  CHECK(reply_for_error(std::error_code(12345, gridftp::condition_category())).code == 451);
  CHECK(reply_for_error(std::error_code(999, gridftp::protocol::protocol_category())).code == 451);
  CHECK(reply_for_error(std::error_code()).code == 451);
}

TEST_CASE("reply_for_error distinguishes not-logged-in from login-failed text",
          "[control][reply_for_error]") {
  const auto not_logged_in = reply_for_error(error_code_for(Condition::NotLoggedIn));
  const auto failed = reply_for_error(error_code_for(Condition::LoginFailed));
  CHECK(not_logged_in.code == failed.code);
  CHECK(not_logged_in.lines != failed.lines);
}

TEST_CASE("reply_for_error with a text keeps the row's code and takes the caller's wording",
          "[control][reply_for_error]") {
  auto [condition, text] = GENERATE(table<Condition, std::string>({
      {Condition::BadAddress, "Illegal PORT command: data port below 1024 refused."},
      {Condition::ServiceClosing, "Idle timeout; closing control connection."},
      {Condition::NotRegularFile, "Not a regular file; give a length with ERET."},
      {Condition::LocalError, "Something else."},
  }));
  const auto ec = error_code_for(condition);
  const auto reply = reply_for_error(ec, text);
  CHECK(reply.code == reply_for_error(ec).code);
  REQUIRE(reply.lines.size() == 1);
  CHECK(reply.lines[0] == text);
  CHECK(format_reply(reply) == std::to_string(reply.code) + " " + text + "\r\n");
}

TEST_CASE("reply_for_error with a text maps errno and protocol codes as the row does",
          "[control][reply_for_error]") {
  const auto empty = reply_for_error(make_error_code(Errc::EmptyCommand), "Empty command.");
  CHECK(format_reply(empty) == "500 Empty command.\r\n");
  const auto not_dir =
      reply_for_error(std::error_code(ENOTDIR, std::generic_category()), "Not there.");
  CHECK(format_reply(not_dir) == "550 Not there.\r\n");
}

TEST_CASE("reply_for_error with lines gives a Globus-style multi-line reply",
          "[control][reply_for_error]") {
  const auto reply = reply_for_error(
      error_code_for(Condition::LoginFailed),
      std::vector<std::string>{"Login incorrect. : Gridmap lookup failure: Could not map /CN=x",
                               "End."});
  CHECK(reply.code == 530);
  CHECK(format_reply(reply) ==
        "530-Login incorrect. : Gridmap lookup failure: Could not map /CN=x\r\n530 End.\r\n");
  const auto single =
      reply_for_error(error_code_for(Condition::NotLoggedIn), std::vector<std::string>{"Only."});
  CHECK(format_reply(single) == "530 Only.\r\n");
}

TEST_CASE("reply_for_error keeps the texts the session's replies are known by",
          "[control][reply_for_error]") {
  // Interop and integration tests, and real clients, read these exact lines.
  CHECK(format_reply(reply_for_error(error_code_for(Condition::ProtectionDenied))) ==
        "533 Command protection level denied for cleartext; use ENC.\r\n");
  CHECK(format_reply(reply_for_error(error_code_for(Condition::NotRegularFile))) ==
        "550 Not a plain file.\r\n");
  CHECK(format_reply(reply_for_error(error_code_for(Condition::NotADirectory))) ==
        "550 Not a directory.\r\n");
  CHECK(format_reply(reply_for_error(error_code_for(Condition::NotImplemented))) ==
        "502 Command not implemented.\r\n");
  CHECK(format_reply(reply_for_error(error_code_for(Condition::BadAddress))) ==
        "501 Illegal PORT command.\r\n");
}
