#include "client/report/json_records.hpp"

#include <catch2/catch.hpp>

using gridftp::client::FileEnd;
using gridftp::client::FileResult;
using gridftp::client::FileStart;
using gridftp::client::report::encode_file_record;
using gridftp::client::report::encode_summary;
using gridftp::client::report::RunSummary;
using namespace std::chrono_literals;

TEST_CASE("encode_file_record writes one object with every field", "[client][report][json]") {
  const FileStart start{4, "ftp://127.0.0.1:2811/data/a.bin", "/tmp/a.bin", 2048, 4};
  const FileEnd end{4, FileResult::Copied, 2048, 2s, 1, {}, std::nullopt};
  CHECK(encode_file_record(start, end) ==
        R"({"type":"file","source":"ftp://127.0.0.1:2811/data/a.bin","dest":"/tmp/a.bin",)"
        R"("result":"copied","bytes":2048,"seconds":2,"rate_bytes_per_second":1024,)"
        R"("attempts":1,"streams":4})");
}

TEST_CASE("encode_file_record adds the error of a failed file, escaped", "[client][report][json]") {
  const FileStart start{1, "ftp://h/quote\"back\\slash\nnew\x01line", "/tmp/x", {}, 1};
  const FileEnd end{1, FileResult::Failed, 0, 0s, 3, "550 \"x\": no\tsuch file", std::nullopt};
  const auto json = encode_file_record(start, end);
  CHECK(json.find(R"("source":"ftp://h/quote\"back\\slash\nnew\u0001line")") != std::string::npos);
  CHECK(json.find(R"("result":"failed")") != std::string::npos);
  CHECK(json.find(R"("rate_bytes_per_second":0)") != std::string::npos);
  CHECK(json.find(R"("attempts":3)") != std::string::npos);
  CHECK(json.find(R"("error":"550 \"x\": no\tsuch file")") != std::string::npos);
  CHECK(json.find('\n') == std::string::npos);  // one object per line
}

TEST_CASE("encode_file_record names skipped files", "[client][report][json]") {
  const auto json =
      encode_file_record(FileStart{}, FileEnd{0, FileResult::Skipped, 0, 0s, 1, {}, std::nullopt});
  CHECK(json.find(R"("result":"skipped")") != std::string::npos);
  CHECK(json.find("error") == std::string::npos);
}

TEST_CASE("encode_summary totals the run", "[client][report][json]") {
  RunSummary summary;
  summary.add(FileEnd{1, FileResult::Copied, 3000, 1s, 1, {}, std::nullopt});
  summary.add(FileEnd{2, FileResult::Failed, 1000, 1s, 2, "x", std::nullopt});
  summary.add(FileEnd{3, FileResult::Skipped, 0, 0s, 1, {}, std::nullopt});
  summary.elapsed = 4s;
  CHECK(encode_summary(summary) ==
        R"({"type":"summary","files":3,"failed":1,"skipped":1,"bytes":4000,"seconds":4,)"
        R"("rate_bytes_per_second":1000})");
}

TEST_CASE("RunSummary rate is zero for a run that took no time", "[client][report][json]") {
  RunSummary summary;
  summary.add(FileEnd{1, FileResult::Copied, 10, 0s, 1, {}, std::nullopt});
  CHECK(summary.bytes_per_second() == 0.0);
}

TEST_CASE("encode_file_record adds the UDPX figures of a UDPX transfer", "[client][report][json]") {
  const FileStart start{2, "gsiftp://h/a", "/tmp/a", 1000, 1};
  const gridftp::client::NetworkFigures figures{1000, 800000, 52.5, 0.01, 0.0125, 0.002, 3, 0.5};
  const FileEnd end{2, FileResult::Copied, 1000, 1s, 1, {}, figures};
  const auto json = encode_file_record(start, end);
  CHECK(json.find(R"("network":"udpx","udpx_rate_bits_per_second":800000,"udpx_rtt_ms":52.5,)"
                  R"("udpx_loss":0.01,"udpx_sending_cost":0.0125,"udpx_receiving_cost":0.002,)"
                  R"("udpx_dropped":3,"udpx_handshake_seconds":0.5})") != std::string::npos);
}
