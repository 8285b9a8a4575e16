// gridcp's end of a get or put over UDPX (docs/UDPX.md §8): SETNETSTACK has been sent
// (prepare_session); here PASV gives the server's UDP port, the transfer command starts it,
// and we run the shared engine (transport/udpx/udpx_transfer) as the active side: the TLS
// client of the key exchange, presenting our credential and expecting our own identity back
// (DCAU A: the server holds the proxy we delegated), then the receiver (get) or sender (put).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "client/report/progress_ticker.hpp"
#include "client/session/session.hpp"
#include "client/storage/local_source.hpp"
#include "client/storage/staged_file.hpp"
#include "client/transfer/restart_state.hpp"
#include "client/transfer/transfer_observer.hpp"
#include "client/transfer/transfer_plan.hpp"
#include "protocol/restart/byte_range_set.hpp"

namespace gridftp::client {

// Errors: ClientErrc::UdpxNeedsDcau, the PASV and transfer command's refusals, and
// ClientErrc::UdpxFailed (after the server's final reply has been read and logged).
// A get. `held` (null when the get cannot be resumed) is what the staged file holds: the
// ranges its REST `rest` named (-rst resuming a partial file, docs/UDPX.md §8), to which the
// ranges this attempt writes are added, so that a -rst retry asks only for what is missing.
Result<NetworkFigures> receive_udpx(Session& session, const std::string& command,
                                    const StagedFile& staged,
                                    const std::optional<std::string>& rest,
                                    protocol::restart::ByteRangeSet* held,
                                    const UdpxRequest& request, ProgressTicker& progress);
// A put. `restart` (null when the put cannot be resumed) collects the server's 111 markers, and
// on a -rst retry its ranges are not sent again.
Result<NetworkFigures> send_udpx(Session& session, const std::string& command,
                                 const LocalSource& source, std::uint64_t offset,
                                 std::uint64_t length, RestartState* restart,
                                 const UdpxRequest& request, ProgressTicker& progress);

// A batch (docs/WIRE.md §7) as one UDPX stream (docs/UDPX.md §1.9). A get hands the stream's
// bytes to `consume` in order; a put sends what `produce` makes (true once the end is made).
// Errors: as above, and the first error `consume` or `produce` returned.
Result<NetworkFigures> receive_udpx_stream(
    Session& session, const std::string& command,
    const std::function<Result<void>(std::span<const char>)>& consume, const UdpxRequest& request,
    ProgressTicker& progress);
Result<NetworkFigures> send_udpx_stream(
    Session& session, const std::string& command,
    const std::function<Result<bool>(std::string& out, std::size_t want)>& produce,
    const UdpxRequest& request, ProgressTicker& progress);

}  // namespace gridftp::client
