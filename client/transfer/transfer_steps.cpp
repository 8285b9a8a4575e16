#include "client/transfer/transfer_steps.hpp"

#include <future>

#include "client/data/mode_e_transfer.hpp"
#include "client/storage/checksum_check.hpp"

namespace gridftp::client {

Result<void> prepare_session(Session& session, TransferOptions& options) {
  if (auto typed = session.use_binary_type(); !typed) {
    return typed;
  }
  auto moded = session.use_extended_block_mode(options.parallelism.has_value());
  if (!moded) {
    return make_error(moded.error());
  }
  if (options.parallelism && !*moded) {
    options.parallelism.reset();
    if (options.on_shape) {
      options.on_shape(FileShape{std::nullopt, 1});
    }
  }
  if (auto buffered = session.use_tcp_buffer(); !buffered) {
    return buffered;
  }
  if (auto secured = session.use_data_security(options.data_security); !secured) {
    return secured;
  }
  return session.use_net_stack(net_stack_argument(options.udpx));
}

TransferOptions batch_options(const TransferOptions& options) {
  TransferOptions stream = options;
  stream.parallelism.reset();
  return stream;
}

Result<ParsedReply> begin_stream_transfer(Session& session, DataConnection& data,
                                          const std::string& command) {
  const auto security = session.data_channel_security();
  if (!security.is_enabled()) {
    return session.begin_transfer(command);
  }
  if (auto sent = session.send_transfer_command(command); !sent) {
    return make_error(sent.error());
  }
  auto secured =
      std::async(std::launch::async, [&data, &security] { return data.secure(security); });
  auto begun = session.expect_transfer_start();
  if (!begun) {
    data.cancel();
    (void)secured.get();
    return begun;
  }
  if (auto handshake = secured.get(); !handshake) {
    return make_error(with_server_reason(session, handshake.error()));
  }
  return begun;
}

// Digest of the source before the transfer: CKSM on a server, computed for a local file.
Result<std::optional<std::string>> source_checksum(Session* session, const std::string& path,
                                                   const std::optional<PartialRange>& range,
                                                   const TransferOptions& options) {
  if (!options.verify_checksum) {
    return std::optional<std::string>{};
  }
  auto digest = session ? session->checksum(*options.verify_checksum, path, range)
                        : local_file_checksum(path, *options.verify_checksum, range);
  if (!digest) {
    return make_error(digest.error());
  }
  return std::optional<std::string>{std::move(*digest)};
}

// ESTO A O writes the range at O in the destination file, so that is where its digest is taken.
Result<void> verify_remote(Session& session, const std::string& path,
                           const std::optional<PartialRange>& range,
                           const std::optional<std::string>& expected,
                           const TransferOptions& options) {
  if (!expected) {
    return {};
  }
  auto digest = session.checksum(*options.verify_checksum, path, range);
  if (!digest) {
    return make_error(digest.error());
  }
  return compare_checksums(*expected, *digest);
}

}  // namespace gridftp::client
