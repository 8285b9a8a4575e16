// The local accounts file: one `name:hash:root:writable` line per user, '#' comments. Parsing is
// pure and reports every bad line; reading checks the file is private. Not the gridmap file.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::server::auth {

struct Account {
  std::string name;                           // [A-Za-z0-9._-]{1,32}
  std::string password_hash;                  // as written by security::hash_password()
  std::filesystem::path root;                 // absolute; the user's "/"
  bool whole_root_writable = false;           // writable field "*"
  std::vector<std::string> writable_subdirs;  // relative to root; empty and not whole = read-only
};

struct PasswordFileParse {
  std::vector<Account> accounts;      // only the lines that parsed
  std::vector<std::string> problems;  // "line N: <what is wrong>", in file order
};

inline constexpr std::size_t kMaxPasswordFileBytes = 1 << 20;

// Parses the whole text. Bad lines are left out of `accounts` and named in `problems`; a caller
// that wants all-or-nothing refuses to start when problems is not empty.
PasswordFileParse parse_password_file(std::string_view text);

// Reads the file after checking, on the opened descriptor, that it is a regular file no larger
// than kMaxPasswordFileBytes that neither group nor others can read or write.
// Errors: errno values from open/read (e.g. ENOENT), security::Errc::NotARegularFile,
// security::Errc::FileTooPermissive, security::Errc::FileTooLarge.
Result<std::string> read_password_file(const std::filesystem::path& path);

}  // namespace gridftp::server::auth
