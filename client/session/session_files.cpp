// Session: questions about remote files and directories (SIZE, pipelined SIZEs, MLST, MKD of
// each missing component, CKSM), for planning and checking transfers (docs/WIRE.md §1.4, §1.5).
#include <algorithm>
#include <array>
#include <charconv>

#include "client/session/session.hpp"
#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::client {

namespace rc = protocol::control::reply_code;

namespace {

// Replies that mean "the directory is already there": Globus says 553 (docs/WIRE.md §1.1); other
// servers say 550 or 521 (RFC 959 allows both for MKD).
constexpr std::array kDirectoryExistsCodes{rc::kDirectoryAlreadyExists, rc::kFileUnavailable,
                                           rc::kFileNameNotAllowed};

std::optional<std::uint64_t> size_in(const ParsedReply& reply) {
  std::uint64_t bytes = 0;
  const auto text = reply.first_text();
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
  if (reply.code != rc::kFileStatus || ec != std::errc{} || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return bytes;
}

// "/a/b/c/" → {"/a/", "/a/b/", "/a/b/c/"}, the order globus-url-copy walks in.
std::vector<std::string> directory_prefixes(const std::string& directory) {
  std::vector<std::string> out;
  for (std::size_t slash = directory.find('/', 1); slash != std::string::npos;
       slash = directory.find('/', slash + 1)) {
    out.push_back(directory.substr(0, slash + 1));
  }
  if (!directory.empty() && directory.back() != '/') {
    out.push_back(directory + '/');
  }
  return out;
}

}  // namespace

Result<std::string> Session::checksum(security::DigestAlgorithm algorithm, const std::string& path,
                                      const std::optional<PartialRange>& range) {
  const auto command = checksum_command(algorithm, path, range);
  auto reply = control_->command_expecting(command, rc::kClassPositiveCompletion);
  if (!reply) {
    return make_error(reply.error());
  }
  auto digest = parse_checksum_reply(reply->first_text());
  if (!digest) {
    control_->note_failure(command, *reply);
  }
  return digest;
}

Result<std::optional<std::uint64_t>> Session::size(const std::string& path) {
  auto reply = control_->command("SIZE " + path);
  if (!reply) {
    return make_error(reply.error());
  }
  return size_in(*reply);
}

Result<std::vector<std::optional<std::uint64_t>>> Session::sizes(
    const std::vector<std::string>& paths) {
  for (const auto& path : paths) {
    if (auto sent = control_->send("SIZE " + path); !sent) {
      return make_error(sent.error());
    }
  }
  std::vector<std::optional<std::uint64_t>> out;
  out.reserve(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    auto reply = control_->read_reply(options_.command_timeout);
    if (!reply) {
      return make_error(reply.error());
    }
    out.push_back(size_in(*reply));
  }
  return out;
}

Result<std::optional<protocol::listing::ListingEntry>> Session::stat(const std::string& path) {
  if (!has_feature("MLST")) {
    auto bytes = size(path);
    if (!bytes || !*bytes) {
      return bytes ? Result<std::optional<protocol::listing::ListingEntry>>(std::nullopt)
                   : make_error(bytes.error());
    }
    protocol::listing::ListingEntry entry;
    entry.size_bytes = *bytes;
    return std::optional<protocol::listing::ListingEntry>(std::move(entry));
  }
  auto reply = control_->command("MLST " + path);
  if (!reply) {
    return make_error(reply.error());
  }
  if (reply->code / 100 != rc::kClassPositiveCompletion) {
    return std::optional<protocol::listing::ListingEntry>{};
  }
  // "250-status of p" / " facts p" / "250 End.": the fact line is the one starting with a space.
  for (const auto& line : reply->lines) {
    if (!line.empty() && line.front() == ' ') {
      if (auto entry = protocol::listing::parse_mlsd_line(std::string_view(line).substr(1));
          entry) {
        return std::optional<protocol::listing::ListingEntry>(std::move(*entry));
      }
    }
  }
  return std::optional<protocol::listing::ListingEntry>{};
}

Result<void> Session::make_directories(const std::string& directory) {
  // Try the whole path first; only walk from the root when that fails (docs/WIRE.md §1.5 `-cd`).
  auto whole = control_->command("MKD " + directory);
  if (!whole) {
    return make_error(whole.error());
  }
  if (whole->code / 100 == rc::kClassPositiveCompletion) {
    return {};
  }
  for (const auto& prefix : directory_prefixes(directory)) {
    auto reply = control_->command("MKD " + prefix);
    if (!reply) {
      return make_error(reply.error());
    }
    const bool exists = std::find(kDirectoryExistsCodes.begin(), kDirectoryExistsCodes.end(),
                                  reply->code) != kDirectoryExistsCodes.end();
    if (reply->code / 100 != rc::kClassPositiveCompletion && !exists) {
      control_->note_failure("MKD " + prefix, *reply);
      return make_error(rejected_reply_error());
    }
  }
  return {};
}

}  // namespace gridftp::client
