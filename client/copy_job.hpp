// Runs what one gridcp invocation asks for: URL pairs to copy (file, get, put, third-party,
// recursive trees) and listings, reusing one logged-in session per server and role. Decides
// which transfer to run; the transfers themselves are in transfer.cpp.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client/session.hpp"
#include "client/transfer.hpp"
#include "client/transfer_observer.hpp"
#include "client/url.hpp"

namespace gridftp::client {

struct CopyOptions {
  bool create_dest = false;  // -cd
  bool recursive = false;    // -r
  SessionOptions session;
  TransferOptions transfer;  // -p, -bs, -off/-len, -verify-checksum
  // Ask a remote source its SIZE before each file, so that a progress display can show an ETA.
  // Off by default: globus-url-copy sends no SIZE for a plain get.
  bool ask_source_size = false;
};

// Called after each file that was copied, with its URLs as the user would spell them.
using FileDoneCallback =
    std::function<void(const Url& source, const Url& dest, const TransferStats& stats)>;

class CopyJob {
 public:
  CopyJob(CopyOptions options, std::shared_ptr<spdlog::logger> log);

  // Copies source to dest. A dest ending in '/' receives the source's file name; with
  // `recursive`, a source ending in '/' is copied as a tree. Errors: see transfer.hpp; also
  // Errc::BadArgument for unsupported schemes and for a directory source without -r, and those
  // of GsiCredentials::load_from_environment and authenticate_gsi() for gsiftp://. After an
  // error, failure_detail() holds the server's reply when a server refused, or what was wrong
  // with the credential.
  Result<TransferStats> copy(const Url& source, const Url& dest);
  // Lists a remote directory (or a local one). Same errors as copy().
  Result<std::vector<ListingEntry>> list(const Url& url);

  void set_file_done_callback(FileDoneCallback callback) { on_file_done_ = std::move(callback); }
  // Told about each file: started, byte progress, finished (copied or failed). May be null; must
  // outlive the job.
  void set_observer(TransferObserver* observer) { observer_ = observer; }
  // Why the last call failed, beyond its error code: "ftp://h:21 RETR /x: 550 …". May be empty.
  const std::string& failure_detail() const { return failure_detail_; }
  // Sends QUIT on every open session.
  void close_all();

 private:
  enum class Role { Source, Dest };

  Result<Session*> session_for(const Url& url, Role role);
  // The user's GSI credentials, loaded on the first gsiftp:// URL and kept for the run.
  Result<std::shared_ptr<const GsiCredentials>> gsi_credentials();
  Result<TransferStats> copy_file(const Url& source, const Url& dest);
  Result<TransferStats> transfer_file(const Url& source, const Url& dest,
                                      const TransferOptions& transfer);
  // The bytes this file should move, when known without a transfer: -len, a local source's
  // size, or the remote source's SIZE with ask_source_size.
  std::optional<std::uint64_t> expected_bytes(const Url& source);
  Result<TransferStats> copy_tree(const Url& source, const Url& dest);
  Result<std::vector<ListingEntry>> list_any(const Url& url, Role role);
  Result<void> make_dest_directory(const Url& dest, const std::string& directory);
  // Each session's last refusal, "label replied to <reply>", one per line; empty when none.
  std::string server_refusals() const;
  // Collects the servers' refusals into failure_detail_ and drops every session.
  void record_failure(std::error_code error);

  // Each session has its own io_context, so that the two control connections of a third-party
  // transfer can be waited on from two threads at once.
  struct SessionSlot {
    std::unique_ptr<transport::asio::io_context> io;  // declared first: outlives the session
    std::unique_ptr<Session> session;
  };

  CopyOptions options_;
  std::shared_ptr<spdlog::logger> log_;
  std::map<std::pair<std::string, Role>, SessionSlot> sessions_;
  std::shared_ptr<const GsiCredentials> gsi_;
  FileDoneCallback on_file_done_;
  TransferObserver* observer_ = nullptr;
  std::size_t next_file_id_ = 1;
  std::string failure_detail_;
};

}  // namespace gridftp::client
