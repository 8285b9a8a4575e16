// A ControlChannel without sockets for client unit tests: serves scripted reply bytes in the
// given chunks (0, a closed connection, once they run out) and records the lines written.
#pragma once

#include <algorithm>
#include <cstring>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "client/session/control_channel.hpp"

namespace gridftp::client::testing {

class ScriptedChannel final : public ControlChannel {
 public:
  ScriptedChannel(std::deque<std::string> chunks, std::vector<std::string>& written)
      : chunks_(std::move(chunks)), written_(written) {}

  gridftp::Result<void> write_line(std::string_view line) override {
    written_.emplace_back(line);
    return {};
  }
  gridftp::Result<std::size_t> read_some(std::span<char> buffer, Clock::duration) override {
    if (chunks_.empty()) {
      return std::size_t{0};  // server closed
    }
    auto& chunk = chunks_.front();
    const auto count = std::min(buffer.size(), chunk.size());
    std::memcpy(buffer.data(), chunk.data(), count);
    chunk.erase(0, count);
    if (chunk.empty()) {
      chunks_.pop_front();
    }
    return count;
  }
  std::string peer_address() const override { return "127.0.0.1"; }
  bool is_ipv6() const override { return false; }
  void close() override {}

 private:
  std::deque<std::string> chunks_;
  std::vector<std::string>& written_;
};

}  // namespace gridftp::client::testing
