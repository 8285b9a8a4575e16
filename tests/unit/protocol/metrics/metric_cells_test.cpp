// The metrics layout and its exposition (docs/METRICS.md): every labelled series has a cell of
// its own, labels come from transfer records as the transfer log writes them, and the text is
// what a Prometheus scrape expects.
#include "protocol/metrics/metric_cells.hpp"

#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "protocol/metrics/scrape_answer.hpp"

using namespace gridftp::protocol::metrics;

TEST_CASE("Every labelled series has a cell of its own, inside the array", "[metrics]") {
  std::set<std::size_t> seen;
  const auto take = [&](std::size_t cell) {
    CHECK(cell < cell::kCount);
    CHECK(seen.insert(cell).second);
  };
  take(cell::kSessionsStarted);
  take(cell::kSessionsEnded);
  for (std::size_t m = 0; m < kLoginMethods; ++m)
    for (std::size_t o = 0; o < kOutcomes; ++o) take(login_cell(LoginMethod(m), Outcome(o)));
  for (std::size_t d = 0; d < kDirections; ++d)
    for (std::size_t m = 0; m < kModes; ++m)
      for (std::size_t l = 0; l < kLevels; ++l) {
        take(bytes_cell(Direction(d), DataMode(m), SecurityLevel(l)));
        for (std::size_t o = 0; o < kOutcomes; ++o)
          take(transfer_cell(Direction(d), DataMode(m), SecurityLevel(l), Outcome(o)));
      }
  for (const double rate : {1.0, 2e5, 2e6, 2e7, 7e7, 2e8, 7e8, 2e9, 2e10})
    take(throughput_cell(rate));
  take(cell::kThroughputSum);
  take(cell::kThroughputCount);
  for (int code = kFirstReplyCode; code <= kLastReplyCode; ++code) take(reply_cell(code));
  take(cell::kUdpxExtraBytesSent);
  take(cell::kUdpxDuplicateBytes);
  take(cell::kUdpxDroppedDatagrams);
  CHECK(seen.size() == cell::kCount);
  CHECK(reply_cell(226) == cell::kCount);  // not an error: not counted
}

TEST_CASE("Security labels and commands map onto metric labels", "[metrics]") {
  CHECK(security_level_of("none") == SecurityLevel::None);
  CHECK(security_level_of("dcau=N prot=C") == SecurityLevel::None);
  CHECK(security_level_of("dcau=A prot=C") == SecurityLevel::Authenticated);
  CHECK(security_level_of("dcau=A prot=S") == SecurityLevel::Integrity);
  CHECK(security_level_of("dcau=A prot=P") == SecurityLevel::Private);
  CHECK(security_level_of("ftps prot=P") == SecurityLevel::Private);
  CHECK(security_level_of("ftps prot=C") == SecurityLevel::None);
  CHECK(direction_of("RETR") == Direction::Sent);
  CHECK(direction_of("MLSD") == Direction::Sent);
  CHECK(direction_of("STOR") == Direction::Received);
  CHECK(direction_of("ESTO") == Direction::Received);
  CHECK(direction_of("APPE") == Direction::Received);
}

TEST_CASE("The exposition has HELP and TYPE per family and cumulative buckets", "[metrics]") {
  Snapshot cells{};
  cells[cell::kSessionsStarted] = 5;
  cells[cell::kSessionsEnded] = 3;
  cells[login_cell(LoginMethod::Gsi, Outcome::Failed)] = 2;
  cells[bytes_cell(Direction::Received, DataMode::ExtendedBlock, SecurityLevel::Private)] = 1234;
  cells[throughput_cell(5e5)] = 1;  // le=1e+06
  cells[throughput_cell(5e9)] = 2;  // le=1e+10
  cells[reply_cell(550)] = 4;
  const auto text = format_exposition(cells);
  CHECK(text.find("# TYPE gridftpd_sessions_active gauge\ngridftpd_sessions_active 2\n") !=
        std::string::npos);
  CHECK(text.find("gridftpd_logins_total{method=\"gsi\",outcome=\"failed\"} 2\n") !=
        std::string::npos);
  CHECK(text.find("gridftpd_transfer_bytes_total{direction=\"received\",mode=\"extended_block\","
                  "security=\"private\"} 1234\n") != std::string::npos);
  CHECK(text.find("_bucket{le=\"100000\"} 0\n") != std::string::npos);
  CHECK(text.find("_bucket{le=\"1e+06\"} 1\n") != std::string::npos);
  CHECK(text.find("_bucket{le=\"1e+09\"} 1\n") != std::string::npos);
  CHECK(text.find("_bucket{le=\"1e+10\"} 3\n") != std::string::npos);
  CHECK(text.find("_bucket{le=\"+Inf\"} 3\n") != std::string::npos);
  CHECK(text.find("gridftpd_error_replies_total{code=\"550\"} 4\n") != std::string::npos);
  CHECK(text.find("code=\"551\"") == std::string::npos);
  CHECK(text.ends_with("\n"));
}

TEST_CASE("A scrape is answered only at GET or HEAD /metrics", "[metrics]") {
  const std::string body = "gridftpd_sessions_active 0\n";
  const auto scrape = [&](std::string_view head) {
    return answer_scrape(head, Readiness::Accepting, body);
  };
  const auto ok = scrape("GET /metrics HTTP/1.1\r\nHost: x");
  CHECK(ok.starts_with("HTTP/1.1 200 OK\r\n"));
  CHECK(ok.find("Content-Length: " + std::to_string(body.size()) + "\r\n") != std::string::npos);
  CHECK(ok.ends_with("\r\n\r\n" + body));
  CHECK(scrape("GET /metrics?x=1 HTTP/1.0").starts_with("HTTP/1.1 200"));
  const auto head = scrape("HEAD /metrics HTTP/1.1");
  CHECK(head.starts_with("HTTP/1.1 200"));
  CHECK(head.ends_with("\r\n\r\n"));
  CHECK(scrape("GET / HTTP/1.1").starts_with("HTTP/1.1 404"));
  CHECK(scrape("GET /health HTTP/1.1").starts_with("HTTP/1.1 404"));
  CHECK(scrape("GET /healthz/x HTTP/1.1").starts_with("HTTP/1.1 404"));
  CHECK(scrape("POST /metrics HTTP/1.1").starts_with("HTTP/1.1 405"));
  CHECK(scrape("POST /healthz HTTP/1.1").starts_with("HTTP/1.1 405"));
  CHECK(scrape("garbage").starts_with("HTTP/1.1 400"));
  CHECK(scrape("GET /metrics SMTP").starts_with("HTTP/1.1 400"));
  CHECK(scrape(std::string(kMaxRequestHead + 1, 'a')).starts_with("HTTP/1.1 431"));
}

TEST_CASE("The probes: /healthz always, /readyz only while the server accepts", "[metrics]") {
  const std::string body = "gridftpd_sessions_active 0\n";
  for (const auto readiness : {Readiness::Accepting, Readiness::NotAccepting}) {
    CHECK(answer_scrape("GET /healthz HTTP/1.1\r\nHost: x", readiness, body) ==
          "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
          "Content-Length: 3\r\nConnection: close\r\n\r\nok\n");
    // A kubelet probe may add a query; a HEAD gets the same head with no body.
    CHECK(answer_scrape("HEAD /healthz?verbose HTTP/1.0", readiness, body) ==
          "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
          "Content-Length: 3\r\nConnection: close\r\n\r\n");
  }
  CHECK(answer_scrape("GET /readyz HTTP/1.1", Readiness::Accepting, body) ==
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
        "Content-Length: 6\r\nConnection: close\r\n\r\nready\n");
  CHECK(answer_scrape("GET /readyz HTTP/1.1", Readiness::NotAccepting, body) ==
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
        "Content-Length: 26\r\nConnection: close\r\n\r\nnot accepting connections\n");
  // /metrics does not depend on readiness: a draining server is still scraped.
  CHECK(answer_scrape("GET /metrics HTTP/1.1", Readiness::NotAccepting, body)
            .starts_with("HTTP/1.1 200 OK\r\n"));
}
