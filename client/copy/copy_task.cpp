#include "client/copy/copy_task.hpp"

namespace gridftp::client {
namespace {

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Url with_path(const Url& url, std::string path) {
  Url out = url;
  out.path = std::move(path);
  return out;
}

bool is_safe_entry_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

}  // namespace

Url dest_for_file(const Url& source, const Url& dest) {
  return dest.is_directory() ? with_path(dest, dest.path + base_name(source.path)) : dest;
}

Url as_directory(Url directory) {
  if (!directory.is_directory()) {
    directory.path += '/';
  }
  return directory;
}

TreeLevel plan_tree_level(const DirectoryPair& directory,
                          const std::vector<protocol::listing::ListingEntry>& entries) {
  TreeLevel level;
  for (const auto& entry : entries) {
    if (entry.is_self_or_parent || !is_safe_entry_name(entry.name)) {
      continue;
    }
    if (entry.is_directory) {
      level.directories.push_back(
          DirectoryPair{with_path(directory.source, directory.source.path + entry.name + '/'),
                        with_path(directory.dest, directory.dest.path + entry.name + '/')});
      continue;
    }
    CopyTask task;
    task.source = with_path(directory.source, directory.source.path + entry.name);
    task.dest = with_path(directory.dest, directory.dest.path + entry.name);
    task.source_facts = FileFacts{entry.size_bytes, entry.modify_seconds};
    level.files.push_back(std::move(task));
  }
  return level;
}

}  // namespace gridftp::client
