#include "client/data/mode_e_sender.hpp"

#include <cstring>
#include <vector>

#include "client/client_errors.hpp"
#include "client/data/timed_io.hpp"
#include "protocol/mode_e/block_header.hpp"

namespace gridftp::client {
namespace {

namespace asio = transport::asio;
namespace mode_e = protocol::mode_e;

std::string_view header_bytes(const mode_e::BlockHeader& header,
                              std::array<std::uint8_t, mode_e::kHeaderBytes>& storage) {
  storage = mode_e::encode_header(header);
  return {reinterpret_cast<const char*>(storage.data()), storage.size()};
}

}  // namespace

Result<std::unique_ptr<ModeESender>> ModeESender::create(const LocalSource& source,
                                                         const SendPlan& plan) {
  const auto count = static_cast<unsigned>(plan.stripes.size());
  if (count == 0) return make_error(std::make_error_code(std::errc::invalid_argument));
  auto planners = mode_e::stripe_planners(plan.layout, count, plan.length, plan.already_present,
                                          plan.block_size_bytes);
  if (!planners) return make_error(planners.error());
  return std::make_unique<ModeESender>(source, plan, std::move(*planners));
}

ModeESender::ModeESender(const LocalSource& source, const SendPlan& plan,
                         std::vector<mode_e::BlockPlanner> planners)
    : source_(source), plan_(plan), planners_(std::move(planners)) {}

ModeESender::~ModeESender() {
  cancel();
  join_all();
}

void ModeESender::start() {
  // Held while the list grows: a stream that fails at once walks it in stream_done().
  std::lock_guard lock(mutex_);
  const auto stripes = static_cast<unsigned>(plan_.stripes.size());
  streams_running_ = plan_.streams * stripes;
  for (unsigned stripe = 0; stripe < stripes; ++stripe) {
    for (unsigned index = 0; index < plan_.streams; ++index) {
      Stream& stream = streams_.emplace_back();
      stream.stripe = stripe;
      // GFD.20: the EOF header goes on exactly one connection of each stripe; it counts as that
      // one's EOD.
      const bool sends_eof = index == 0;
      stream.thread = std::thread([this, &stream, sends_eof] { send_loop(stream, sends_eof); });
    }
  }
}

void ModeESender::send_loop(Stream& stream, bool sends_eof) {
  const auto& address = plan_.stripes[stream.stripe];
  auto connected = connect_with_deadline(stream.io, stream.data.socket(), address.address,
                                         address.port, plan_.stall_timeout, plan_.socket_buffer);
  if (connected) {
    connected = stream.data.secure(plan_.security, security::TlsRole::Client, plan_.stall_timeout);
  }
  if (!connected) {
    stream_done(connected.error());
    return;
  }
  // header + one block, allocated once per stream for the whole transfer
  std::vector<char> buffer(mode_e::kHeaderBytes + plan_.block_size_bytes);
  if (auto sent = send_blocks(stream, buffer); !sent) {
    stream_done(sent.error());
    return;
  }
  const mode_e::BlockHeader last{
      static_cast<std::uint8_t>(sends_eof ? mode_e::kDescriptorEof | mode_e::kDescriptorEod
                                          : mode_e::kDescriptorEod),
      0, sends_eof ? plan_.streams : 0};
  std::array<std::uint8_t, mode_e::kHeaderBytes> storage{};
  auto ended = stream.data.write_all(header_bytes(last, storage), plan_.stall_timeout);
  stream_done(ended ? std::error_code{} : ended.error());
}

Result<void> ModeESender::send_blocks(Stream& stream, std::vector<char>& buffer) {
  for (;;) {
    std::optional<mode_e::Block> block;
    {
      std::lock_guard lock(mutex_);
      if (failure_) {
        return make_error(failure_);
      }
      block = planners_[stream.stripe].next_block();
    }
    if (!block) {
      return {};
    }
    if (auto sent = send_block(stream, *block, buffer); !sent) {
      return sent;
    }
    if (plan_.progress != nullptr) {
      plan_.progress->add(block->length, Clock::now());
    }
    std::lock_guard lock(mutex_);
    bytes_sent_ += block->length;
  }
}

Result<void> ModeESender::send_block(Stream& stream, const mode_e::Block& block,
                                     std::vector<char>& buffer) {
  const auto length = static_cast<std::size_t>(block.length);
  const auto offset = plan_.local_offset + block.offset;
  const auto header = mode_e::encode_header({0, block.length, block.offset});
  std::memcpy(buffer.data(), header.data(), header.size());
  // A regular file on a clear link goes with sendfile, no copy through our memory.
  if (stream.data.is_clear() && source_.splice_descriptor() >= 0 && !stream.staged) {
    auto sent = stream.data.send_file_range(std::span(buffer).first(mode_e::kHeaderBytes),
                                            source_.splice_descriptor(), offset, length,
                                            plan_.stall_timeout);
    if (sent && *sent < length) {
      return make_error(std::make_error_code(std::errc::io_error));  // the file shrank
    }
    if (sent || sent.error() != std::errc::operation_not_supported) {
      return sent ? Result<void>{} : make_error(sent.error());
    }
    // The header went out; the payload follows read and written, as for every later block.
    stream.staged = true;
    auto payload = std::span(buffer).subspan(mode_e::kHeaderBytes, length);
    if (auto read = source_.read_at(offset, payload); !read) {
      return read;
    }
    return stream.data.write_all(std::string_view(payload.data(), payload.size()),
                                 plan_.stall_timeout);
  }
  auto payload = std::span(buffer).subspan(mode_e::kHeaderBytes, length);
  if (auto read = source_.read_at(offset, payload); !read) {
    return read;
  }
  return stream.data.write_all(std::string_view(buffer.data(), mode_e::kHeaderBytes + length),
                               plan_.stall_timeout);
}

void ModeESender::stream_done(std::error_code error) {
  std::lock_guard lock(mutex_);
  if (error && !failure_) {
    failure_ = error;
    // Abort the others promptly instead of letting them run into their stall timeouts.
    for (auto& stream : streams_) {
      asio::post(stream.io, [&stream] {
        boost::system::error_code ignored;
        stream.data.socket().close(ignored);
      });
    }
  }
  --streams_running_;
  done_signal_.notify_all();
}

Result<std::uint64_t> ModeESender::wait() {
  std::unique_lock lock(mutex_);
  done_signal_.wait(lock, [this] { return streams_running_ == 0; });
  if (failure_) {
    return make_error(failure_);
  }
  return bytes_sent_;
}

void ModeESender::cancel() {
  std::lock_guard lock(mutex_);
  if (streams_running_ == 0 || failure_) {
    return;
  }
  failure_ = make_error_code(ClientErrc::Cancelled);
  for (auto& stream : streams_) {
    asio::post(stream.io, [&stream] {
      boost::system::error_code ignored;
      stream.data.socket().close(ignored);
    });
  }
}

void ModeESender::join_all() {
  for (auto& stream : streams_) {
    if (stream.thread.joinable()) {
      stream.thread.join();
    }
  }
}

void ModeESender::close() {
  join_all();
  for (auto& stream : streams_) {
    boost::system::error_code ignored;
    stream.data.socket().close(ignored);
  }
}

}  // namespace gridftp::client
