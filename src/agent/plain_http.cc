#include "agent/plain_http.h"

#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <optional>
#include <string_view>

namespace gpuplan::agent {
namespace {

// Headers beyond this are a broken or hostile server, not the metadata service.
constexpr size_t kMaxHeaderBytes = size_t{16} * 1024;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Milliseconds left until `deadline`, at least 0.
int MillisLeft(double deadline) {
  const double left = deadline - Now();
  return left <= 0 ? 0 : static_cast<int>(left * 1000) + 1;
}

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Decodes a chunked body starting at raw[at]. kNeedMore until the last (zero) chunk arrived.
HttpParse DecodeChunked(std::string_view raw, size_t max_body, PlainHttpReply* reply) {
  std::string body;
  size_t at = 0;
  while (true) {
    const size_t eol = raw.find("\r\n", at);
    if (eol == std::string_view::npos)
      return HttpParse::kNeedMore;
    std::string_view size_text = Trim(raw.substr(at, eol - at));
    size_text = size_text.substr(0, size_text.find(';'));  // chunk extensions
    size_t size = 0;
    auto [end, ec] =
        std::from_chars(size_text.data(), size_text.data() + size_text.size(), size, 16);
    if (ec != std::errc() || end != size_text.data() + size_text.size()) {
      reply->error = fmt::format("bad chunk size \"{}\"", size_text);
      return HttpParse::kBad;
    }
    if (size == 0) {
      reply->body = std::move(body);
      return HttpParse::kDone;
    }
    if (body.size() + size > max_body) {
      reply->too_large = true;
      return HttpParse::kDone;
    }
    if (raw.size() < eol + 2 + size + 2)
      return HttpParse::kNeedMore;
    body.append(raw.substr(eol + 2, size));
    at = eol + 2 + size + 2;
  }
}

// Connects to one of `host`'s addresses within the deadline; -1 with `*error`.
int Connect(const PlainHttpRequest& r, double deadline, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(r.port);
  if (int rc = getaddrinfo(r.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    *error = fmt::format("cannot resolve \"{}\": {}", r.host, gai_strerror(rc));
    return -1;
  }
  int fd = -1;
  *error = "no address";
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      *error = fmt::format("socket: {}", std::strerror(errno));
      continue;
    }
    int err = 0;
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        const int n = poll(&p, 1, MillisLeft(deadline));
        socklen_t len = sizeof(err);
        if (n == 0) {
          err = ETIMEDOUT;
        } else if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
          err = errno;
        }
      }
    }
    if (err != 0) {
      *error = err == ETIMEDOUT ? fmt::format("connect timed out after {} s", r.timeout_seconds)
                                : fmt::format("connect: {}", std::strerror(err));
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

std::string RequestText(const PlainHttpRequest& r) {
  const bool v6 = r.host.find(':') != std::string::npos;
  std::string text = fmt::format("{} {} HTTP/1.1\r\nHost: {}{}{}:{}\r\nConnection: close\r\n",
                                 r.method, r.target, v6 ? "[" : "", r.host, v6 ? "]" : "", r.port);
  text += "User-Agent: gpuplan\r\nAccept: */*\r\n";
  if (r.method == "PUT")
    text += "Content-Type: text/plain\r\nContent-Length: 0\r\n";
  for (const auto& [name, value] : r.headers)
    text += name + ": " + value + "\r\n";
  return text + "\r\n";
}

// Sends and receives on a connected socket until the reply is whole or the deadline passes.
void Exchange(int fd, const PlainHttpRequest& r, double deadline, PlainHttpReply* reply) {
  const std::string request = RequestText(r);
  for (size_t sent = 0; sent < request.size();) {
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, MillisLeft(deadline)) <= 0) {
      reply->error = fmt::format("sending timed out after {} s", r.timeout_seconds);
      return;
    }
    const ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      reply->error = fmt::format("send: {}", std::strerror(errno));
      return;
    }
    sent += n > 0 ? static_cast<size_t>(n) : 0;
  }
  std::string raw;
  char buffer[8192];
  bool closed = false;
  while (true) {
    const HttpParse state = ParsePlainHttpReply(raw, closed, r.max_body_bytes, reply);
    if (state == HttpParse::kDone) {
      reply->answered = !reply->too_large;
      return;
    }
    if (state == HttpParse::kBad)
      return;
    if (closed) {
      reply->error = "the server closed the connection before the whole reply";
      return;
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, MillisLeft(deadline)) <= 0) {
      reply->error = fmt::format("no whole reply within {} s", r.timeout_seconds);
      return;
    }
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      reply->error = fmt::format("recv: {}", std::strerror(errno));
      return;
    }
    if (n == 0)
      closed = true;
    if (n > 0)
      raw.append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace

HttpParse ParsePlainHttpReply(const std::string& raw, bool closed, size_t max_body_bytes,
                              PlainHttpReply* reply) {
  const size_t head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos) {
    if (raw.size() > kMaxHeaderBytes) {
      reply->error = fmt::format("reply headers longer than {} bytes", kMaxHeaderBytes);
      return HttpParse::kBad;
    }
    if (closed)
      reply->error = raw.empty() ? "the server closed the connection without a reply"
                                 : "the server closed the connection inside the headers";
    return closed ? HttpParse::kBad : HttpParse::kNeedMore;
  }
  const std::string_view head(raw.data(), head_end);
  const std::string_view status_line = head.substr(0, head.find("\r\n"));
  int status = 0;
  if (status_line.size() < 12 || status_line.substr(0, 7) != "HTTP/1." ||
      std::from_chars(status_line.data() + 9, status_line.data() + 12, status).ec != std::errc() ||
      status < 100 || status > 599) {
    reply->error = fmt::format("not an HTTP/1.x status line: \"{}\"", status_line.substr(0, 80));
    return HttpParse::kBad;
  }
  std::optional<size_t> length;
  bool chunked = false;
  for (size_t at = status_line.size() + 2; at < head.size();) {
    size_t eol = head.find("\r\n", at);
    if (eol == std::string_view::npos)
      eol = head.size();
    const std::string_view line = head.substr(at, eol - at);
    at = eol + 2;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos)
      continue;
    const std::string_view name = Trim(line.substr(0, colon));
    const std::string_view value = Trim(line.substr(colon + 1));
    if (IEquals(name, "Content-Length")) {
      size_t n = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size()) {
        reply->error = fmt::format("bad Content-Length \"{}\"", value);
        return HttpParse::kBad;
      }
      length = n;
    } else if (IEquals(name, "Transfer-Encoding") && IEquals(value, "chunked")) {
      chunked = true;
    }
  }
  reply->status = status;
  const std::string_view body = std::string_view(raw).substr(head_end + 4);
  if (chunked)
    return DecodeChunked(body, max_body_bytes, reply);
  const size_t have = length ? std::min(*length, body.size()) : body.size();
  if ((length ? *length : body.size()) > max_body_bytes) {
    reply->too_large = true;
    return HttpParse::kDone;
  }
  if ((length && body.size() < *length) || (!length && !closed && status != 204 && status != 304))
    return HttpParse::kNeedMore;
  reply->body = std::string(body.substr(0, have));
  return HttpParse::kDone;
}

PlainHttpReply PlainHttpExchange(const PlainHttpRequest& request) {
  PlainHttpReply reply;
  const double start = Now();
  std::string error;
  const int fd = Connect(request, start + request.timeout_seconds, &error);
  if (fd < 0) {
    reply.error = error;
    return reply;
  }
  Exchange(fd, request, Now() + request.timeout_seconds, &reply);
  close(fd);
  if (reply.too_large) {
    reply.status = 0;
    reply.body.clear();
  }
  return reply;
}

}  // namespace gpuplan::agent
