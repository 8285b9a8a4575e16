#include "protocol/metrics/scrape_answer.hpp"

namespace gridftp::protocol::metrics {
namespace {

std::string response(std::string_view status, std::string_view content_type, std::string_view body,
                     bool with_body) {
  std::string out = "HTTP/1.1 ";
  out += status;
  out += "\r\nContent-Type: ";
  out += content_type;
  out += "\r\nContent-Length: " + std::to_string(body.size());
  out += "\r\nConnection: close\r\n\r\n";
  if (with_body) out += body;
  return out;
}

std::string error(std::string_view status) {
  return response(status, "text/plain; charset=utf-8", std::string(status) + "\n", true);
}

}  // namespace

std::string answer_scrape(std::string_view head, Readiness readiness, std::string_view exposition) {
  if (head.size() > kMaxRequestHead) return error("431 Request Header Fields Too Large");
  const auto line_end = head.find("\r\n");
  const auto line = head.substr(0, line_end);
  const auto first_space = line.find(' ');
  const auto second_space = line.find(' ', first_space + 1);
  if (first_space == std::string_view::npos || second_space == std::string_view::npos ||
      !line.substr(second_space + 1).starts_with("HTTP/1."))
    return error("400 Bad Request");
  const auto method = line.substr(0, first_space);
  auto target = line.substr(first_space + 1, second_space - first_space - 1);
  target = target.substr(0, target.find('?'));  // Prometheus may add parameters
  if (method != "GET" && method != "HEAD") return error("405 Method Not Allowed");
  const bool with_body = method == "GET";
  constexpr std::string_view plain = "text/plain; charset=utf-8";
  // Liveness: answering at all means the process's control loop runs.
  if (target == "/healthz") return response("200 OK", plain, "ok\n", with_body);
  if (target == "/readyz") {
    return readiness == Readiness::Accepting ? response("200 OK", plain, "ready\n", with_body)
                                             : response("503 Service Unavailable", plain,
                                                        "not accepting connections\n", with_body);
  }
  if (target != "/metrics") return error("404 Not Found");
  return response("200 OK", "text/plain; version=0.0.4; charset=utf-8", exposition, with_body);
}

}  // namespace gridftp::protocol::metrics
