// The transfer log's data-connection fields (server/session/transfer_figures.hpp): what each
// connection adds, which connection names the peer and buffers, and the failure detail.
#include "server/session/transfer_figures.hpp"

#include <catch2/catch.hpp>

using gridftp::server::TransferFigures;
using gridftp::server::TransferRecord;
using gridftp::transport::SocketFigures;

namespace {

SocketFigures figures(std::string peer, std::uint32_t send, std::uint32_t receive,
                      std::optional<std::uint32_t> retransmits) {
  return {std::move(peer), "snd " + std::to_string(send), send, receive, retransmits};
}

}  // namespace

TEST_CASE("Each connection's TLS is listed, and the first with a peer names peer and buffers",
          "[transfer-log]") {
  TransferFigures run;
  run.note_connection("clear", figures("", 1, 2, std::nullopt), false);
  run.note_connection("TLSv1.3 TLS_AES_256_GCM_SHA384", figures("10.0.0.2", 400, 800, 3), false);
  run.note_connection("clear", figures("10.0.0.3", 5, 6, 0), false);
  TransferRecord record;
  run.fill(record, 0, /*received=*/true, "192.0.2.1");
  CHECK(record.stream_tls == "clear, TLSv1.3 TLS_AES_256_GCM_SHA384, clear");
  CHECK(record.peer_address == "10.0.0.2");
  CHECK(record.tcp_buffer == 800);  // no SBUF: the kernel's receive buffer of an upload
  CHECK(record.socket_buffers.empty());
  CHECK(record.retransmits == std::vector<std::uint32_t>{3, 0});

  TransferRecord sent;
  run.fill(sent, 0, /*received=*/false, "192.0.2.1");
  CHECK(sent.tcp_buffer == 400);
}

TEST_CASE("With SBUF in force its size is logged and each connection's buffers listed",
          "[transfer-log]") {
  TransferFigures run;
  run.note_connection("clear", figures("10.0.0.2", 400, 800, std::nullopt), true);
  run.note_connection("clear", figures("10.0.0.2", 402, 802, std::nullopt), true);
  TransferRecord record;
  run.fill(record, 65536, true, "192.0.2.1");
  CHECK(record.socket_buffer == 65536);
  CHECK(record.tcp_buffer == 65536);
  CHECK(record.socket_buffers == "snd 400, snd 402");
}

TEST_CASE("No data connection gives the control peer, and a failure detail follows the error",
          "[transfer-log]") {
  TransferFigures run;
  run.note_link("udpx AES-128-GCM");
  run.set_failure_detail("the UDPX sender began at another offset than REST said");
  TransferRecord record;
  record.error = "Transfer failed";
  run.fill(record, 0, false, "192.0.2.1");
  CHECK(record.peer_address == "192.0.2.1");
  CHECK(record.stream_tls == "udpx AES-128-GCM");
  CHECK(record.error == "Transfer failed: the UDPX sender began at another offset than REST said");
  CHECK(run.failure_detail() == "the UDPX sender began at another offset than REST said");
}
