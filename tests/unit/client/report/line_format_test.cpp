#include "client/report/line_format.hpp"

#include <catch2/catch.hpp>

using gridftp::client::FileEnd;
using gridftp::client::FileResult;
using gridftp::client::FileStart;
using gridftp::client::report::file_report_text;
using gridftp::client::report::LineStyle;
using namespace std::chrono_literals;

namespace {
const FileStart kStart{1, "ftp://h:21/a.bin", "/tmp/a.bin", 2097152, 1};
const FileEnd kCopied{1, FileResult::Copied, 2097152, 2s, 1, {}, std::nullopt};
}  // namespace

TEST_CASE("file_report_text prints one summary line by default", "[client][report]") {
  CHECK(file_report_text(kStart, kCopied, LineStyle::Summary) ==
        "copied ftp://h:21/a.bin -> /tmp/a.bin: 2.00 MiB in 2s (1.00 MiB/s)\n");
  CHECK(file_report_text(kStart, FileEnd{1, FileResult::Skipped, 0, 0s, 1, {}, std::nullopt},
                         LineStyle::Summary) ==
        "skipped ftp://h:21/a.bin -> /tmp/a.bin: up to date\n");
}

TEST_CASE("file_report_text keeps globus-url-copy's -v and -vb wording", "[client][report]") {
  CHECK(file_report_text(kStart, kCopied, LineStyle::Verbose) ==
        "Source: ftp://h:21/a.bin\nDest:   /tmp/a.bin\n");
  CHECK(file_report_text(kStart, kCopied, LineStyle::VerboseBytes) ==
        "Source: ftp://h:21/a.bin\nDest:   /tmp/a.bin\n"
        "     2097152 bytes       1.05 MB/sec avg\n");
}

TEST_CASE("file_report_text prints nothing quietly or for failures", "[client][report]") {
  CHECK(file_report_text(kStart, kCopied, LineStyle::Quiet).empty());
  const FileEnd failed{1, FileResult::Failed, 0, 1s, 1, "550 no", std::nullopt};
  for (auto style : {LineStyle::Summary, LineStyle::Verbose, LineStyle::VerboseBytes}) {
    CHECK(file_report_text(kStart, failed, style).empty());
  }
}

TEST_CASE("file_report_text leaves the rate out of an instant copy", "[client][report]") {
  CHECK(file_report_text(kStart, FileEnd{1, FileResult::Copied, 0, 0s, 1, {}, std::nullopt},
                         LineStyle::Summary) ==
        "copied ftp://h:21/a.bin -> /tmp/a.bin: 0 B in 0s\n");
}
