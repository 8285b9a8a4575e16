#include "server/auth/password_file.hpp"

#include <cerrno>
#include <unordered_map>

#include <unistd.h>

#include "security/local_file.hpp"
#include "security/password_hash.hpp"
#include "security/security_errors.hpp"

namespace gridftp::server::auth {
namespace {

constexpr std::size_t kMaxNameBytes = 32;

bool is_valid_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes) {
    return false;
  }
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) {
      return false;
    }
  }
  return true;
}

bool has_dot_dot_component(std::string_view path) {
  for (const auto& part : std::filesystem::path(path)) {
    if (part == "..") {
      return true;
    }
  }
  return false;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) {
      return parts;
    }
    text.remove_prefix(at + 1);
  }
}

// Fills the writable part of `account`; returns what is wrong, or an empty string.
std::string parse_writable(std::string_view field, Account& account) {
  if (field == "*") {
    account.whole_root_writable = true;
    return {};
  }
  if (field.empty()) {
    return {};
  }
  for (const std::string_view subdir : split(field, ',')) {
    if (subdir.empty()) {
      return "empty entry in writable list";
    }
    if (subdir.front() == '/') {
      return "writable entry '" + std::string(subdir) + "' must be relative to the root";
    }
    if (has_dot_dot_component(subdir)) {
      return "writable entry '" + std::string(subdir) + "' contains '..'";
    }
    account.writable_subdirs.emplace_back(subdir);
  }
  return {};
}

// Parses one non-comment line; returns what is wrong, or an empty string.
std::string parse_line(std::string_view line, Account& account) {
  const std::vector<std::string_view> fields = split(line, ':');
  if (fields.size() != 4) {
    return "expected 4 colon-separated fields (name:hash:root:writable), found " +
           std::to_string(fields.size());
  }
  if (!is_valid_name(fields[0])) {
    return "user name must be 1-32 of [A-Za-z0-9._-]";
  }
  account.name = fields[0];
  // The message names the failure but never echoes the hash itself.
  if (auto checked = security::check_password_hash(fields[1]); !checked) {
    return "user '" + account.name + "': bad password hash: " + checked.error().message();
  }
  account.password_hash = fields[1];
  if (fields[2].empty() || fields[2].front() != '/') {
    return "user '" + account.name + "': root must be an absolute path";
  }
  if (has_dot_dot_component(fields[2])) {
    return "user '" + account.name + "': root must not contain '..'";
  }
  account.root = std::filesystem::path(fields[2]);
  if (auto problem = parse_writable(fields[3], account); !problem.empty()) {
    return "user '" + account.name + "': " + problem;
  }
  return {};
}

bool is_blank_or_comment(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  return first == std::string_view::npos || line[first] == '#';
}

}  // namespace

PasswordFileParse parse_password_file(std::string_view text) {
  PasswordFileParse result;
  std::unordered_map<std::string, std::size_t> first_line_of;
  std::size_t line_number = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);  // tolerate files edited on Windows
    }
    if (is_blank_or_comment(line)) {
      continue;
    }
    const std::string prefix = "line " + std::to_string(line_number) + ": ";
    Account account;
    if (auto problem = parse_line(line, account); !problem.empty()) {
      result.problems.push_back(prefix + problem);
      continue;
    }
    const auto [it, inserted] = first_line_of.emplace(account.name, line_number);
    if (!inserted) {
      result.problems.push_back(prefix + "duplicate user '" + account.name +
                                "' (first defined on line " + std::to_string(it->second) + ")");
      continue;
    }
    result.accounts.push_back(std::move(account));
  }
  return result;
}

Result<std::string> read_password_file(const std::filesystem::path& path) {
  // Hashes are offline-guessable, so group and others may neither read nor replace the file.
  return security::read_local_file(path, security::FileAccess::OwnerOnly, kMaxPasswordFileBytes);
}

}  // namespace gridftp::server::auth
