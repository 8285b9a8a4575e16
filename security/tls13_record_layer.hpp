// The TLS 1.3 record layer of one data stream after OpenSSL has run its handshake
// (docs/ARCHITECTURE.md, "Secure data streams"). OpenSSL's own record layer copies every byte
// twice more than needed: plaintext into its write buffer and sealed records into the BIO
// pair, records out of the BIO pair and plaintext out to the caller. This one seals each
// record straight from the caller's bytes into the buffer the socket sends from, and opens
// each received record straight into the caller's buffer. It is ordinary TLS 1.3 on the wire
// (RFC 8446 §5), so any peer (Globus's OpenSSL included) reads and writes it as usual.
//
// It also does what TLS 1.3 asks after the handshake: it takes KeyUpdate (and answers one
// that asks for an update), drops NewSessionTicket (data contexts never resume), ends with
// close_notify and treats any other alert as fatal. Pure: no sockets, fixed buffers.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "protocol/core/result.hpp"
#include "security/record_workers.hpp"
#include "security/tls13_record_cipher.hpp"

namespace gridftp::security {

class Tls13RecordLayer {
 public:
  // `write_secret` protects what we send, `read_secret` what the peer sends; both are
  // application_traffic_secret_0, so both directions start at record number 0. `buffer_bytes`
  // sizes the send and the receive buffer (at least one largest record each).
  static Result<Tls13RecordLayer> create(Tls13Suite suite,
                                         std::span<const std::uint8_t> write_secret,
                                         std::span<const std::uint8_t> read_secret,
                                         std::size_t buffer_bytes);

  // --- network side (as TlsEngine's) ---
  std::span<char> input_space();
  void commit_input(std::size_t bytes);
  std::span<const char> pending_output() const;
  void consume_output(std::size_t bytes);
  bool has_output() const { return output_end_ > output_begin_; }

  // --- plaintext side ---
  // Seals as much of `plain` as whole records fit in the send buffer; 0 when it is full.
  // Errors: TlsErrc::Fatal after the layer failed or was shut down.
  Result<std::size_t> write(std::span<const char> plain);
  // Opens every whole record received, into `out`; 0 when more input is needed.
  // Errors: TlsErrc::PeerClosed after close_notify; TlsErrc::Fatal for a forged record, an
  // unexpected message or alert (last_error() says which).
  Result<std::size_t> read(std::span<char> out);
  // Queues close_notify; nothing may be written after it.
  void shutdown();

  // From now on write() seals, and read() opens, runs of full records on `workers` (null: on
  // the caller's thread only), each job with its own copy of the key; the bytes on the wire and
  // the plaintext handed out are the same.
  void use_workers(RecordWorkers* workers) { workers_ = workers; }

  const std::string& last_error() const { return last_error_; }

 private:
  Tls13RecordLayer(Tls13RecordCipher sealer, Tls13RecordCipher opener, std::size_t buffer_bytes);
  // Length of the record at the front of the input when all of it is there, else 0.
  Result<std::size_t> whole_record() const;
  Result<void> seal_record(ContentType type, std::span<const char> content);
  // Seals as many full records of `plain` as fit, split across the workers; the plaintext bytes
  // taken (0 when the run is too short to be worth splitting).
  Result<std::size_t> seal_full_records_on_workers(std::span<const char> plain);
  // Opens the whole full-size records at the front of the input, as many as `out` has room for,
  // split across the workers, each straight into its slice of `out`; stops before the first that
  // is not unpadded application data (left for one-by-one opening). The bytes placed in `out`.
  Result<std::size_t> open_full_records_on_workers(std::span<char> out);
  // Moves unsent output to the front when fewer than `need` bytes are free behind it.
  void make_output_room(std::size_t need);
  // A record that is not application data: handshake messages and alerts.
  Result<void> take_control_record(ContentType type, std::span<const char> content);
  Result<void> take_handshake_messages();
  std::error_code fail(std::string reason);

  Tls13RecordCipher sealer_;
  Tls13RecordCipher opener_;
  RecordWorkers* workers_ = nullptr;
  std::vector<Tls13RecordCipher> lane_sealers_;  // copies of sealer_'s key, one per worker lane
  std::vector<Tls13RecordCipher> lane_openers_;  // copies of opener_'s key, one per worker lane
  std::vector<std::uint8_t> opened_types_;       // per record of a run: the byte behind its content
  std::vector<char> output_;
  std::size_t output_begin_ = 0;
  std::size_t output_end_ = 0;
  std::vector<char> input_;
  std::size_t input_begin_ = 0;
  std::size_t input_end_ = 0;
  // Application data opened in place in `input_` (before input_begin_) and not yet handed out:
  // only when a caller's buffer was too small for a whole record.
  std::size_t plain_begin_ = 0;
  std::size_t plain_end_ = 0;
  std::string handshake_bytes_;  // post-handshake messages may span records
  bool peer_closed_ = false;
  bool failed_ = false;
  bool shut_down_ = false;
  std::string last_error_;
};

}  // namespace gridftp::security
