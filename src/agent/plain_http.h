// One plain-HTTP/1.1 exchange over a POSIX socket, for the metadata client (metadata_client.h).
//
// Why not cpp-httplib: Debian ships it as a shared library (libcpp-httplib.so.0.11), which the
// portable agent (docs/on-instance.md, "The portable agent") cannot link statically, and the
// metadata service needs no more than a GET or an empty PUT with a few headers, no TLS, no
// redirects, no keep-alive. One deadline bounds the connect and another the whole exchange
// after it, so a slow or babbling server delays the caller by at most about two timeouts.
//
// Thread safety: the function is thread-safe.
#ifndef GPUPLAN_SRC_AGENT_PLAIN_HTTP_H_
#define GPUPLAN_SRC_AGENT_PLAIN_HTTP_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace gpuplan::agent {

struct PlainHttpRequest {
  std::string host;  // a name or an address; an IPv6 address without brackets
  int port = 80;
  std::string method = "GET";  // GET or PUT (sent with an empty body)
  std::string target;          // "/latest/api/token"
  std::vector<std::pair<std::string, std::string>> headers;
  double timeout_seconds = 2;
  size_t max_body_bytes = size_t{64} * 1024;
};

struct PlainHttpReply {
  bool answered = false;   // a whole HTTP reply arrived; else `error` says why not
  bool too_large = false;  // the body passed max_body_bytes (answered stays false)
  int status = 0;
  std::string body;
  std::string error;
};

// Sends `request` with "Connection: close" and reads the reply (Content-Length, chunked or until
// the server closes). Never throws.
PlainHttpReply PlainHttpExchange(const PlainHttpRequest& request);

enum class HttpParse { kDone, kNeedMore, kBad };
// Reads `raw` (what arrived so far) as an HTTP/1.x reply into `*reply`: kDone with status and
// body (or too_large once the body passes `max_body_bytes`), kNeedMore while it is cut short
// and the server has not `closed` the connection, kBad with `reply->error`. A reply without
// Content-Length or chunked encoding ends when the server closes. Exposed for tests.
HttpParse ParsePlainHttpReply(const std::string& raw, bool closed, size_t max_body_bytes,
                              PlainHttpReply* reply);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_PLAIN_HTTP_H_
