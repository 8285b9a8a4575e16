// TransferParameterCommands without a session: TYPE MODE STRU ALLO REST TREV OPTS on a
// TransferSettings of their own, replies recorded, with at least one bad input per verb (RFC 959
// §4.1.2, RFC 3659 §5, RFC 2389, GFD.20). A refused command leaves the settings as they were.
#include "server/session/transfer_parameter_commands.hpp"

#include <string>

#include <catch2/catch.hpp>

#include "tests/unit/server/part_test_support.hpp"

namespace gridftp::server::testing {
namespace {

using T = TransferParameterCommands;

struct Parameters {
  protocol::control::Reply run(transport::awaitable<void> (T::*handler)(const std::string&),
                               const std::string& argument = "") {
    run_handler((commands.*handler)(argument));
    return replies.take();
  }
  const TransferSettings& settings() const { return commands.settings(); }

  StreamCache cached_streams;
  RecordingReplies replies;
  TransferParameterCommands commands{cached_streams, replies};
};

TEST_CASE("TransferParameterCommands TYPE switches between ASCII and image", "[session][params]") {
  Parameters params;
  CHECK(params.settings().ascii);  // RFC 959's default
  const auto image = params.run(&T::on_type, "I");
  CHECK(image.code == 200);
  CHECK(image.lines.front() == "Type set to I.");
  CHECK_FALSE(params.settings().ascii);
  CHECK(params.run(&T::on_type, "a").code == 200);
  CHECK(params.settings().ascii);
  CHECK(params.run(&T::on_type, "L 8").code == 200);
  CHECK_FALSE(params.settings().ascii);
}

TEST_CASE("TransferParameterCommands TYPE refuses EBCDIC and other types", "[session][params]") {
  Parameters params;
  const auto ebcdic = params.run(&T::on_type, "E");
  CHECK(ebcdic.code == 504);
  CHECK(ebcdic.lines.front() == "Type E not supported.");
  CHECK(params.run(&T::on_type, "").code == 504);
  CHECK(params.run(&T::on_type, "L 7").code == 504);
  CHECK(params.settings().ascii);  // unchanged
}

TEST_CASE("TransferParameterCommands MODE takes stream and extended block mode",
          "[session][params]") {
  Parameters params;
  CHECK_FALSE(params.settings().mode_e);
  const auto e = params.run(&T::on_mode, "e");
  CHECK(e.code == 200);
  CHECK(e.lines.front() == "Mode set to E.");
  CHECK(params.settings().mode_e);
  CHECK(params.run(&T::on_mode, "S").code == 200);
  CHECK_FALSE(params.settings().mode_e);
}

TEST_CASE("TransferParameterCommands MODE refuses block and compressed modes",
          "[session][params]") {
  Parameters params;
  CHECK(params.run(&T::on_mode, "E").code == 200);
  const auto block = params.run(&T::on_mode, "B");
  CHECK(block.code == 504);
  CHECK(block.lines.front() == "'MODE B' unrecognized transfer mode.");
  CHECK(params.run(&T::on_mode, "C").code == 504);
  CHECK(params.run(&T::on_mode, "").code == 504);
  CHECK(params.settings().mode_e);  // unchanged
}

TEST_CASE("TransferParameterCommands STRU takes file structure only", "[session][params]") {
  Parameters params;
  CHECK(params.run(&T::on_stru, "f").code == 200);
  const auto record = params.run(&T::on_stru, "R");
  CHECK(record.code == 504);
  CHECK(record.lines.front() == "Only file structure is supported.");
  CHECK(params.run(&T::on_stru, "P").code == 504);
}

TEST_CASE("TransferParameterCommands ALLO keeps the announced size for the next upload",
          "[session][params]") {
  Parameters params;
  CHECK(params.run(&T::on_allo, "1048576").code == 200);
  CHECK(params.settings().allocated_bytes == 1048576u);
  CHECK(params.run(&T::on_allo, "2048 R 512").code == 200);  // RFC 959's record form
  CHECK(params.settings().allocated_bytes == 2048u);
  CHECK(params.commands.settings().take_allocated_bytes() == 2048u);
  CHECK_FALSE(params.settings().allocated_bytes);  // used up by one transfer
}

TEST_CASE("TransferParameterCommands ALLO with no size is answered but announces nothing",
          "[session][params]") {
  // Space is never reserved, so a size that does not parse is harmless: 200, nothing kept.
  Parameters params;
  for (const char* bad : {"", "lots", "-5", "12x"}) {
    INFO(bad);
    CHECK(params.run(&T::on_allo, bad).code == 200);
    CHECK_FALSE(params.settings().allocated_bytes);
  }
}

TEST_CASE("TransferParameterCommands REST takes an offset or a MODE E range list",
          "[session][params]") {
  Parameters params;
  const auto offset = params.run(&T::on_rest, "1000");
  CHECK(offset.code == 350);
  CHECK(offset.lines.front() == "Restarting at 1000. Send STORE or RETRIEVE to initiate transfer.");
  CHECK(params.settings().restart_offset == 1000);

  const auto ranges = params.run(&T::on_rest, "0-4096,8192-10000");
  CHECK(ranges.code == 350);
  REQUIRE(params.settings().restart_ranges);
  CHECK(params.settings().restart_ranges->format_range_list() == "0-4096,8192-10000");
  CHECK(params.settings().restart_offset == 0);  // one form at a time

  CHECK(params.run(&T::on_rest, "7").code == 350);
  CHECK_FALSE(params.settings().restart_ranges);
}

TEST_CASE("TransferParameterCommands REST refuses what is neither an offset nor ranges",
          "[session][params]") {
  Parameters params;
  CHECK(params.run(&T::on_rest, "500").code == 350);
  const auto word = params.run(&T::on_rest, "abc");
  CHECK(word.code == 501);
  CHECK(word.lines.front() == "Bad REST parameter.");
  CHECK(params.run(&T::on_rest, "").code == 501);
  CHECK(params.run(&T::on_rest, "12 34").code == 501);
  const auto backwards = params.run(&T::on_rest, "100-50");
  CHECK(backwards.code == 501);
  CHECK(backwards.lines.front() == "bad parameter.");
  CHECK(params.settings().restart_offset == 500);  // unchanged by what was refused
}

TEST_CASE("TransferParameterCommands TREV sets the marker period", "[session][params]") {
  Parameters params;
  CHECK(params.run(&T::on_trev, "PERF 2").code == 200);
  CHECK(params.settings().marker_seconds == 2);
  CHECK_FALSE(params.settings().restart_markers);
  CHECK(params.run(&T::on_trev, "restart 10").code == 200);
  CHECK(params.settings().marker_seconds == 10);
  CHECK(params.settings().restart_markers);
}

TEST_CASE("TransferParameterCommands TREV refuses a missing, zero or huge period",
          "[session][params]") {
  Parameters params;
  for (const char* bad : {"", "PERF", "PERF 0", "PERF 3601", "PERF x"}) {
    INFO(bad);
    const auto reply = params.run(&T::on_trev, bad);
    CHECK(reply.code == 501);
    CHECK(reply.lines.front() == "TREV RESTART|PERF <seconds>.");
  }
  CHECK(params.settings().marker_seconds == 5);
}

TEST_CASE("TransferParameterCommands OPTS RETR sets parallelism and the stripe layout",
          "[session][params]") {
  Parameters params;
  const auto reply =
      params.run(&T::on_opts, "RETR Parallelism=4,4,4;StripeLayout=Partitioned;BlockSize=262144;");
  CHECK(reply.code == 200);
  CHECK(reply.lines.front() == "OPTS Command Successful.");
  CHECK(params.settings().parallelism == 4);
  CHECK(params.settings().stripe_layout.kind == protocol::mode_e::StripeLayout::Kind::Partitioned);
  CHECK(params.settings().stripe_layout.block_size == 262144);
  CHECK(params.run(&T::on_opts, "UTF8 ON").code == 200);
  CHECK(params.run(&T::on_opts, "MLST Type;Size;").code == 200);
}

TEST_CASE("TransferParameterCommands OPTS refuses bad RETR options and unknown commands",
          "[session][params]") {
  Parameters params;
  const auto bad = params.run(&T::on_opts, "RETR Parallelism=zero;");
  CHECK(bad.code == 501);
  CHECK(bad.lines.front() == "Bad OPTS RETR parameters.");
  const auto unknown = params.run(&T::on_opts, "FROB on");
  CHECK(unknown.code == 501);
  CHECK(unknown.lines.front() == "OPTS not understood.");
  CHECK(params.settings().parallelism == 1);
}

}  // namespace
}  // namespace gridftp::server::testing
