#include "server/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <httplib.h>
#include <malloc.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <ostream>
#include <thread>
#include <vector>

#include "io/utc_time.h"
#include "server/api.h"

namespace gpuplan::server {
namespace {

using Clock = std::chrono::steady_clock;

// How long a connection the loop has answered itself (408, 413, 431, 503, ...) may keep
// sending before it is closed: reading what it still sends lets it see the answer instead of a
// reset.
constexpr std::chrono::milliseconds kLinger{1000};

httplib::Params QueryParams(const httplib::Request& req) {
  httplib::Params params;
  const size_t q = req.target.find('?');
  if (q != std::string::npos)
    httplib::detail::parse_query_text(req.target.substr(q + 1), params);
  return params;
}

void Write(const Response& from, httplib::Response& to) {
  to.status = from.status;
  for (const auto& [name, value] : from.headers)
    to.set_header(name, value);
  to.set_header("X-Content-Type-Options", "nosniff");
  to.set_content(from.body, from.content_type);
}

// Writes all of `data` (the socket is blocking, under SO_SNDTIMEO); -1 on error or timeout.
ssize_t SendAll(int fd, const char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = send(fd, data + done, size - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

void Address(const sockaddr_storage& addr, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (addr.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(addr);
    inet_ntop(AF_INET6, &a.sin6_addr, text, sizeof text);
    port = ntohs(a.sin6_port);
  } else {
    const auto& a = reinterpret_cast<const sockaddr_in&>(addr);
    inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
    port = ntohs(a.sin_port);
  }
  ip = text;
}

// httplib's request processing (parsing, routing, the error and logger hooks, writing the
// answer) over a request that is already in memory. process_request is protected: a subclass
// reaches it.
class RequestProcessor : public httplib::Server {
 public:
  void Process(httplib::Stream& stream) {
    bool closed = true;
    (void)process_request(stream, /*close_connection=*/true, closed, nullptr);
  }
};

// A complete request read by the loop: reads come from memory, writes go to the socket.
class BufferedStream final : public httplib::Stream {
 public:
  BufferedStream(int fd, const std::string& request, const std::string& ip, int port)
      : fd_(fd), request_(request), ip_(ip), port_(port) {}

  bool is_readable() const override { return pos_ < request_.size(); }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    const size_t n = std::min(size, request_.size() - pos_);
    std::memcpy(ptr, request_.data() + pos_, n);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override { return SendAll(fd_, ptr, size); }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = ip_;
    port = port_;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
      Address(addr, ip, port);
  }
  socket_t socket() const override { return fd_; }

 private:
  int fd_;
  const std::string& request_;
  const std::string& ip_;
  int port_;
  size_t pos_ = 0;
};

// A connection whose request is still arriving (or that the loop has answered and lets linger).
struct Connection {
  int fd = -1;
  std::string ip;
  int port = 0;
  std::string data;
  Clock::time_point deadline;
  size_t header_end = 0;    // offset of the body once the blank line has arrived, else 0
  size_t request_size = 0;  // header_end + Content-Length, once the headers are read
  bool lingering = false;   // answered by the loop; what arrives now is dropped
  std::string bad_header;   // why the headers are refused (400), said once the request is in
};

// Requests above this size return the memory they took to the system once answered.
constexpr size_t kTrimAfterBytes = size_t{64} * 1024;

// A complete request on its way to a worker.
struct Job {
  int fd = -1;
  std::string request;
  std::string ip;
  int port = 0;
};

// The offset just past the blank line that ends the headers ("\r\n\r\n" or bare "\n\n"), or 0.
size_t HeaderEnd(const std::string& data) {
  for (size_t nl = data.find('\n'); nl != std::string::npos; nl = data.find('\n', nl + 1)) {
    if (nl + 1 < data.size() && data[nl + 1] == '\n')
      return nl + 2;
    if (nl + 2 < data.size() && data[nl + 1] == '\r' && data[nl + 2] == '\n')
      return nl + 3;
  }
  return 0;
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The headers that decide how much to read before a request is complete.
struct Framing {
  std::optional<size_t> content_length;
  bool bad_content_length = false;
  bool transfer_encoding = false;
  size_t expect_begin = 0, expect_end = 0;  // the "Expect: 100-continue" line, when present
  bool host = false;                        // a Host header is present
};

// Why the request line and headers `data[0, header_end)` are refused with 400, or "": a NUL
// byte or a CR not ending a line (RFC 9112 section 2.2: a recipient may reject a bare CR), or an
// HTTP/1.1 request without Host (RFC 9112 section 3.2: a server MUST answer it with 400).
std::string HeaderProblem(const std::string& data, size_t header_end, const Framing& f) {
  for (size_t i = 0; i < header_end; ++i) {
    if (data[i] == '\0')
      return "the request line or a header holds a NUL byte";
    if (data[i] == '\r' && (i + 1 >= header_end || data[i + 1] != '\n'))
      return "the request line or a header holds a bare CR (not followed by LF)";
  }
  std::string_view first(data.data(), std::min(data.find('\n'), header_end));
  if (!first.empty() && first.back() == '\r')
    first.remove_suffix(1);
  if (first.ends_with(" HTTP/1.1") && !f.host)
    return "the request has no Host header (required in HTTP/1.1)";
  return "";
}

Framing ReadFraming(const std::string& data, size_t header_end) {
  Framing f;
  size_t line = data.find('\n') + 1;  // after the request line
  while (line < header_end) {
    const size_t eol = std::min(data.find('\n', line), header_end - 1);
    const std::string_view text(data.data() + line, eol - line);
    const size_t colon = text.find(':');
    if (colon != std::string_view::npos) {
      const std::string_view name = Trim(text.substr(0, colon));
      const std::string_view value = Trim(text.substr(colon + 1));
      if (EqualsIgnoringCase(name, "Content-Length")) {
        size_t n = 0;
        auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (ec != std::errc() || p != value.data() + value.size() || value.empty() ||
            (f.content_length && *f.content_length != n)) {
          f.bad_content_length = true;
        }
        f.content_length = n;
      } else if (EqualsIgnoringCase(name, "Transfer-Encoding")) {
        f.transfer_encoding = true;
      } else if (EqualsIgnoringCase(name, "Host")) {
        f.host = true;
      } else if (EqualsIgnoringCase(name, "Expect") && EqualsIgnoringCase(value, "100-continue")) {
        f.expect_begin = line;
        f.expect_end = eol + 1;
      }
    }
    line = eol + 1;
  }
  return f;
}

// "METHOD TARGET" of a request for the log; "-" for what has not arrived.
std::pair<std::string, std::string> RequestLine(const std::string& data) {
  const std::string_view first(data.data(), std::min(data.find('\n'), data.size()));
  const size_t sp = first.find(' ');
  if (sp == std::string_view::npos)
    return {"-", "-"};
  const size_t sp2 = first.find(' ', sp + 1);
  std::string target(first.substr(sp + 1, sp2 == std::string_view::npos ? sp2 : sp2 - sp - 1));
  if (target.size() > 200)
    target = target.substr(0, 200) + "...";
  return {std::string(first.substr(0, std::min<size_t>(sp, 16))), target};
}

// The reason phrases of the statuses the loop answers itself.
const char* Reason(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

std::string Printable(std::string s) {
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '?';
  }
  return s;
}

}  // namespace

struct HttpServer::Impl {
  const ServerData& data;
  std::ostream& log;
  const ServerLimits limits;
  std::mutex log_mutex;  // workers and the loop log concurrently
  RequestProcessor http;
  int listen_fd = -1;
  int wake_fd = -1;  // an eventfd: Stop writes it so the loop's poll returns
  std::atomic<bool> stop_requested{false};
  std::atomic<int> in_workers{0};  // connections handed to workers and not yet closed

  std::mutex queue_mutex;
  std::condition_variable queue_ready;
  std::deque<Job> light, heavy;  // GET/HEAD first: /healthz never waits behind plans
  bool queue_closed = false;

  Impl(const ServerData& d, std::ostream& l, ServerLimits lim) : data(d), log(l), limits(lim) {
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  }
  ~Impl() {
    if (listen_fd >= 0)
      close(listen_fd);
    if (wake_fd >= 0)
      close(wake_fd);
  }

  void Answer(const httplib::Request& req, httplib::Response& res) {
    const auto start = Clock::now();
    Request r;
    r.method = req.method;
    r.path = req.path;
    // The query string only: httplib also files an urlencoded form body under req.params,
    // and a body here is a workload (curl -d sends YAML as a "form").
    for (const auto& [name, value] : QueryParams(req))
      r.params.emplace_back(name, value);
    r.body = req.body;
    Write(Handle(data, r), res);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    // Server-Timing (W3C) tells the client, and the log line below, how long the answer took.
    res.set_header("Server-Timing", fmt::format("app;dur={:.1f}", ms));
  }

  void LogLine(const std::string& ip, const std::string& method, const std::string& target,
               int status, size_t bytes, const std::string& timing) {
    const std::string line = fmt::format(
        "{} {} {} {} -> {} ({} bytes{})\n", io::UtcNow(), ip, Printable(method), Printable(target),
        status, bytes, timing.empty() ? "" : ", " + timing.substr(timing.find('=') + 1) + " ms");
    std::lock_guard<std::mutex> lock(log_mutex);
    log << line << std::flush;
  }

  void Log(const httplib::Request& req, const httplib::Response& res) {
    // The target as sent (still percent-encoded, so one line per request even for odd bytes).
    LogLine(req.remote_addr, req.method, req.target.empty() ? req.path : req.target, res.status,
            res.body.size(), res.get_header_value("Server-Timing"));
  }

  // The loop answers a request it will not pass on (too slow, too big, too many connections)
  // with the API's JSON error, then lets the connection linger so the client reads it.
  void Refuse(Connection& c, int status, const std::string& message) {
    const Response r = ErrorResponse(status, message);
    std::string out = fmt::format(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n"
        "X-Content-Type-Options: nosniff\r\n{}\r\n{}",
        status, Reason(status), r.content_type, r.body.size(),
        status == 503 || status == 429 ? "Retry-After: 1\r\n" : "", r.body);
    // Small enough for the socket's send buffer; a client that does not read loses the answer.
    (void)send(c.fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    const auto [method, target] = RequestLine(c.data);
    LogLine(c.ip, method, target, status, r.body.size(), "");
    shutdown(c.fd, SHUT_WR);
    c.lingering = true;
    c.data.clear();
    c.deadline = Clock::now() + kLinger;
  }

  void Close(Connection& c) {
    close(c.fd);
    c.fd = -1;
  }

  void Accept(std::vector<Connection>& conns) {
    for (;;) {
      sockaddr_storage addr{};
      socklen_t len = sizeof addr;
      const int fd = accept4(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR)
          continue;
        return;  // EAGAIN: all accepted; EMFILE and the like: try on the next round
      }
      Connection c;
      c.fd = fd;
      Address(addr, c.ip, c.port);
      c.deadline = Clock::now() + limits.header_timeout;
      const size_t open = conns.size() + static_cast<size_t>(in_workers.load());
      if (open >= static_cast<size_t>(limits.max_connections)) {
        if (open >= 2 * static_cast<size_t>(limits.max_connections)) {
          close(fd);  // a flood: not even an answer
          continue;
        }
        Refuse(c, 503,
               fmt::format("the server has its limit of {} open connections; try again shortly",
                           limits.max_connections));
      } else if (const int own = limits.max_connections_per_client; own > 0) {
        const auto held = std::count_if(conns.begin(), conns.end(), [&](const Connection& o) {
          return o.fd >= 0 && !o.lingering && o.ip == c.ip;
        });
        if (held >= own) {
          Refuse(c, 429,
                 fmt::format("this client ({}) has {} connections open, the limit for one "
                             "client; finish or close some and try again",
                             c.ip, own));
        }
      }
      conns.push_back(std::move(c));
    }
  }

  // Reads what has arrived; hands the request to a worker once it is complete.
  void Read(Connection& c) {
    char buf[64 * 1024];
    const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      return;
    if (n <= 0)
      return Close(c);  // closed by the client, or reset
    if (c.lingering)
      return;
    c.data.append(buf, static_cast<size_t>(n));
    if (c.header_end == 0) {
      size_t end = HeaderEnd(c.data);
      if (end == 0 || end > limits.max_header_bytes) {
        if (c.data.size() > limits.max_header_bytes || end > limits.max_header_bytes) {
          Refuse(c, 431,
                 fmt::format("request line and headers are over the limit of {} bytes",
                             limits.max_header_bytes));
        }
        return;
      }
      Framing f = ReadFraming(c.data, end);
      if (f.transfer_encoding) {
        return Refuse(c, 411,
                      "Transfer-Encoding is not accepted: send the body with a Content-Length");
      }
      if (f.bad_content_length)
        return Refuse(c, 400, "malformed Content-Length header");
      const size_t length = f.content_length.value_or(0);
      if (length > data.max_body_bytes) {
        return Refuse(c, 413,
                      fmt::format("request body of {} bytes is over the limit of {} bytes", length,
                                  data.max_body_bytes));
      }
      if (f.expect_end > 0) {
        // Answer the Expect here, where the body is read; httplib must not answer it again.
        c.data.erase(f.expect_begin, f.expect_end - f.expect_begin);
        end -= f.expect_end - f.expect_begin;
        if (c.data.size() < end + length) {
          constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
          (void)send(c.fd, kContinue.data(), kContinue.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        }
      }
      // Said when the request is complete, so a slow body still times out as before.
      c.bad_header = HeaderProblem(c.data, end, f);
      c.header_end = end;
      c.request_size = end + length;
      c.deadline = Clock::now() + limits.body_timeout;
    }
    if (c.data.size() >= c.request_size) {
      if (!c.bad_header.empty())
        return Refuse(c, 400, c.bad_header);
      Dispatch(c);
    }
  }

  void Dispatch(Connection& c) {
    const int flags = fcntl(c.fd, F_GETFL);
    fcntl(c.fd, F_SETFL, flags & ~O_NONBLOCK);
    const auto us =
        std::chrono::duration_cast<std::chrono::microseconds>(limits.write_timeout).count();
    timeval tv{static_cast<time_t>(us / 1'000'000), static_cast<suseconds_t>(us % 1'000'000)};
    setsockopt(c.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    c.data.resize(c.request_size);  // bytes past one request are not read: one per connection
    const bool is_light = c.data.starts_with("GET ") || c.data.starts_with("HEAD ");
    Job job{c.fd, std::move(c.data), std::move(c.ip), c.port};
    c.fd = -1;
    ++in_workers;
    {
      std::lock_guard<std::mutex> lock(queue_mutex);
      (is_light ? light : heavy).push_back(std::move(job));
    }
    queue_ready.notify_all();  // notify_one could wake only the light-only worker for a POST
  }

  void Expire(Connection& c) {
    if (c.lingering || c.data.empty())
      return Close(c);  // idle connections close quietly
    Refuse(c, 408,
           c.header_end == 0
               ? fmt::format("request headers did not arrive within {} ms of connecting",
                             limits.header_timeout.count())
               : fmt::format("request body did not arrive within {} ms of its headers",
                             limits.body_timeout.count()));
  }

  // A worker; a light-only one never takes a POST, so GETs are answered even while every other
  // worker plans.
  void Work(bool light_only) {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(queue_mutex);
        queue_ready.wait(lock, [&] {
          return queue_closed || !light.empty() || (!light_only && !heavy.empty());
        });
        std::deque<Job>& from = !light.empty() || light_only ? light : heavy;
        if (from.empty())
          return;  // closed and drained
        job = std::move(from.front());
        from.pop_front();
      }
      const bool large = job.request.size() > kTrimAfterBytes;
      {
        BufferedStream stream(job.fd, job.request, job.ip, job.port);
        http.Process(stream);
      }
      shutdown(job.fd, SHUT_WR);
      close(job.fd);
      --in_workers;
      if (large) {
        // A large body's parse trees are freed now, but glibc keeps the pages in its arenas
        // (one per worker thread); hand them back so a burst of large requests does not stay
        // in the server's memory.
        job = Job{};
        malloc_trim(0);
      }
    }
  }

  void Loop() {
    std::vector<Connection> conns;
    std::vector<pollfd> fds;
    while (!stop_requested) {
      fds.assign({{wake_fd, POLLIN, 0}, {listen_fd, POLLIN, 0}});
      auto wait = std::chrono::milliseconds(1000);
      const auto now = Clock::now();
      for (const Connection& c : conns) {
        fds.push_back({c.fd, POLLIN, 0});
        wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(
                                  std::max(c.deadline - now, Clock::duration::zero())));
      }
      if (poll(fds.data(), fds.size(), static_cast<int>(wait.count())) < 0 && errno != EINTR) {
        break;
      }
      if (fds[0].revents) {
        uint64_t n = 0;
        (void)!::read(wake_fd, &n, sizeof n);
      }
      for (size_t i = 0; i < conns.size(); ++i) {
        if (fds[i + 2].revents)
          Read(conns[i]);
      }
      const auto later = Clock::now();
      for (Connection& c : conns) {
        if (c.fd >= 0 && c.deadline <= later)
          Expire(c);
      }
      std::erase_if(conns, [](const Connection& c) { return c.fd < 0; });
      if (fds[1].revents)
        Accept(conns);
    }
    for (Connection& c : conns)
      close(c.fd);
  }
};

HttpServer::HttpServer(const ServerData& data, std::ostream& log, ServerLimits limits)
    : impl_(std::make_unique<Impl>(data, log, limits)) {
  Impl* impl = impl_.get();
  RequestProcessor& http = impl->http;
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
  http.set_payload_max_length(data.max_body_bytes);
  // httplib refuses malformed requests (400) and long request lines (414) before routing; give
  // those the API's JSON error form too.
  http.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty())
          return httplib::Server::HandlerResponse::Unhandled;
        std::string message = fmt::format("HTTP status {}", res.status);
        if (res.status == 400)
          message = "malformed HTTP request";
        if (res.status == 413)
          message = "request body is over the server's limit";
        if (res.status == 414)
          message = "request URI too long";
        if (res.status == 404 || res.status == 405) {
          message = "no such path or method \"" + req.path + "\"";
        }
        Write(ErrorResponse(res.status, message), res);
        return httplib::Server::HandlerResponse::Handled;
      }));
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, const std::exception_ptr&) {
        Write(ErrorResponse(500, "internal error"), res);
      });
  http.set_logger(
      [impl](const httplib::Request& req, const httplib::Response& res) { impl->Log(req, res); });
}

HttpServer::~HttpServer() { Stop(); }

Result<int> HttpServer::Bind(const std::string& host, int port) {
  const Status unavailable = Status::Unavailable(fmt::format(
      "cannot listen on {}:{} (address in use, or not an address of this machine)", host, port));
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (port < 0 || port > 65535 ||
      getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) {
    return unavailable;
  }
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
      continue;
    // SO_REUSEADDR only: a restart may reuse a port in TIME_WAIT, but a second server on a port
    // in use must fail (SO_REUSEPORT would let both listen and split the requests).
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0)
    return unavailable;
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::string ip;
  int bound = 0;
  Address(addr, ip, bound);
  if (impl_->listen_fd >= 0)
    close(impl_->listen_fd);
  impl_->listen_fd = fd;
  return bound;
}

Status HttpServer::Run() {
  if (impl_->stop_requested)
    return Status::Ok();
  if (impl_->listen_fd < 0 || impl_->wake_fd < 0) {
    return Status::Unavailable("the HTTP server is not bound to an address");
  }
  const int n = impl_->limits.workers > 0
                    ? std::max(2, impl_->limits.workers)  // one light-only, one for everything
                    : std::max(4, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<std::thread> workers;
  workers.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    workers.emplace_back([this, i] { impl_->Work(/*light_only=*/i == 0); });
  impl_->Loop();
  {
    std::lock_guard<std::mutex> lock(impl_->queue_mutex);
    impl_->queue_closed = true;
  }
  impl_->queue_ready.notify_all();
  for (std::thread& t : workers)
    t.join();  // requests already read are answered first
  if (!impl_->stop_requested) {
    return Status::Unavailable("the HTTP server stopped accepting connections");
  }
  return Status::Ok();
}

void HttpServer::Stop() {
  impl_->stop_requested = true;
  if (impl_->wake_fd >= 0) {
    const uint64_t one = 1;
    (void)!write(impl_->wake_fd, &one, sizeof one);
  }
}

}  // namespace gpuplan::server
