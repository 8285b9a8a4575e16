// A frontend's control connection to one mover (docs/STRIPING.md): TCP, then TLS in which each
// side proves itself with its host certificate (the mover accepts only the frontends it lists),
// then FTP command lines and replies inside it. The frontend drives the mover with the verbs
// any client uses plus the mover's SITE STRIPE commands. Runs on the session's strand; one
// command at a time, while a reply reader may wait for a transfer's final reply and ABOR is
// written beside it.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "protocol/control/reply_parser.hpp"
#include "protocol/core/result.hpp"
#include "security/openssl_ptr.hpp"
#include "transport/asio.hpp"
#include "transport/byte_stream.hpp"

namespace gridftp::server::striping {

class MoverLink {
 public:
  // Connects to `mover`, runs the TLS handshake with `context` (our host credential, the CA
  // directory as trust) and reads the mover's 220, all within `timeout`.
  // Errors: the connect's, the handshake's, TransportErrc::TimedOut, BadReply for a greeting
  // that is not 220.
  static transport::awaitable<Result<std::unique_ptr<MoverLink>>> open(
      transport::asio::any_io_executor executor, transport::tcp::endpoint mover,
      const security::SslCtxPtr& context, std::chrono::seconds timeout);

  MoverLink(std::unique_ptr<transport::ByteStream> stream, transport::tcp::endpoint mover,
            std::string identity);
  MoverLink(const MoverLink&) = delete;
  MoverLink& operator=(const MoverLink&) = delete;

  // Sends `line` and returns the next reply (a 1xx for transfer commands; read_reply() then
  // waits for the rest). Errors: the stream's, or the reply parser's.
  transport::awaitable<Result<protocol::control::ParsedReply>> command(std::string line);
  // The next reply; waits as long as the mover takes (a transfer's 226 comes when it is done).
  transport::awaitable<Result<protocol::control::ParsedReply>> read_reply();
  // Writes `line` without reading anything (ABOR while a transfer's reply is awaited).
  transport::awaitable<Result<void>> send_only(std::string line);
  // Fails every pending read and write; the link is unusable afterwards.
  void close();
  bool is_open() const { return open_; }

  const transport::tcp::endpoint& mover() const { return mover_; }
  // The mover's certificate identity, as its TLS handshake proved it.
  const std::string& identity() const { return identity_; }

 private:
  std::unique_ptr<transport::ByteStream> stream_;
  transport::tcp::endpoint mover_;
  std::string identity_;
  protocol::control::ReplyParser parser_;
  std::string unread_;  // bytes after the last complete reply
  bool open_ = true;
};

}  // namespace gridftp::server::striping
