#include "client/transfer/transfer_plan.hpp"

#include <catch2/catch.hpp>

#include "client/client_errors.hpp"

using gridftp::client::ClientErrc;
using gridftp::client::PartialRange;
using gridftp::client::RangeRequest;
using gridftp::security::DigestAlgorithm;
namespace client = gridftp::client;

TEST_CASE("resolve_range leaves a whole-file request alone", "[client][plan]") {
  auto range = client::resolve_range(RangeRequest{}, std::nullopt);
  REQUIRE(range);
  CHECK_FALSE(range->has_value());
}

TEST_CASE("resolve_range takes -off and -len as given", "[client][plan]") {
  auto range = client::resolve_range(RangeRequest{1000, 600000}, std::nullopt);
  REQUIRE(range);
  CHECK(*range == PartialRange{1000, 600000});
}

TEST_CASE("resolve_range starts -len alone at offset 0", "[client][plan]") {
  auto range = client::resolve_range(RangeRequest{std::nullopt, 5}, std::nullopt);
  REQUIRE(range);
  CHECK(*range == PartialRange{0, 5});
}

TEST_CASE("resolve_range runs -off alone to the end of the file", "[client][plan]") {
  const auto [offset, size, length] = GENERATE(table<std::uint64_t, std::uint64_t, std::uint64_t>(
      {{0, 0, 0}, {0, 1, 1}, {1, 1, 0}, {2, 1, 0}, {1000, 1048576, 1047576}}));
  auto range = client::resolve_range(RangeRequest{offset, std::nullopt}, size);
  REQUIRE(range);
  CHECK(*range == PartialRange{offset, length});
}

TEST_CASE("resolve_range needs a size for -off alone", "[client][plan]") {
  auto range = client::resolve_range(RangeRequest{10, std::nullopt}, std::nullopt);
  REQUIRE_FALSE(range);
  CHECK(range.error() == make_error_code(ClientErrc::UnknownSize));
}

TEST_CASE("transfer commands follow globus-url-copy", "[client][plan]") {
  const std::optional<PartialRange> whole;
  const std::optional<PartialRange> window = PartialRange{1000, 600000};
  CHECK(client::retrieve_command("/d/f", whole) == "RETR /d/f");
  CHECK(client::retrieve_command("/d/f", window) == "ERET P 1000 600000 /d/f");
  CHECK(client::store_command("/d/f", whole) == "STOR /d/f");
  CHECK(client::store_command("/d/f", window) == "ESTO A 1000 /d/f");
  CHECK(client::parallelism_command(4) == "OPTS RETR Parallelism=4,4,4;");
  CHECK(client::parallelism_command(1) == "OPTS RETR Parallelism=1,1,1;");
}

TEST_CASE("a striped source's OPTS RETR gives the layout, then parallelism, as guc words it",
          "[client][plan][stripe]") {
  using Layout = gridftp::protocol::mode_e::StripeLayout;
  CHECK(client::retr_options_command(Layout{Layout::Kind::Blocked, 262144}, 4) ==
        "OPTS RETR StripeLayout=Blocked;BlockSize=262144;Parallelism=4,4,4;");
  CHECK(client::retr_options_command(Layout{Layout::Kind::Blocked, 1048576}, std::nullopt) ==
        "OPTS RETR StripeLayout=Blocked;BlockSize=1048576;");
  CHECK(client::retr_options_command(Layout{Layout::Kind::Partitioned, 0}, 2) ==
        "OPTS RETR StripeLayout=Partitioned;Parallelism=2,2,2;");
  CHECK(client::retr_options_command(std::nullopt, 3) == "OPTS RETR Parallelism=3,3,3;");
  CHECK_FALSE(client::retr_options_command(std::nullopt, std::nullopt));
}

TEST_CASE("ALLO carries the window length, else the file size", "[client][plan]") {
  CHECK(client::allocation_bytes(3000000, std::nullopt) == 3000000U);
  CHECK(client::allocation_bytes(3000000, PartialRange{1000, 600000}) == 600000U);
  CHECK(client::allocation_bytes(std::nullopt, PartialRange{0, 0}) == 0U);
  CHECK_FALSE(client::allocation_bytes(std::nullopt, std::nullopt).has_value());
}

TEST_CASE("ALLO counts only the bytes of a window that runs past the end of the file",
          "[client][plan]") {
  const std::uint64_t size = 5000;
  CHECK(client::allocation_bytes(size, PartialRange{4900, 1000}) == 100U);
  CHECK(client::allocation_bytes(size, PartialRange{4000, 1000}) == 1000U);
  CHECK(client::allocation_bytes(size, PartialRange{4000, 1001}) == 1000U);
  CHECK(client::allocation_bytes(size, PartialRange{5000, 10}) == 0U);
  CHECK(client::allocation_bytes(size, PartialRange{9000, 10}) == 0U);
  CHECK(client::allocation_bytes(std::nullopt, PartialRange{4900, 1000}) == 1000U);
}

TEST_CASE("CKSM covers the whole file or the window", "[client][plan]") {
  CHECK(client::checksum_command(DigestAlgorithm::Md5, "/d/f", std::nullopt) ==
        "CKSM MD5 0 -1 /d/f");
  CHECK(client::checksum_command(DigestAlgorithm::Adler32, "/d/f", PartialRange{5, 7}) ==
        "CKSM ADLER32 5 7 /d/f");
  CHECK(client::checksum_command(DigestAlgorithm::Sha256, "/a b", std::nullopt) ==
        "CKSM SHA256 0 -1 /a b");
}

TEST_CASE("parse_checksum_reply accepts hex in any case", "[client][plan]") {
  auto digest = client::parse_checksum_reply("D41D8CD98F00B204E9800998ECF8427E");
  REQUIRE(digest);
  CHECK(*digest == "d41d8cd98f00b204e9800998ecf8427e");
  auto padded = client::parse_checksum_reply(" 00000001");
  REQUIRE(padded);
  CHECK(*padded == "00000001");
}

TEST_CASE("parse_checksum_reply rejects empty and non-hex text", "[client][plan]") {
  const auto text = GENERATE(as<std::string>{}, "", "   ", "xyz", "12g4", "Unknown checksum");
  auto digest = client::parse_checksum_reply(text);
  REQUIRE_FALSE(digest);
  CHECK(digest.error() == make_error_code(ClientErrc::ChecksumUnavailable));
}

TEST_CASE("net_stack_argument spells -udp as SITE SETNETSTACK takes it", "[client][plan]") {
  using gridftp::client::net_stack_argument;
  using gridftp::client::UdpxRequest;
  CHECK(net_stack_argument(std::nullopt) == "default");
  CHECK(net_stack_argument(UdpxRequest{}) == "udpx");
  CHECK(net_stack_argument(UdpxRequest{500'000'000, std::nullopt, "high"}) ==
        "udpx:rate=500000000;policy=high");
  CHECK(net_stack_argument(UdpxRequest{1'000'000'000, 10'000'000, std::nullopt}) ==
        "udpx:rate=1000000000;min=10000000");
}

TEST_CASE("parse_buffer_size reads -tcp-bs as globus-url-copy does", "[client][plan]") {
  using gridftp::client::parse_buffer_size;
  CHECK(parse_buffer_size("65536") == 65536U);
  CHECK(parse_buffer_size("64K") == 65536U);
  CHECK(parse_buffer_size("64k") == 65536U);
  CHECK(parse_buffer_size("4M") == 4U * 1024 * 1024);
  CHECK(parse_buffer_size("1G") == 1024U * 1024 * 1024);
  CHECK(parse_buffer_size("2147483647") == 2147483647U);
}

TEST_CASE("parse_buffer_size refuses what no socket buffer can be", "[client][plan]") {
  using gridftp::client::parse_buffer_size;
  const auto text = GENERATE(as<std::string>{}, "", "0", "0K", "K", "-1", "1.5M", "12 ", "1T", "2G",
                             "2147483648");
  CHECK_FALSE(parse_buffer_size(text));
}

TEST_CASE("buffer_size_command prefers SBUF where FEAT lists it", "[client][plan]") {
  CHECK(client::buffer_size_command(1048576, true) == "SBUF 1048576");
  CHECK(client::buffer_size_command(1048576, false) == "SITE RETRBUFSIZE 1048576");
}
