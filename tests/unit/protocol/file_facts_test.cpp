#include "protocol/listing/file_facts.hpp"

#include <string>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol::listing {
namespace {

// Unix times below were computed with Python's calendar.timegm.
constexpr std::int64_t kLeapDay2024 = 1'709'210'096;         // 2024-02-29 12:34:56 UTC
constexpr std::int64_t kAfter2038 = 2'147'483'648;           // 2038-01-19 03:14:08 UTC, 2^31
constexpr std::int64_t kGlobusExample = 1'795'311'472;       // 2026-11-22 01:37:52 UTC
constexpr std::int64_t kMarch2100 = 4'107'542'400;           // 2100-03-01 00:00:00 UTC
constexpr std::int64_t kNov22Afternoon = 1'795'355'100;      // 2026-11-22 13:45:00 UTC
constexpr std::int64_t kMay2025 = 1'746'086'700;             // 2025-05-01 08:05:00 UTC
constexpr std::int64_t kLastSecondOf9999 = 253'402'300'799;  // 9999-12-31 23:59:59 UTC

// The file from the observed Globus MLSD line in docs/WIRE.md §1.4.
FileFacts globus_example_file() {
  FileFacts facts;
  facts.name = "a.txt";
  facts.type = FileType::File;
  facts.size_bytes = 2;
  facts.modify_unix_seconds = kGlobusExample;
  facts.mode = 0666;
  facts.uid = 1001;
  facts.gid = 1001;
  facts.owner = "gftest";
  facts.group = "gftest";
  facts.device = 0xfe00;
  facts.inode = 0x98c00b;
  facts.readable = true;
  facts.writable = true;
  return facts;
}

TEST_CASE("format_mdtm writes fixed UTC vectors", "[listing]") {
  CHECK(format_mdtm(0) == "19700101000000");
  CHECK(format_mdtm(-1) == "19691231235959");
  CHECK(format_mdtm(kLeapDay2024) == "20240229123456");
  CHECK(format_mdtm(kAfter2038) == "20380119031408");
  CHECK(format_mdtm(kGlobusExample) == "20261122013752");
  CHECK(format_mdtm(kMarch2100) == "21000301000000");
  CHECK(format_mdtm(kMarch2100 - 1) == "21000228235959");  // 2100 is not a leap year
}

TEST_CASE("format_mdtm clamps to four-digit years", "[listing]") {
  CHECK(format_mdtm(kLastSecondOf9999) == "99991231235959");
  CHECK(format_mdtm(kLastSecondOf9999 + 1) == "99991231235959");
  CHECK(format_mdtm(INT64_MAX) == "99991231235959");
  CHECK(format_mdtm(INT64_MIN) == "00000101000000");
}

TEST_CASE("parse_mdtm reads the fixed vectors back", "[listing]") {
  CHECK(*parse_mdtm("19700101000000") == 0);
  CHECK(*parse_mdtm("19691231235959") == -1);
  CHECK(*parse_mdtm("20240229123456") == kLeapDay2024);
  CHECK(*parse_mdtm("20380119031408") == kAfter2038);
  CHECK(*parse_mdtm("99991231235959") == kLastSecondOf9999);
  CHECK(parse_mdtm("20000229000000"));  // divisible by 400: leap year
}

TEST_CASE("parse_mdtm accepts and drops a fraction of a second", "[listing]") {
  CHECK(*parse_mdtm("20240229123456.1") == kLeapDay2024);
  CHECK(*parse_mdtm("20240229123456.999") == kLeapDay2024);
  CHECK(*parse_mdtm("20240229123456.000000001") == kLeapDay2024);
}

TEST_CASE("parse_mdtm round-trips format_mdtm", "[listing]") {
  const std::int64_t seconds = GENERATE(std::int64_t{0}, std::int64_t{-86'401}, kLeapDay2024,
                                        kAfter2038, kMarch2100, kLastSecondOf9999);
  CHECK(*parse_mdtm(format_mdtm(seconds)) == seconds);
}

TEST_CASE("parse_mdtm rejects malformed or impossible times", "[listing]") {
  const std::string_view text =
      GENERATE(as<std::string_view>{}, "", "2024022912345", "202402291234567", "2024022912345x",
               " 20240229123456", "20240229123456 ", "20240229123456.", "20240229123456.1a",
               "20240229123456,1", "-2024022912345", "20241301000000", "20240001000000",
               "20240100000000", "20240230000000", "20230229000000", "19000229000000",
               "20240431000000", "20240229240000", "20240229236000", "20240229235960");
  CAPTURE(text);
  const auto parsed = parse_mdtm(text);
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error() == Condition::BadSyntax);
}

TEST_CASE("format_mlsx_line writes the facts in Globus's order and layout", "[listing]") {
  // docs/WIRE.md §1.4, observed from Globus 13.24. Only Perm differs: Globus writes "awr" for a
  // writable file, we write RFC 3659's full writable set "adfw" and then "r".
  const std::string globus =
      "Type=file;Modify=20261122013752;Size=2;Perm=awr;UNIX.mode=0666;UNIX.owner=gftest;"
      "UNIX.uid=1001;UNIX.group=gftest;UNIX.gid=1001;Unique=fe00-98c00b; a.txt";
  std::string expected = globus;
  expected.replace(expected.find("Perm=awr"), 8, "Perm=adfwr");
  CHECK(format_mlsx_line(globus_example_file()) == expected);
}

TEST_CASE("format_mlsx_line names directory types and keeps spaces in names", "[listing]") {
  FileFacts facts = globus_example_file();
  facts.type = FileType::Cdir;
  facts.name = ".";
  facts.mode = 0755;
  facts.writable = false;
  const std::string line = format_mlsx_line(facts);
  CHECK(line.rfind("Type=cdir;", 0) == 0);
  CHECK(line.find(";Perm=el;UNIX.mode=0755;") != std::string::npos);
  CHECK(line.substr(line.size() - 3) == "; .");

  facts.type = FileType::Pdir;
  CHECK(format_mlsx_line(facts).rfind("Type=pdir;", 0) == 0);
  facts.type = FileType::Dir;
  facts.name = "my dir";
  CHECK(format_mlsx_line(facts).find("Type=dir;") == 0);
  CHECK(format_mlsx_line(facts).substr(format_mlsx_line(facts).size() - 8) == "; my dir");
  facts.type = FileType::Symlink;
  CHECK(format_mlsx_line(facts).rfind("Type=OS.unix=slink;", 0) == 0);
  facts.type = FileType::Other;
  CHECK(format_mlsx_line(facts).rfind("Type=OS.unix=special;", 0) == 0);
}

TEST_CASE("format_mlsx_line writes special mode bits and large sizes", "[listing]") {
  FileFacts facts = globus_example_file();
  facts.mode = 04755;
  facts.size_bytes = UINT64_MAX;
  facts.device = 0;
  facts.inode = UINT64_MAX;
  const std::string line = format_mlsx_line(facts);
  CHECK(line.find(";UNIX.mode=04755;") != std::string::npos);
  CHECK(line.find(";Size=18446744073709551615;") != std::string::npos);
  CHECK(line.find(";Unique=0-ffffffffffffffff;") != std::string::npos);
  facts.mode = 0;
  CHECK(format_mlsx_line(facts).find(";UNIX.mode=0000;") != std::string::npos);
}

TEST_CASE("format_mlsx_line cannot be tricked by owner names", "[listing]") {
  FileFacts facts = globus_example_file();
  facts.owner = "evil;Type=dir";
  facts.group = "a b\tc";
  const std::string line = format_mlsx_line(facts);
  CHECK(line.find(";UNIX.owner=evil_Type_dir;") != std::string::npos);
  CHECK(line.find(";UNIX.group=a_b_c;") != std::string::npos);
}

TEST_CASE("perm_fact follows RFC 3659 section 7.5.5", "[listing]") {
  FileFacts facts;
  const auto perm = [&facts](FileType type, bool readable, bool writable) {
    facts.type = type;
    facts.readable = readable;
    facts.writable = writable;
    return perm_fact(facts);
  };
  CHECK(perm(FileType::File, false, false).empty());
  CHECK(perm(FileType::File, true, false) == "r");
  CHECK(perm(FileType::File, false, true) == "adfw");
  CHECK(perm(FileType::File, true, true) == "adfwr");
  CHECK(perm(FileType::Dir, true, false) == "el");
  CHECK(perm(FileType::Dir, false, true) == "cdfmp");
  CHECK(perm(FileType::Cdir, true, true) == "cdfmpel");
  CHECK(perm(FileType::Pdir, true, false) == "el");
}

TEST_CASE("format_list_line shows the time of day for recent files", "[listing]") {
  FileFacts facts = globus_example_file();
  facts.mode = 0644;
  facts.size_bytes = 1234;
  facts.owner = "owner";
  facts.group = "group";
  facts.name = "name";
  facts.modify_unix_seconds = kNov22Afternoon;
  CHECK(format_list_line(facts, kNov22Afternoon + 3600) ==
        "-rw-r--r--   1 owner  group  1234 Nov 22 13:45 name");
}

TEST_CASE("format_list_line shows the year for old and far-future files", "[listing]") {
  FileFacts facts = globus_example_file();
  facts.mode = 0644;
  facts.modify_unix_seconds = kMay2025;
  CHECK(format_list_line(facts, kNov22Afternoon) ==
        "-rw-r--r--   1 gftest  gftest  2 May  1  2025 a.txt");
  facts.modify_unix_seconds = kAfter2038;
  CHECK(format_list_line(facts, kNov22Afternoon).find(" Jan 19  2038 ") != std::string::npos);
}

TEST_CASE("format_list_line marks directories, links and special bits like ls", "[listing]") {
  FileFacts facts = globus_example_file();
  facts.modify_unix_seconds = kLeapDay2024;
  facts.type = FileType::Dir;
  facts.mode = 01777;
  facts.link_count = 12;
  CHECK(format_list_line(facts, kLeapDay2024).rfind("drwxrwxrwt  12 ", 0) == 0);
  facts.type = FileType::Symlink;
  facts.mode = 0777;
  CHECK(format_list_line(facts, kLeapDay2024).rfind("lrwxrwxrwx ", 0) == 0);
  facts.type = FileType::File;
  facts.mode = 06644;
  CHECK(format_list_line(facts, kLeapDay2024).rfind("-rwSr-Sr-- ", 0) == 0);
  facts.mode = 04711;
  CHECK(format_list_line(facts, kLeapDay2024).rfind("-rws--x--x ", 0) == 0);
  CHECK(format_list_line(facts, kLeapDay2024).find(" Feb 29 12:34 ") != std::string::npos);
}

}  // namespace
}  // namespace gridftp::protocol::listing
