#include "protocol/control/restrict_paths.hpp"

#include <catch2/catch.hpp>

using namespace gridftp::protocol::control;

namespace {

PathRules rules_of(std::string_view spec, std::string_view home = "/home/alice",
                   std::string_view user = "alice") {
  std::string why;
  auto rules = parse_restrict_paths(spec, home, user, why);
  INFO(why);
  REQUIRE(rules);
  return PathRules(std::move(*rules));
}

bool same(const PathRights& a, const PathRights& b) {
  return a.list == b.list && a.read == b.read && a.write == b.write && a.filtered == b.filtered;
}

const PathRights kNothing{};
const PathRights kReadOnly{true, true, false, false};
const PathRights kReadWrite{true, true, true, false};
const PathRights kWriteOnly{true, false, true, false};
const PathRights kWayThrough{true, false, false, true};

}  // namespace

TEST_CASE("Without restrict_paths every path is allowed", "[control]") {
  const PathRules none;
  CHECK_FALSE(none.restricted());
  CHECK(same(none.rights("/etc/passwd"), kReadWrite));
}

TEST_CASE("restrict_paths keeps absolute paths and limits access to the listed trees",
          "[control]") {
  const auto rules = rules_of("RW/data,R/pub,/both,W/drop,N/data/secret");
  CHECK(rules.restricted());
  CHECK(same(rules.rights("/data"), kReadWrite));
  CHECK(same(rules.rights("/data/x/y.bin"), kReadWrite));
  CHECK(same(rules.rights("/pub/a"), kReadOnly));
  CHECK(same(rules.rights("/both/a"), kReadWrite));  // no prefix: read and write
  CHECK(same(rules.rights("/drop/in"), kWriteOnly));
  // N denies the subtree, the more specific rule winning over RW/data.
  CHECK(same(rules.rights("/data/secret"), kNothing));
  CHECK(same(rules.rights("/data/secret/k"), kNothing));
  // Not below any entry: nothing, and a sibling sharing a prefix is not inside.
  CHECK(same(rules.rights("/etc/passwd"), kNothing));
  CHECK(same(rules.rights("/database"), kNothing));
  CHECK(same(rules.rights("/publish"), kNothing));
}

TEST_CASE("A directory above an allowed tree lists only the way to it", "[control]") {
  const auto rules = rules_of("R/srv/data/public,N/srv/data/hidden");
  CHECK(same(rules.rights("/"), kWayThrough));
  CHECK(same(rules.rights("/srv"), kWayThrough));
  CHECK(same(rules.rights("/srv/data"), kWayThrough));
  CHECK(rules.shows("/", "srv"));
  CHECK_FALSE(rules.shows("/", "etc"));
  CHECK(rules.shows("/srv/data", "public"));
  CHECK_FALSE(rules.shows("/srv/data", "hidden"));
  CHECK_FALSE(rules.shows("/srv/data", "other"));
  CHECK(rules.shows("/srv/data/public", "anything"));
}

TEST_CASE("restrict_paths expands ~, $HOME and $USER per session and decodes %XX", "[control]") {
  const auto rules = rules_of("R~/in,RW/scratch/$USER,R$HOME/../shared,R/odd%2Cname");
  CHECK(same(rules.rights("/home/alice/in/f"), kReadOnly));
  CHECK(same(rules.rights("/scratch/alice/f"), kReadWrite));
  CHECK(same(rules.rights("/scratch/bob/f"), kNothing));
  CHECK(same(rules.rights("/home/shared/f"), kReadOnly));  // normalized
  CHECK(same(rules.rights("/odd,name"), kReadOnly));
}

TEST_CASE("restrict_paths patterns match the whole path after the plain trees", "[control]") {
  const auto rules = rules_of("R/data/*.txt,RW/data/incoming");
  CHECK(same(rules.rights("/data/a.txt"), kReadOnly));
  CHECK(same(rules.rights("/data/sub/b.txt"), kReadOnly));  // * crosses '/', as fnmatch(0)
  CHECK(same(rules.rights("/data/a.bin"), kNothing));
  CHECK(same(rules.rights("/data/incoming/x.txt"), kReadWrite));  // the plain tree goes first
  const auto classes = rules_of("R/runs/run[0-9]?/*,R/logs/[!x]*");
  CHECK(same(classes.rights("/runs/run42/out"), kReadOnly));
  CHECK(same(classes.rights("/runs/runA2/out"), kNothing));
  CHECK(same(classes.rights("/runs/run4/out"), kNothing));  // ? wants one character
  CHECK(same(classes.rights("/logs/a.log"), kReadOnly));
  CHECK(same(classes.rights("/logs/x.log"), kNothing));
}

TEST_CASE("Bad restrict_paths entries are refused by name", "[control]") {
  std::string why;
  for (const auto* spec : {"R/tmp, W/var", "X/tmp", "Rtmp", "", "R/a,,R/b", "/real:/alias"}) {
    INFO(spec);
    CHECK_FALSE(check_restrict_paths(spec, why));
    CHECK_FALSE(why.empty());
  }
  CHECK(why.find("alias") != std::string::npos);
  CHECK(check_restrict_paths("R/tmp,W/var,rw/x,N/y,~,$HOME/a,*.txt", why));
  // `~` with no home left is not a path.
  CHECK_FALSE(parse_restrict_paths("R~", "", "alice", why));
}
