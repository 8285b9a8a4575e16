// Globus's transfer-log line (globus-gridftp-server -Z, log_transfer): NetLogger's key=value
// pairs, the keys and their order exactly as Globus writes them, so the accounting scripts that
// sites run over Globus's logs read ours unchanged:
//
//   DATE=20261127193523.672472 HOST=dtn1 PROG=globus-gridftp-server NL.EVNT=FTP_INFO
//   START=20261127193523.669818 USER=anonymous FILE=/data/src.bin BUFFER=131072 BLOCK=262144
//   NBYTES=3145733 VOLUME=/ STREAMS=4 STRIPES=1 DEST=[127.0.0.1] TYPE=RETR CODE=226
//   TASKID=none retrans=0,0,0,0
//
// (one line). DATE is the end and START the start, both UTC with microseconds; retrans, one
// count per data connection, only for MODE E (and only once one opened). PROG is Globus's name: it
// names the line's format, and parsers that pick transfer lines out of a mixed log match it
// together with NL.EVNT=FTP_INFO. Values are written bare as Globus writes them; a control
// character (a newline in a file name) becomes %XX, so one transfer is always one line.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "server/logging/transfer_log.hpp"

namespace gridftp::server {

// The line for `record`, ended at `end`, on host `host`; no trailing newline.
std::string format_netlogger_line(const TransferRecord& record,
                                  std::chrono::system_clock::time_point end, std::string_view host);

// "YYYYmmddHHMMSS.ffffff" in UTC: NetLogger's DATE and START.
std::string netlogger_time(std::chrono::system_clock::time_point when);

}  // namespace gridftp::server
