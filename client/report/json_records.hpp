// gridcp --json output: one JSON object per line (JSON Lines), one per finished file and a final
// summary. Pure encoding; JsonReport writes the lines. Escaping is protocol/core/json's (RFC 8259).
//   {"type":"file","source":…,"dest":…,"result":"copied"|"skipped"|"failed","bytes":N,
//    "seconds":x,"rate_bytes_per_second":x,"attempts":N,"streams":N[,"error":"…"]}
//   {"type":"summary","files":N,"failed":N,"skipped":N,"bytes":N,"seconds":x,
//    "rate_bytes_per_second":x}
#pragma once

#include <string>
#include <string_view>

#include "client/report/run_summary.hpp"
#include "client/transfer/transfer_observer.hpp"

namespace gridftp::client::report {

std::string_view result_name(FileResult result);
// "error" appears only for a failed file, as in the server's transfer log.
std::string encode_file_record(const FileStart& start, const FileEnd& end);
std::string encode_summary(const RunSummary& summary);

}  // namespace gridftp::client::report
