// Runs what one gridcp invocation asks for: URL pairs (positional or -f), -r trees expanded into
// files, -sync decisions, then -cc workers copying files at once, each with its own sessions,
// with -rst retries and -pp pipelining. Every file is reported to a TransferObserver. A failed
// file never stops the others. The transfers themselves are in transfer.cpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "client/copy/retry_policy.hpp"
#include "client/copy/sync_decision.hpp"
#include "client/copy/url_pair_list.hpp"
#include "client/session/session.hpp"
#include "client/transfer/transfer.hpp"
#include "client/transfer/transfer_observer.hpp"

namespace gridftp::client {

struct SyncOptions {
  bool enabled = false;                // -sync
  unsigned level = kDefaultSyncLevel;  // -sync-level
};

struct CopyOptions {
  bool create_dest = false;  // -cd
  bool recursive = false;    // -r
  unsigned concurrency = 1;  // -cc: files in flight, each worker with its own control connections
  bool pipelining = false;   // -pp
  // -r trees from a server with BATCH to local disk go in one batch transfer (-no-batch: off).
  bool batch = true;
  SyncOptions sync;
  RetryPolicy restart;  // -rst, -rst-retries, -rst-interval, -rst-timeout
  SessionOptions session;
  TransferOptions transfer;  // -p, -bs, -off/-len, -verify-checksum, data-channel security
  // Told about every file from the worker threads; must outlive the engine. Null: nobody.
  TransferObserver* observer = nullptr;
  // The observer shows sizes (the live display): a get whose size nobody knows asks SIZE.
  bool learn_sizes = false;
};

class CopyEngine {
 public:
  CopyEngine(CopyOptions options, std::shared_ptr<spdlog::logger> log);
  ~CopyEngine();
  CopyEngine(const CopyEngine&) = delete;
  CopyEngine& operator=(const CopyEngine&) = delete;

  // Copies every pair. A destination ending in '/' receives the source's file name; with -r a
  // source ending in '/' is copied as a tree. Bad URLs, unreachable servers, refusals and local
  // errors fail only the files they touch (reported as FileResult::Failed, naming the file).
  // True when every file was copied or skipped.
  bool run(const std::vector<UrlPair>& pairs);

  // Lists a remote or local directory. Errors: connection, login and refusal errors (see
  // Session); failure_detail() then says more.
  Result<std::vector<protocol::listing::ListingEntry>> list(const Url& url);
  const std::string& failure_detail() const { return failure_detail_; }

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  std::string failure_detail_;
};

}  // namespace gridftp::client
