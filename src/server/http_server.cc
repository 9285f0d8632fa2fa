#include "server/http_server.h"

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <mutex>
#include <ostream>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "io/utc_time.h"
#include "server/api.h"

namespace gpuplan::server {
namespace {

httplib::Params QueryParams(const httplib::Request& req) {
  httplib::Params params;
  const size_t q = req.target.find('?');
  if (q != std::string::npos) httplib::detail::parse_query_text(req.target.substr(q + 1), params);
  return params;
}

void Write(const Response& from, httplib::Response& to) {
  to.status = from.status;
  for (const auto& [name, value] : from.headers) to.set_header(name, value);
  to.set_header("X-Content-Type-Options", "nosniff");
  to.set_content(from.body, from.content_type.c_str());
}

}  // namespace

struct HttpServer::Impl {
  const ServerData& data;
  std::ostream& log;
  std::mutex log_mutex;  // worker threads log concurrently
  httplib::Server http;
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> run_active{false};

  Impl(const ServerData& d, std::ostream& l) : data(d), log(l) {}

  void Answer(const httplib::Request& req, httplib::Response& res) {
    const auto start = std::chrono::steady_clock::now();
    Request r;
    r.method = req.method;
    r.path = req.path;
    // The query string only: httplib also files an urlencoded form body under req.params,
    // and a body here is a workload (curl -d sends YAML as a "form").
    for (const auto& [name, value] : QueryParams(req)) r.params.emplace_back(name, value);
    r.body = req.body;
    Write(Handle(data, r), res);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    // Server-Timing (W3C) tells the client, and the log line below, how long the answer took.
    res.set_header("Server-Timing", fmt::format("app;dur={:.1f}", ms));
  }

  void Log(const httplib::Request& req, const httplib::Response& res) {
    // The target as sent (still percent-encoded, so one line per request even for odd bytes).
    std::string target = req.target.empty() ? req.path : req.target;
    for (char& c : target) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    }
    const std::string timing = res.get_header_value("Server-Timing");
    const std::string line =
        fmt::format("{} {} {} {} -> {} ({} bytes{})\n", io::UtcNow(), req.remote_addr, req.method,
                    target, res.status, res.body.size(),
                    timing.empty() ? "" : ", " + timing.substr(timing.find('=') + 1) + " ms");
    std::lock_guard<std::mutex> lock(log_mutex);
    log << line << std::flush;
  }
};

HttpServer::HttpServer(const ServerData& data, std::ostream& log)
    : impl_(std::make_unique<Impl>(data, log)) {
  Impl* impl = impl_.get();
  httplib::Server& http = impl->http;
  // Every method on every path goes to Handle, which answers 404/405 itself.
  auto answer = [impl](const httplib::Request& req, httplib::Response& res) {
    impl->Answer(req, res);
  };
  http.Get(".*", answer);
  http.Post(".*", answer);
  http.Put(".*", answer);
  http.Patch(".*", answer);
  http.Delete(".*", answer);
  http.Options(".*", answer);
  // httplib itself refuses a body over the limit (413) and malformed requests (400) before
  // routing; give those the API's JSON error form too.
  http.set_payload_max_length(data.max_body_bytes);
  // SO_REUSEADDR only: a restart may reuse a port in TIME_WAIT, but a second server on a port
  // in use must fail. (httplib's default SO_REUSEPORT would let both listen and split requests.)
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  http.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req,
                                                                httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string message = fmt::format("HTTP status {}", res.status);
    if (res.status == 400) message = "malformed HTTP request";
    if (res.status == 413) message = "request body is over the server's limit";
    if (res.status == 414) message = "request URI too long";
    if (res.status == 404 || res.status == 405) {
      message = "no such path or method \"" + req.path + "\"";
    }
    Write(ErrorResponse(res.status, message), res);
    return httplib::Server::HandlerResponse::Handled;
  }));
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        Write(ErrorResponse(500, "internal error"), res);
      });
  http.set_logger([impl](const httplib::Request& req, const httplib::Response& res) {
    impl->Log(req, res);
  });
}

HttpServer::~HttpServer() { Stop(); }

Result<int> HttpServer::Bind(const std::string& host, int port) {
  const int bound = port == 0 ? impl_->http.bind_to_any_port(host)
                              : (impl_->http.bind_to_port(host, port) ? port : -1);
  if (bound < 0) {
    return Status::Unavailable(fmt::format("cannot listen on {}:{} (address in use, or not an "
                                           "address of this machine)",
                                           host, port));
  }
  return bound;
}

Status HttpServer::Run() {
  impl_->run_active = true;
  if (impl_->stop_requested) {
    impl_->run_active = false;
    return Status::Ok();
  }
  const bool ok = impl_->http.listen_after_bind();
  impl_->run_active = false;
  if (!ok && !impl_->stop_requested) {
    return Status::Unavailable("the HTTP server stopped accepting connections");
  }
  return Status::Ok();
}

void HttpServer::Stop() {
  impl_->stop_requested = true;
  // httplib's stop() only acts once the accept loop runs; wait for it when Run has begun, so
  // a Stop racing a starting Run cannot be lost.
  for (int i = 0; i < 5000 && impl_->run_active && !impl_->http.is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  impl_->http.stop();
}

}  // namespace gpuplan::server
