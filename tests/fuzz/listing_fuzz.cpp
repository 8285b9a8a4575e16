// MLSD listings as gridcp reads them from a server during a recursive copy: the body split into
// lines, each line's facts and name, and the plan that turns entries into local destinations.
// Whatever a server lists, every destination stays under the directory being copied into.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "client/copy/copy_task.hpp"
#include "protocol/listing/listing_entry.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace cl = gridftp::client;
namespace pl = gridftp::protocol::listing;

bool stays_under(const std::string& path, const std::string& dir) {
  if (path.size() <= dir.size() || path.compare(0, dir.size(), dir) != 0) return false;
  const auto rest = std::string_view(path).substr(dir.size());
  // One more component (a file, or a directory with its '/'), never "." or "..".
  const auto slash = rest.find('/');
  const auto name = rest.substr(0, slash);
  return !name.empty() && name != "." && name != ".." &&
         (slash == std::string_view::npos || slash == rest.size() - 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto body = gridftp::fuzz::as_text(data, size);
  std::vector<pl::ListingEntry> entries;
  for (auto line : pl::split_listing_lines(body)) {
    FUZZ_CHECK(line.find('\n') == std::string_view::npos);
    auto entry = pl::parse_mlsd_line(line);
    if (!entry) continue;
    FUZZ_CHECK(!entry->name.empty());
    (void)entry->display_name();
    entries.push_back(std::move(*entry));
  }
  cl::DirectoryPair directory;
  directory.source.scheme = cl::Scheme::Ftp;
  directory.source.host = "source.example";
  directory.source.path = "/data/tree/";
  directory.dest.path = "/tmp/copy/";
  const auto level = cl::plan_tree_level(directory, entries);
  for (const auto& task : level.files) {
    FUZZ_CHECK(stays_under(task.source.path, directory.source.path));
    FUZZ_CHECK(stays_under(task.dest.path, directory.dest.path));
  }
  for (const auto& sub : level.directories) {
    FUZZ_CHECK(stays_under(sub.dest.path, directory.dest.path));
  }
  (void)pl::parse_time_val(body);
  return 0;
}
