#include "server/logging/netlogger_line.hpp"

#include <catch2/catch.hpp>

namespace gridftp::server {
namespace {

using namespace std::chrono;

// 2026-11-27 19:35:23.672472 UTC.
const system_clock::time_point kEnd =
    system_clock::time_point(seconds(1795808123)) + microseconds(672472);

TransferRecord sample_retr() {
  TransferRecord record;
  record.user = "anonymous";
  record.command = "RETR";
  record.file = "/tmp/obs/root/src.bin";
  record.bytes = 3145733;
  record.streams = 1;
  record.mode = 'S';
  record.started_at = kEnd - microseconds(2654);
  record.reply_code = 226;
  record.peer_address = "127.0.0.1";
  record.tcp_buffer = 131072;
  record.block_size = 262144;
  return record;
}

TEST_CASE("netlogger_time is UTC with six digits of microseconds", "[logging][netlogger]") {
  CHECK(netlogger_time(kEnd) == "20261127193523.672472");
  CHECK(netlogger_time(system_clock::time_point{}) == "19700101000000.000000");
  CHECK(netlogger_time(system_clock::time_point(seconds(1795808123)) + microseconds(5)) ==
        "20261127193523.000005");
  CHECK(netlogger_time(system_clock::time_point{} - microseconds(1)) == "19691231235959.999999");
}

TEST_CASE("a stream-mode get is the line globus-gridftp-server writes for it",
          "[logging][netlogger]") {
  // Globus 13.24's line for the same get (globus-url-copy, stream mode), host and times ours.
  CHECK(format_netlogger_line(sample_retr(), kEnd, "vm") ==
        "DATE=20261127193523.672472 HOST=vm PROG=globus-gridftp-server NL.EVNT=FTP_INFO "
        "START=20261127193523.669818 USER=anonymous FILE=/tmp/obs/root/src.bin BUFFER=131072 "
        "BLOCK=262144 NBYTES=3145733 VOLUME=/ STREAMS=1 STRIPES=1 DEST=[127.0.0.1] TYPE=RETR "
        "CODE=226 TASKID=none");
}

TEST_CASE("a MODE E put ends with each data connection's retransmissions", "[logging][netlogger]") {
  auto record = sample_retr();
  record.command = "STOR";
  record.mode = 'E';
  record.streams = 4;
  record.tcp_buffer = 3939840;
  record.retransmits = {0, 3, 0, 12};
  CHECK(format_netlogger_line(record, kEnd, "dtn1.example.org") ==
        "DATE=20261127193523.672472 HOST=dtn1.example.org PROG=globus-gridftp-server "
        "NL.EVNT=FTP_INFO START=20261127193523.669818 USER=anonymous "
        "FILE=/tmp/obs/root/src.bin BUFFER=3939840 BLOCK=262144 NBYTES=3145733 VOLUME=/ "
        "STREAMS=4 STRIPES=1 DEST=[127.0.0.1] TYPE=STOR CODE=226 TASKID=none "
        "retrans=0,3,0,12");
}

TEST_CASE("a MODE E transfer that opened no data connection has no retrans",
          "[logging][netlogger]") {
  auto record = sample_retr();
  record.mode = 'E';
  record.reply_code = 425;
  record.bytes = 0;
  const auto line = format_netlogger_line(record, kEnd, "vm");
  CHECK(line.ends_with(" TYPE=RETR CODE=425 TASKID=none"));
}

TEST_CASE("a control character in a value cannot start a second line", "[logging][netlogger]") {
  auto record = sample_retr();
  record.file = "/data/a\nDATE=1 NL.EVNT=FTP_INFO NBYTES=999\r\x7f";
  record.user = "tab\tuser";
  const auto line = format_netlogger_line(record, kEnd, "vm");
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find('\r') == std::string::npos);
  CHECK(line.find("FILE=/data/a%0ADATE=1 NL.EVNT=FTP_INFO NBYTES=999%0D%7F BUFFER=") !=
        std::string::npos);
  CHECK(line.find("USER=tab%09user FILE=") != std::string::npos);
}

TEST_CASE("an IPv6 peer is bracketed as Globus brackets every DEST", "[logging][netlogger]") {
  auto record = sample_retr();
  record.peer_address = "::1";
  CHECK(format_netlogger_line(record, kEnd, "vm").find(" DEST=[::1] ") != std::string::npos);
}

}  // namespace
}  // namespace gridftp::server
