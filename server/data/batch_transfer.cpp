#include "server/data/batch_transfer.hpp"

#include <string>

#include "server/data/stall_watch.hpp"

namespace gridftp::server {
namespace {

// Records are gathered into writes of about this size: many small files per TLS record batch
// and per syscall.
constexpr std::size_t kWriteBytes = 256 << 10;

}  // namespace

transport::awaitable<Result<void>> send_batch(tcp::socket& socket, transport::DataLink& link,
                                              BatchSource& source,
                                              std::chrono::seconds stall_timeout,
                                              TransferProgress& progress) {
  auto deadline = close_on_stall(socket.get_executor(), socket, stall_timeout);
  std::string out;
  out.reserve(kWriteBytes + 64 * 1024);
  Result<void> outcome;
  for (bool ended = false; !ended;) {
    out.clear();
    auto filled = source.encoder.fill(out, kWriteBytes);
    if (!filled) {
      outcome = make_error(filled.error());
      break;
    }
    ended = *filled;
    deadline->expires_after(stall_timeout);
    boost::system::error_code ec;
    co_await link.write_all(socket, {out.data(), out.size()}, ec);
    if (ec) {
      outcome = make_error(data_socket_error(ec, *deadline));
      break;
    }
    progress.bytes += out.size();
  }
  deadline->stop();
  co_return outcome;
}

}  // namespace gridftp::server
