// The socket side of `gpuplan serve`: one event-loop thread that reads every request whole
// (under a header and a body deadline, a header size limit and a connection cap) and a small
// pool of workers that answer complete requests through cpp-httplib's request processing in
// front of server::Handle (server/api.h). One log line per request goes to the log stream.
//
// Why not httplib's own listen loop: its workers read the request themselves, so N clients that
// send half a request hold all N workers until their read timeout (which restarts with every
// byte), and /healthz waits behind them. Here a slow client costs a buffer in the loop, never a
// worker, and a worker only ever runs a request that has fully arrived.
//
//   server::HttpServer http(data, std::cerr);          // ServerLimits{} unless given
//   Result<int> port = http.Bind("127.0.0.1", 8080);   // 0 = any free port
//   std::thread t([&] { (void)http.Run(); });
//   ...
//   http.Stop();  // from any thread, e.g. after SIGINT
//   t.join();
//
// Thread safety: Bind, then Run on one thread; Stop from any thread, any time. Requests run on
// the worker threads and only read the shared const ServerData.
#ifndef GPUPLAN_SRC_SERVER_HTTP_SERVER_H_
#define GPUPLAN_SRC_SERVER_HTTP_SERVER_H_

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>

#include "gpuplan/status.h"

namespace gpuplan::server {

struct ServerData;

// What one client may cost the server. The body limit is ServerData::max_body_bytes.
struct ServerLimits {
  // From accepting a connection to the end of its headers (request line included); then 408.
  std::chrono::milliseconds header_timeout{10'000};
  // From the end of the headers to the end of the body; then 408.
  std::chrono::milliseconds body_timeout{30'000};
  // For writing the answer to a client that does not read it.
  std::chrono::milliseconds write_timeout{10'000};
  // Connections open at once (being read, waiting for or in a worker); one more gets 503, and
  // past twice as many a new connection is closed unanswered. Keep it under ~450: Debian's
  // httplib 0.11 (built without poll) answers a request on a socket numbered 1024 or more with
  // 500, and each connection holds one descriptor.
  int max_connections = 256;
  // Connections one client address may hold open in the loop at once (reading, or idle); one
  // more gets 429, so a client holding idle sockets cannot take the whole cap from the others.
  // A quarter of max_connections: it takes four clients at their limit to fill the cap, where
  // one (the case seen: 256 idle sockets from one address) filled it before. 0 = no limit.
  int max_connections_per_client = 64;
  // Request line plus headers; a longer one gets 431.
  size_t max_header_bytes = size_t{16} * 1024;
  // Threads that answer complete requests; 0 = one per CPU core, at least 4. One of them takes
  // only GET and HEAD, so /healthz and the page never wait behind plans.
  int workers = 0;  // at least 2 are started
};

class HttpServer {
 public:
  // `data` and `log` must outlive the server.
  HttpServer(const ServerData& data, std::ostream& log, ServerLimits limits = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens on host:port (port 0 = a free port the kernel picks); returns the port.
  // Unavailable when the address is in use or not local.
  Result<int> Bind(const std::string& host, int port);

  // Accepts and answers requests until Stop(). REQUIRES: Bind succeeded.
  Status Run();

  // Ends Run (or makes a later Run return at once). Requests already read are answered first;
  // connections still sending theirs are closed.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuplan::server

#endif  // GPUPLAN_SRC_SERVER_HTTP_SERVER_H_
