#include "client/transfer/batch_get.hpp"

#include "client/data/mode_e_transfer.hpp"
#include "client/transfer/transfer_steps.hpp"
#include "protocol/batch/batch_path.hpp"

namespace gridftp::client {
Result<void> batch_get(Session& session, const std::string& remote_dir,
                       const TransferOptions& options, BatchReceiver& receiver) {
  auto stream = batch_options(options);
  if (auto prepared = prepare_session(session, stream); !prepared) return prepared;
  auto data = session.open_passive_data();
  if (!data) return make_error(data.error());
  if (const auto& point = receiver.restart_point()) {
    if (auto set = session.restart_batch_at(protocol::batch::format_restart_point(*point)); !set) {
      return set;
    }
  }
  const auto command = "BRET " + std::to_string(kBatchReferAboveBytes) + " " + remote_dir;
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
