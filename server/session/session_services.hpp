// What every control session shares: config, limits bookkeeping, authentication, logs and the
// pool for blocking work. Owned by Server; sessions hold a reference for their whole life.
#pragma once

#include <memory>

#include <unistd.h>

#include "security/key_pool.hpp"
#include "security/openssl_ptr.hpp"
#include "server/auth/authenticator.hpp"
#include "server/auth/gsi_context.hpp"
#include "server/config/server_config.hpp"
#include "server/data/udpx_rate_pool.hpp"
#include "server/logging/transfer_log.hpp"
#include "server/metrics/metrics_page.hpp"
#include "server/session/session_registry.hpp"
#include "transport/asio.hpp"
#include "transport/loop_pool.hpp"

namespace spdlog {
class logger;
}

namespace gridftp::server {

struct SessionServices {
  const ServerConfig& config;
  SessionRegistry& registry;
  const auth::Authenticator& authenticator;
  const auth::GsiContext* gsi;      // null unless gsi.enabled
  const security::SslCtxPtr& ftps;  // empty unless tls.enabled
  const TransferLog& transfer_log;
  std::shared_ptr<spdlog::logger> log;
  transport::asio::thread_pool& blocking_pool;
  transport::LoopPool& data_loops;               // each data stream runs on one of these
  security::KeyPool* delegation_keys = nullptr;  // null unless gsi.enabled
  std::shared_ptr<UdpxRatePool> udpx_pool;       // null unless [udpx] aggregate_rate_bps
  std::shared_ptr<MetricsPage> metrics;          // null only if the page could not be made
  security::SslCtxPtr striping_client = {};      // a frontend's TLS to its movers, else empty
  // Started as root, a session is a process of its own and becomes the login's account after
  // login (server/process). Unit tests that run sessions inside the test process as root turn
  // it off: the switch would change the whole test process's user.
  bool switches_account = ::geteuid() == 0;
};

}  // namespace gridftp::server
