#include "protocol/control/protected_reply_reader.hpp"

#include <algorithm>

#include "protocol/core/base64.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::protocol::control {
namespace {

constexpr std::size_t kCodeBytes = 3;

// RFC 2228: 631 integrity (MIC), 632 confidentiality and integrity (ENC), 633 confidentiality.
bool is_protection_code(std::string_view line) {
  // A bare "632" (its token trimmed away) is a protected line with an empty, bad token.
  if (line.size() < kCodeBytes ||
      (line.size() > kCodeBytes && line[kCodeBytes] != ' ' && line[kCodeBytes] != '-')) {
    return false;
  }
  const auto code = line.substr(0, kCodeBytes);
  return code == "631" || code == "632" || code == "633";
}

std::string_view trim_trailing(std::string_view text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace

Result<void> ProtectedReplyReader::feed(std::string_view bytes, std::vector<ProtectedLine>& out) {
  if (failed_) {
    return make_error(failed_);
  }
  while (!bytes.empty()) {
    const auto newline = bytes.find('\n');
    const auto take = newline == std::string_view::npos ? bytes.size() : newline;
    if (partial_.size() + take > kMaxProtectedLineBytes) {
      failed_ = make_error_code(protocol::Errc::LineTooLong);
      return make_error(failed_);
    }
    partial_.append(bytes.substr(0, take));
    if (newline == std::string_view::npos) {
      return {};
    }
    bytes.remove_prefix(newline + 1);
    if (auto finished = finish_line(out); !finished) {
      failed_ = finished.error();
      return finished;
    }
  }
  return {};
}

Result<void> ProtectedReplyReader::finish_line(std::vector<ProtectedLine>& out) {
  const auto line = trim_trailing(partial_);
  if (!is_protection_code(line)) {
    out.push_back({ProtectedLine::Kind::Clear, std::string(line) + "\r\n"});
    partial_.clear();
    return {};
  }
  auto token = protocol::decode_base64(line.substr(std::min(line.size(), kCodeBytes + 1)));
  partial_.clear();
  if (!token || token->empty()) {
    return make_error(make_error_code(protocol::Errc::BadReply));
  }
  out.push_back({ProtectedLine::Kind::Token, std::string(token->begin(), token->end())});
  return {};
}

}  // namespace gridftp::protocol::control
