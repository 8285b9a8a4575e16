#include "client/transfer/batch_put.hpp"

#include "client/data/mode_e_transfer.hpp"
#include "client/data/udpx_data.hpp"
#include "client/transfer/transfer_steps.hpp"

namespace gridftp::client {
namespace {

constexpr std::size_t kWriteBytes = std::size_t{256} * 1024;

}  // namespace

Result<void> batch_put(Session& session, const std::string& remote_dir,
                       const TransferOptions& options, protocol::batch::BatchEncoder& encoder) {
  auto stream = batch_options(options);
  if (auto prepared = prepare_session(session, stream); !prepared) return prepared;
  if (stream.udpx) {
    // One UDPX stream (docs/UDPX.md §1.9); the encoder reports each file as it is sent.
    ProgressTicker unreported({});
    auto sent = send_udpx_stream(
        session, "BSTO " + remote_dir,
        [&](std::string& out, std::size_t want) { return encoder.fill(out, want); }, *stream.udpx,
        unreported);
    if (!sent) return make_error(sent.error());
    return {};
  }
  auto data = session.open_passive_data();
  if (!data) return make_error(data.error());
  if (auto begun = begin_stream_transfer(session, *data, "BSTO " + remote_dir); !begun) {
    return make_error(begun.error());
  }
  std::string out;
  out.reserve(kWriteBytes + std::size_t{64} * 1024);
  Result<void> outcome;
  for (bool ended = false; !ended;) {
    out.clear();
    auto filled = encoder.fill(out, kWriteBytes);
    if (!filled) {
      outcome = make_error(filled.error());
      break;
    }
    ended = *filled;
    if (auto written = data->write_all(out); !written) {
      outcome = written;
      break;
    }
  }
  if (outcome) outcome = data->end_sending();
  if (!outcome) {
    data->close();  // the server sees a batch without its end record: nothing half-written stays
    return make_error(with_server_reason(session, outcome.error()));
  }
  auto done = session.finish_transfer(session.options().data_timeout);
  data->close();
  if (!done) return make_error(done.error());
  return {};
}

}  // namespace gridftp::client
