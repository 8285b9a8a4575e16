#include "client/transfer/batch_get.hpp"

#include "client/data/mode_e_transfer.hpp"
#include "client/data/udpx_data.hpp"
#include "client/transfer/transfer_steps.hpp"
#include "protocol/batch/batch_path.hpp"

namespace gridftp::client {
namespace {

// Over UDPX the batch is one stream (docs/UDPX.md §1.9) and holds every file, whatever its
// size (batch_refer_above).
Result<void> batch_get_udpx(Session& session, const std::string& remote_dir,
                            const UdpxRequest& request, BatchReceiver& receiver) {
  if (const auto& point = receiver.restart_point()) {
    if (auto set = session.restart_batch_at(protocol::batch::format_restart_point(*point)); !set) {
      return set;
    }
  }
  receiver.begin_attempt();
  ProgressTicker unreported({});  // the receiver reports each file to the observer
  auto received = receive_udpx_stream(
      session, "BRET 0 " + remote_dir,
      [&](std::span<const char> bytes) { return receiver.consume(bytes); }, request, unreported);
  if (!received) return make_error(received.error());
  return receiver.finish_stream();
}

}  // namespace

Result<void> batch_get(Session& session, const std::string& remote_dir,
                       const TransferOptions& options, BatchReceiver& receiver) {
  auto stream = batch_options(options);
  if (auto prepared = prepare_session(session, stream); !prepared) return prepared;
  if (stream.udpx) return batch_get_udpx(session, remote_dir, *stream.udpx, receiver);
  auto data = session.open_passive_data();
  if (!data) return make_error(data.error());
  if (const auto& point = receiver.restart_point()) {
    if (auto set = session.restart_batch_at(protocol::batch::format_restart_point(*point)); !set) {
      return set;
    }
  }
  const auto command = "BRET " + std::to_string(batch_refer_above(stream)) + " " + remote_dir;
  if (auto begun = begin_stream_transfer(session, *data, command); !begun) {
    return make_error(begun.error());
  }
  receiver.begin_attempt();
  auto drained = drain(*data, [&](std::string_view chunk) {
    return receiver.consume(std::span<const char>(chunk.data(), chunk.size()));
  });
  auto outcome = drained ? receiver.finish_stream() : Result<void>(make_error(drained.error()));
  if (outcome) (void)data->end_sending();
  data->close();
  if (!outcome) return make_error(with_server_reason(session, outcome.error()));
  if (auto done = session.finish_transfer(session.options().data_timeout); !done) {
    return make_error(done.error());
  }
  return {};
}

}  // namespace gridftp::client
