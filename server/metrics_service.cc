#include "server/metrics_service.h"

#include "server/http_request.h"

namespace darius::server {

namespace {
std::string response(int code, std::string_view reason, std::string_view type,
                     std::string_view body, bool head_only) {
  std::string out = "HTTP/1.1 " + std::to_string(code) + " " + std::string(reason) + "\r\n";
  out += "Content-Type: " + std::string(type) + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  out += "Connection: close\r\n\r\n";
  if (!head_only) out += body;
  return out;
}
}  // namespace

MetricsService::MetricsService(net::Metrics& metrics)
    : metrics_(metrics),
      requests_(metrics.counter("darius_commands_total", "Commands handled, per service.",
                                {{"service", "metrics"}, {"command", "GET"}})) {}

asio::awaitable<void> MetricsService::serve(std::shared_ptr<net::Connection> conn) {
  HttpRequestParser parser;
  for (;;) {
    auto line = co_await conn->readLine();
    if (!line.ok()) {
      if (line.status().code() == base::Code::kTooBig) {
        conn->write(response(431, "Request Header Fields Too Large", "text/plain",
                             "header line too long\n", false));
        (void)co_await conn->flush();
      }
      co_return;
    }
    auto head = parser.feedLine(*line);
    if (!head.ok()) {
      bool version = head.status().code() == base::Code::kNotSupported;
      conn->write(response(version ? 505 : 400, version ? "HTTP Version Not Supported" : "Bad Request",
                           "text/plain", head.status().message() + "\n", false));
      (void)co_await conn->flush();
      co_return;
    }
    if (!*head) continue;
    const HttpRequestHead& h = **head;
    bool head_only = h.method == "HEAD";
    if (h.method != "GET" && !head_only) {
      conn->write(response(405, "Method Not Allowed", "text/plain", "only GET and HEAD\n", false));
    } else if (h.path == "/metrics") {
      ++requests_;
      conn->write(response(200, "OK", "text/plain; version=0.0.4; charset=utf-8",
                           metrics_.render(), head_only));
    } else if (h.path == "/") {
      conn->write(response(200, "OK", "text/plain; charset=utf-8",
                           "dariusd: metrics at /metrics\n", head_only));
    } else {
      conn->write(response(404, "Not Found", "text/plain", "not found\n", head_only));
    }
    (void)co_await conn->flush();
    co_return;
  }
}

}  // namespace darius::server
