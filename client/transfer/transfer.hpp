// File transfers as globus-url-copy runs them (docs/WIRE.md §1.5): get, put and third-party in
// stream mode or, with -p, in MODE E; -off/-len as ERET/ESTO; -verify-checksum. Also directory
// listing and the local copy. Each call is one file; the choice of which to run is the copy
// engine's (file_worker). The MODE E data movers are mode_e_receiver and mode_e_sender.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/data/data_security_plan.hpp"
#include "client/session/session.hpp"
#include "client/transfer/restart_state.hpp"
#include "client/transfer/transfer_observer.hpp"
#include "client/transfer/transfer_plan.hpp"
#include "protocol/listing/listing_entry.hpp"
#include "security/digest.hpp"

namespace gridftp::client {

struct TransferStats {
  std::uint64_t bytes = 0;
  Clock::duration elapsed{};
  std::optional<NetworkFigures> udpx;  // get/put over UDPX: what the engine measured
};

struct TransferOptions {
  // -p: MODE E with this many streams. globus-url-copy switches to MODE E whenever -p is given,
  // -p 1 included; nullopt keeps stream mode.
  std::optional<unsigned> parallelism;
  std::uint64_t block_size_bytes = kDefaultBlockSizeBytes;   // -bs, MODE E put
  RangeRequest range;                                        // -off / -len
  std::optional<security::DigestAlgorithm> verify_checksum;  // -verify-checksum [-checksum-alg]
  // gsiftp data channels: -nodcau, -dcsafe, -dcpriv (ignored on ftp:// sessions).
  DataSecurityLevel data_security;
  // -udp: the UDPX data channel instead of TCP (get, put and third-party; not with -p).
  std::optional<UdpxRequest> udpx;
  // Cumulative bytes of the file so far: get and put count the data moved here (a few calls a
  // second, from the data threads), third-party reads the dest's 112 performance markers.
  std::function<void(std::uint64_t bytes)> on_progress;
  // What the transfer learns about the file once under way (the source's SIZE, the streams it
  // really runs), for the progress display; may be empty.
  std::function<void(const FileShape& shape)> on_shape;
  // The caller does not know the source's size: a get asks SIZE for on_shape (a known size
  // saves the round trip per file of a -r tree).
  bool ask_size = false;
  // -rst: where this attempt starts and what it learns for the next (restart_state.hpp); null
  // without restarts. Stream gets resume from the partial file, puts and third-party transfers
  // from the receiver's 111 markers or, from a server that sends none, its size after an earlier
  // STOR began.
  RestartState* restart = nullptr;
  // -stripe / -sbs (MODE E): put and third-party to a striped receiver (transfer_plan.hpp).
  std::optional<StripeRequest> stripe;
};

// Failures of the calls below: a server refusal is rejected_reply_error() with the reply in the
// session's control().last_failure(); local files fail with errno codes; the data and control
// connections fail with their socket errors or std::errc::timed_out; MODE E data with the
// decoder's and protocol::mode_e::ReceiveAccounting's errors; a checksum difference is
// ClientErrc::ChecksumMismatch. Local files are written under a temporary name and renamed only
// after the server's 226 (and a matching checksum).

// Stream: TYPE I, PASV/EPSV, RETR (or ERET) into local_path, written from the local offset -off.
// MODE E: TYPE I, MODE E, OPTS RETR Parallelism, PORT/EPRT (we listen), RETR/ERET.
Result<TransferStats> get_file(Session& session, const std::string& remote_path,
                               const std::string& local_path, const TransferOptions& options);

// Stream: TYPE I, PASV/EPSV, ALLO, STOR (or ALLO L + ESTO A O). MODE E: TYPE I, MODE E, PASV,
// ALLO, STOR/ESTO, then N connections to the server.
Result<TransferStats> put_file(Session& session, const std::string& local_path,
                               const std::string& remote_path, const TransferOptions& options);

// Source SIZE; dest (MODE E) PASV + ALLO + STOR/ESTO; source (MODE E, OPTS RETR) PORT/EPRT with
// the dest's address + RETR/ERET; then both final replies, each awaited on its own thread so a
// failure on either side is seen at once (docs/WIRE.md §1.1, §1.6.3).
Result<TransferStats> third_party_copy(Session& source, const std::string& source_path,
                                       Session& dest, const std::string& dest_path,
                                       const TransferOptions& options);

// Copies a local file through a temporary name.
Result<TransferStats> copy_local_file(const std::string& source_path, const std::string& dest_path);

// MLSD when FEAT lists MLST, else NLST, its data connection secured as `data_security` asks
// on gsiftp. Entries "." and ".." are left out.
Result<std::vector<protocol::listing::ListingEntry>> list_directory(
    Session& session, const std::string& path, const DataSecurityLevel& data_security);

// The files and bytes a dest stored, from its 226 to BSTO; zeros when it did not say.
struct BatchStored {
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
};

// A third-party batch (docs/WIRE.md §7) between two servers whose FEAT lists BATCH: dest PASV,
// BSTO; source PORT, BRET 0 (every file in the batch); both final replies.
// Errors: those of third_party_copy().
Result<BatchStored> third_party_batch(Session& source, const std::string& source_dir, Session& dest,
                                      const std::string& dest_dir, const TransferOptions& options);

}  // namespace gridftp::client
