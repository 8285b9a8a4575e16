// One file the copy engine is to copy, and the pure rules that turn what the user named (a pair,
// a -f list, a -r tree's listings) into such files: where each one lands, which entries are files
// and which are directories to descend into. Planning only; the listings come from the engine.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "client/copy/sync_decision.hpp"
#include "client/url.hpp"
#include "protocol/listing/listing_entry.hpp"

namespace gridftp::client {

struct CopyTask {
  Url source;
  Url dest;
  FileFacts source_facts;  // from the source's listing or stat(2), when known
  // -sync with level 3 and equal sizes: copy only when the digests differ (decided by the worker,
  // since a digest costs a full read).
  bool copy_only_if_checksums_differ = false;
};

// A directory of a -r tree and where it lands; both paths end in '/'.
struct DirectoryPair {
  Url source;
  Url dest;
};

// A file copied onto a directory URL (ending in '/') lands under its own base name there.
Url dest_for_file(const Url& source, const Url& dest);

// `directory` with '/' appended unless it ends in one.
Url as_directory(Url directory);

// Splits one directory's listing into files to copy and subdirectories to descend into, each
// with its place under `dest_dir`. Entries "." and "..", and names holding '/' or equal to "."
// or ".." (a listing may not steer a copy outside the tree) are left out.
struct TreeLevel {
  std::vector<CopyTask> files;
  std::vector<DirectoryPair> directories;
};
TreeLevel plan_tree_level(const DirectoryPair& directory,
                          const std::vector<protocol::listing::ListingEntry>& entries);

}  // namespace gridftp::client
