// One connection's bytes behind one interface, whatever carries them: clear TCP, TLS records over
// TCP (a DataLink after its DCAU or FTPS handshake), or memory (tests). Code that moves bytes takes
// a ByteStream&, so it runs unchanged over each, and tests drive it with no socket at all
// (docs/ARCHITECTURE.md, "The byte-stream seam").
//
// End of stream is TransportErrc::EndOfStream (a TCP FIN, a TLS close_notify, the memory peer's
// finish()), never asio::error::eof: callers outside transport/ test for our code alone.
#pragma once

#include <span>
#include <string>
#include <system_error>

#include "transport/asio.hpp"

namespace gridftp::transport {

class ByteStream {
 public:
  virtual ~ByteStream() = default;

  virtual asio::any_io_executor get_executor() = 0;
  // Some bytes into `out` (at least one), or `ec`: EndOfStream at a clean end, anything else
  // for a broken connection (to_error_code's values).
  virtual awaitable<std::size_t> read_some(std::span<char> out, std::error_code& ec) = 0;
  // All of `bytes`, or `ec`. `more`: more follows at once (one segment or record for both).
  virtual awaitable<void> write_all(std::span<const char> bytes, std::error_code& ec,
                                    bool more = false) = 0;
  // The end of what this side sends: TLS close_notify (clear TCP ends with the socket's close).
  virtual awaitable<void> finish(std::error_code& ec) = 0;
  // Fails the pending and later operations (a stall watch or ABOR); safe to call twice.
  virtual void close() = 0;
  // The TCP socket when bytes reach it unchanged, so sendfile(2) may feed it; null otherwise.
  virtual tcp::socket* clear_socket() { return nullptr; }
  // True when the peer has ended its side and nothing it sent is left unread, found out without
  // waiting or taking a byte. gridftpd asks its control stream after a stream-mode upload's EOF:
  // a client that died closes control and data together, so a finished control stream says the
  // data EOF was no deliberate end of file. False when it cannot tell.
  virtual bool peer_has_finished() { return false; }
};

}  // namespace gridftp::transport
