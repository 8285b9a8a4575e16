#include "client/copy_flags.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <unistd.h>

using gridftp::client::collect_pairs;
using gridftp::client::copy_options_from;
using gridftp::client::CopyFlags;
using gridftp::client::UrlPair;

namespace {

// A file of its own under the temporary directory, removed at the end of the test.
struct TempFile {
  std::filesystem::path path;
  explicit TempFile(const std::string& text) {
    path = std::filesystem::temp_directory_path() /
           ("gridcp-copy-flags-" + std::to_string(::getpid()) + "-" +
            std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::ofstream(path) << text;
  }
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

const std::vector<UrlPair> kGet{{"ftp://host/a", "file:///tmp/a"}};
const std::string kMissing = "/nonexistent/gridcp-copy-flags-test";

// The message copy_options_from refuses `flags` with (empty when it takes them).
std::string refusal(const CopyFlags& flags, const std::vector<UrlPair>& pairs = kGet) {
  return copy_options_from(flags, pairs).error;
}

}  // namespace

TEST_CASE("collect_pairs takes the two positional URLs", "[client][cli]") {
  CopyFlags flags;
  flags.urls = {"ftp://host/a", "/tmp/a"};
  const auto collected = collect_pairs(flags);
  CHECK(collected.error.empty());
  REQUIRE(collected.pairs.size() == 1);
  CHECK(collected.pairs[0].source == "ftp://host/a");
  CHECK(collected.pairs[0].dest == "/tmp/a");
}

TEST_CASE("collect_pairs with no URLs and no -f has no pairs and no error", "[client][cli]") {
  const auto collected = collect_pairs(CopyFlags{});
  CHECK(collected.error.empty());
  CHECK(collected.pairs.empty());
}

TEST_CASE("collect_pairs refuses one or three positional URLs", "[client][cli]") {
  CopyFlags flags;
  flags.urls = {"ftp://host/a"};
  CHECK(collect_pairs(flags).error == "expected a source URL and a destination URL");
  flags.urls = {"ftp://host/a", "/tmp/a", "/tmp/b"};
  CHECK(collect_pairs(flags).error == "expected a source URL and a destination URL");
}

TEST_CASE("collect_pairs adds the pairs of -f after the positional ones", "[client][cli]") {
  const TempFile list("# a comment\nftp://host/b /tmp/b\n\nftp://host/c /tmp/c\n");
  CopyFlags flags;
  flags.urls = {"ftp://host/a", "/tmp/a"};
  flags.url_file = list.path.string();
  const auto collected = collect_pairs(flags);
  CHECK(collected.error.empty());
  REQUIRE(collected.pairs.size() == 3);
  CHECK(collected.pairs[0].source == "ftp://host/a");
  CHECK(collected.pairs[1].source == "ftp://host/b");
  CHECK(collected.pairs[2].dest == "/tmp/c");
}

TEST_CASE("collect_pairs names an unreadable -f file and a bad line of one", "[client][cli]") {
  CopyFlags flags;
  flags.url_file = kMissing;
  CHECK(collect_pairs(flags).error == "cannot read " + kMissing);
  const TempFile list("ftp://host/b /tmp/b\nftp://host/c\n");
  flags.url_file = list.path.string();
  CHECK(collect_pairs(flags).error == list.path.string() + ":2: expected 'source-url dest-url'");
}

TEST_CASE("copy_options_from with no flags gives globus-url-copy's defaults", "[client][cli]") {
  const auto built = copy_options_from(CopyFlags{}, kGet);
  CHECK(built.error.empty());
  CHECK(built.warnings.empty());
  const auto& options = built.options;
  CHECK_FALSE(options.transfer.parallelism);
  CHECK_FALSE(options.transfer.verify_checksum);
  CHECK_FALSE(options.transfer.udpx);
  CHECK(options.transfer.data_security == gridftp::client::DataSecurityLevel{});
  CHECK_FALSE(options.transfer.range.is_partial());
  CHECK(options.session.data_timeout == std::chrono::seconds(600));
  CHECK(options.session.tcp_buffer_bytes == 0U);
  CHECK(options.session.ftps_trust.verify);
  CHECK(options.concurrency == 1U);
  CHECK(options.batch);
  CHECK_FALSE(options.pipelining);
  CHECK_FALSE(options.sync.enabled);
  CHECK(options.sync.level == gridftp::client::kDefaultSyncLevel);
  CHECK_FALSE(options.restart.enabled);
  CHECK(options.restart.max_retries == 5U);
}

TEST_CASE("copy_options_from reads the sizes in bytes or with K, M, G", "[client][cli]") {
  CopyFlags flags;
  flags.tcp_buffer_size = "4M";
  flags.block_size = "64K";
  flags.partial_offset = "1k";
  flags.partial_length = "100";
  const auto built = copy_options_from(flags, kGet);
  REQUIRE(built.error.empty());
  CHECK(built.options.session.tcp_buffer_bytes == 4U * 1024 * 1024);
  CHECK(built.options.transfer.block_size_bytes == 64U * 1024);
  CHECK(built.options.transfer.range.offset == 1024U);
  CHECK(built.options.transfer.range.length == 100U);
}

TEST_CASE("copy_options_from names a size that is not one", "[client][cli]") {
  CopyFlags flags;
  flags.tcp_buffer_size = "4X";
  CHECK(refusal(flags) == "bad -tcp-bs '4X' (bytes, or with K, M or G: 4M)");
  flags = {};
  flags.block_size = "1.5M";
  CHECK(refusal(flags) == "bad -bs '1.5M' (bytes, or with K, M or G: 4M)");
  flags = {};
  flags.partial_offset = "-1";
  CHECK(refusal(flags) == "bad -off '-1' (bytes, or with K, M or G: 4M)");
  flags = {};
  flags.partial_length = "K";
  CHECK(refusal(flags) == "bad -len 'K' (bytes, or with K, M or G: 4M)");
}

TEST_CASE("copy_options_from bounds -tcp-bs to an int and -bs to 1G", "[client][cli]") {
  CopyFlags flags;
  flags.tcp_buffer_size = "0";
  CHECK(refusal(flags) == "bad -tcp-bs '0' (from 1 byte to 2G-1: a socket buffer size is an int)");
  flags.tcp_buffer_size = "2G";
  CHECK(refusal(flags) == "bad -tcp-bs '2G' (from 1 byte to 2G-1: a socket buffer size is an int)");
  flags.tcp_buffer_size = "2147483647";
  CHECK(refusal(flags).empty());
  flags = {};
  flags.block_size = "0";
  CHECK(refusal(flags) == "bad -bs '0' (from 1 byte to 1G)");
  flags.block_size = "1025M";
  CHECK(refusal(flags) == "bad -bs '1025M' (from 1 byte to 1G)");
  flags.block_size = "1G";
  CHECK(refusal(flags).empty());
}

TEST_CASE("copy_options_from: -st 0 is no stall timeout", "[client][cli]") {
  CopyFlags flags;
  flags.stall_timeout_seconds = 0;
  CHECK(copy_options_from(flags, kGet).options.session.data_timeout ==
        gridftp::client::kNoStallTimeout);
  flags.stall_timeout_seconds = 30;
  CHECK(copy_options_from(flags, kGet).options.session.data_timeout == std::chrono::seconds(30));
}

TEST_CASE("copy_options_from: -fast is MODE E with one stream unless -p says more",
          "[client][cli]") {
  CopyFlags flags;
  flags.fast = true;
  CHECK(copy_options_from(flags, kGet).options.transfer.parallelism == 1U);
  flags.parallel = 4;
  CHECK(copy_options_from(flags, kGet).options.transfer.parallelism == 4U);
}

TEST_CASE("copy_options_from: -ss and -ds override -s", "[client][cli]") {
  CopyFlags flags;
  flags.subject = "/CN=both";
  flags.source_subject = "/CN=source";
  const auto built = copy_options_from(flags, kGet);
  CHECK(built.options.session.source_subject == "/CN=source");
  CHECK(built.options.session.dest_subject == "/CN=both");
}

TEST_CASE("copy_options_from reads the checksum algorithm only with -verify-checksum",
          "[client][cli]") {
  CopyFlags flags;
  flags.checksum_algorithm = "NOPE";
  CHECK(refusal(flags).empty());
  flags.verify_checksum = true;
  CHECK(refusal(flags) == "unknown checksum algorithm NOPE");
  flags.checksum_algorithm = "sha256";
  CHECK(copy_options_from(flags, kGet).options.transfer.verify_checksum ==
        gridftp::security::DigestAlgorithm::Sha256);
}

TEST_CASE("copy_options_from: -nodcau excludes -dcsafe and -dcpriv", "[client][cli]") {
  using gridftp::security::DataProtection;
  CopyFlags flags;
  flags.no_dcau = true;
  CHECK_FALSE(copy_options_from(flags, kGet).options.transfer.data_security.authenticate);
  flags.data_safe = true;
  CHECK(refusal(flags) == "-nodcau cannot be combined with -dcsafe or -dcpriv");
  flags = {};
  flags.data_private = true;
  CHECK(refusal(flags) == "");
  CHECK(copy_options_from(flags, kGet).options.transfer.data_security.protection ==
        DataProtection::Private);
  flags.data_private = false;
  flags.data_safe = true;
  CHECK(copy_options_from(flags, kGet).options.transfer.data_security.protection ==
        DataProtection::Safe);
}

TEST_CASE("copy_options_from: the UDPX flags go with -udp", "[client][cli]") {
  CopyFlags flags;
  flags.rate = "500M";
  CHECK(refusal(flags) == "--rate, --min-rate, --policy and --udp-unauthenticated go with -udp");
  flags = {};
  flags.udp_unauthenticated = true;
  CHECK(refusal(flags) == "--rate, --min-rate, --policy and --udp-unauthenticated go with -udp");
}

TEST_CASE("copy_options_from: -udp is one flow and needs an authenticated key", "[client][cli]") {
  CopyFlags flags;
  flags.udp = true;
  flags.parallel = 2;
  CHECK(refusal(flags) == "-udp cannot be combined with -p or -fast (UDPX is one flow)");
  flags.parallel.reset();
  flags.fast = true;
  CHECK(refusal(flags) == "-udp cannot be combined with -p or -fast (UDPX is one flow)");
  flags.fast = false;
  flags.no_dcau = true;
  CHECK(refusal(flags) ==
        "-udp -nodcau has no authenticated key; add --udp-unauthenticated to "
        "accept keys nobody authenticated");
  flags.udp_unauthenticated = true;
  const auto built = copy_options_from(flags, kGet);
  REQUIRE(built.error.empty());
  REQUIRE(built.options.transfer.udpx);
  CHECK(built.options.transfer.udpx->unauthenticated);
}

TEST_CASE("copy_options_from reads the UDPX rates and policy", "[client][cli]") {
  CopyFlags flags;
  flags.udp = true;
  flags.rate = "900M";
  flags.min_rate = "10M";
  flags.policy = "low";
  const auto built = copy_options_from(flags, kGet);
  REQUIRE(built.error.empty());
  REQUIRE(built.options.transfer.udpx);
  CHECK(built.options.transfer.udpx->rate_bps == 900000000U);
  CHECK(built.options.transfer.udpx->min_bps == 10000000U);
  CHECK(built.options.transfer.udpx->policy == "low");
  CHECK_FALSE(built.options.transfer.udpx->unauthenticated);
  flags.rate = "fast";
  CHECK(refusal(flags) == "bad rate 'fast' (bit/s, e.g. 500M)");
  flags.rate = "900M";
  flags.min_rate = "0";
  CHECK(refusal(flags) == "bad rate '0' (bit/s, e.g. 500M)");
}

TEST_CASE("copy_options_from: --ftps-ca and --ftps-insecure", "[client][cli]") {
  const TempFile ca("not checked here\n");
  CopyFlags flags;
  flags.ftps_ca = ca.path.string();
  auto built = copy_options_from(flags, kGet);
  CHECK(built.error.empty());
  CHECK(built.options.session.ftps_trust.ca_path == ca.path.string());
  CHECK(built.options.session.ftps_trust.verify);
  flags.ftps_insecure = true;
  CHECK(refusal(flags) == "--ftps-ca and --ftps-insecure exclude each other");
  flags = {};
  flags.ftps_ca = kMissing;
  CHECK(refusal(flags) == "cannot read --ftps-ca " + kMissing);
  flags = {};
  flags.ftps_insecure = true;
  built = copy_options_from(flags, kGet);
  CHECK(built.error.empty());
  CHECK_FALSE(built.options.session.ftps_trust.verify);
}

TEST_CASE("copy_options_from warns of --ftps-insecure on FTPS, unless -q", "[client][cli]") {
  const std::vector<UrlPair> ftps_get{{"ftps://host/a", "file:///tmp/a"}};
  CopyFlags flags;
  flags.ftps_insecure = true;
  CHECK(copy_options_from(flags, kGet).warnings.empty());
  const std::vector<std::string> warned{"--ftps-insecure: the server's certificate is not checked"};
  CHECK(copy_options_from(flags, ftps_get).warnings == warned);
  flags.list_url = "ftps://host/dir/";
  CHECK(copy_options_from(flags, {}).warnings == warned);
  flags.quiet = true;
  CHECK(copy_options_from(flags, ftps_get).warnings.empty());
}

TEST_CASE("copy_options_from refuses -off and -len on file to file copies", "[client][cli]") {
  const std::vector<UrlPair> local{{"file:///tmp/a", "file:///tmp/b"}};
  CopyFlags flags;
  flags.partial_length = "10";
  CHECK(refusal(flags, local) ==
        "-off and -len apply to copies to or from a server; file:// to "
        "file:// copies are whole files");
  CHECK(refusal(flags, kGet).empty());
}

TEST_CASE("copy_options_from refuses third-party FTPS", "[client][cli]") {
  const std::vector<UrlPair> third_party{{"ftps://one/a", "ftp://two/a"}};
  CHECK(refusal(CopyFlags{}, third_party) ==
        "ftps:// copies go between a server and local files; third-party FTPS needs SSCN (RFC "
        "4217), which the servers do not offer");
  CHECK(refusal(CopyFlags{}, {{"ftps://one/a", "file:///tmp/a"}}).empty());
}

TEST_CASE("copy_options_from gives the warning with a later refusal", "[client][cli]") {
  const std::vector<UrlPair> ftps_third_party{{"ftps://one/a", "ftps://two/a"}};
  CopyFlags flags;
  flags.ftps_insecure = true;
  const auto built = copy_options_from(flags, ftps_third_party);
  CHECK(built.warnings.size() == 1);
  CHECK(built.error.starts_with("ftps:// copies go between a server and local files"));
}

TEST_CASE("copy_options_from checks that -cred is readable", "[client][cli]") {
  CopyFlags flags;
  flags.credential = kMissing;
  CHECK(refusal(flags) == "cannot read -cred " + kMissing);
  const TempFile proxy("a proxy\n");
  flags.credential = proxy.path.string();
  CHECK(refusal(flags).empty());
}

TEST_CASE("copy_options_from names the first problem in gridcp's order", "[client][cli]") {
  CopyFlags flags;
  flags.block_size = "0";  // sizes come after the data-channel flags
  flags.no_dcau = true;
  flags.data_private = true;
  flags.credential = kMissing;  // and -cred last
  CHECK(refusal(flags) == "-nodcau cannot be combined with -dcsafe or -dcpriv");
  flags.no_dcau = false;
  CHECK(refusal(flags) == "bad -bs '0' (from 1 byte to 1G)");
  flags.block_size.clear();
  CHECK(refusal(flags) == "cannot read -cred " + kMissing);
}

TEST_CASE("copy_options_from copies the engine flags", "[client][cli]") {
  CopyFlags flags;
  flags.create_dest = true;
  flags.recursive = true;
  flags.concurrency = 8;
  flags.pipelining = true;
  flags.no_batch = true;
  flags.sync = true;
  flags.sync_level = 3;
  flags.restart = true;
  flags.restart_retries = 2;
  flags.restart_interval_seconds = 7;
  flags.restart_timeout_seconds = 60;
  const auto built = copy_options_from(flags, kGet);
  REQUIRE(built.error.empty());
  const auto& options = built.options;
  CHECK(options.create_dest);
  CHECK(options.recursive);
  CHECK(options.concurrency == 8U);
  CHECK(options.pipelining);
  CHECK_FALSE(options.batch);
  CHECK(options.sync.enabled);
  CHECK(options.sync.level == 3U);
  CHECK(options.restart.enabled);
  CHECK(options.restart.max_retries == 2U);
  CHECK(options.restart.interval == std::chrono::seconds(7));
  CHECK(options.restart.timeout == std::chrono::seconds(60));
}

TEST_CASE("Striping flags choose MODE E, file by file, and the layout", "[client][cli][stripe]") {
  CopyFlags flags;
  flags.stripe = true;
  auto striped = copy_options_from(flags, kGet);
  REQUIRE(striped.error.empty());
  REQUIRE(striped.options.transfer.stripe);
  CHECK_FALSE(striped.options.transfer.stripe->layout);
  CHECK(striped.options.transfer.parallelism == 1u);
  CHECK_FALSE(striped.options.batch);

  flags.stripe = false;  // -sbs alone implies -stripe, as in globus-url-copy
  flags.striped_block_size = "256K";
  flags.parallel = 4;
  auto blocked = copy_options_from(flags, kGet);
  REQUIRE(blocked.error.empty());
  REQUIRE(blocked.options.transfer.stripe);
  REQUIRE(blocked.options.transfer.stripe->layout);
  CHECK(blocked.options.transfer.stripe->layout->kind ==
        gridftp::protocol::mode_e::StripeLayout::Kind::Blocked);
  CHECK(blocked.options.transfer.stripe->layout->block_size == 262144u);
  CHECK(blocked.options.transfer.parallelism == 4u);

  flags.striped_block_size = "0";
  auto partitioned = copy_options_from(flags, kGet);
  REQUIRE(partitioned.error.empty());
  CHECK(partitioned.options.transfer.stripe->layout->kind ==
        gridftp::protocol::mode_e::StripeLayout::Kind::Partitioned);
}

TEST_CASE("Striping refuses a bad -sbs, -udp and -pp", "[client][cli][stripe]") {
  CopyFlags flags;
  flags.striped_block_size = "lots";
  CHECK(refusal(flags).starts_with("bad -sbs 'lots'"));
  flags.striped_block_size.clear();
  flags.stripe = true;
  flags.pipelining = true;
  CHECK(refusal(flags) == "-stripe cannot be combined with -pp");
  flags.pipelining = false;
  flags.udp = true;
  CHECK(refusal(flags) == "-stripe cannot be combined with -udp (UDPX is one flow)");
}
