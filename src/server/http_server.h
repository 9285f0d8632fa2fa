// The socket side of `gpuplan serve`: cpp-httplib's thread-pool server in front of
// server::Handle (server/api.h). One log line per request goes to the log stream.
//
//   server::HttpServer http(data, std::cerr);
//   Result<int> port = http.Bind("127.0.0.1", 8080);  // 0 = any free port
//   std::thread t([&] { (void)http.Run(); });
//   ...
//   http.Stop();  // from any thread, e.g. after SIGINT
//   t.join();
//
// Thread safety: Bind, then Run on one thread; Stop from any thread, any time. Requests run on
// httplib's worker threads and only read the shared const ServerData.
#ifndef GPUPLAN_SRC_SERVER_HTTP_SERVER_H_
#define GPUPLAN_SRC_SERVER_HTTP_SERVER_H_

#include <iosfwd>
#include <memory>
#include <string>

#include "gpuplan/status.h"

namespace gpuplan::server {

struct ServerData;

class HttpServer {
 public:
  // `data` and `log` must outlive the server.
  HttpServer(const ServerData& data, std::ostream& log);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens on host:port (port 0 = a free port the kernel picks); returns the port.
  // Unavailable when the address is in use or not local.
  Result<int> Bind(const std::string& host, int port);

  // Accepts and answers requests until Stop(). REQUIRES: Bind succeeded.
  Status Run();

  // Ends Run (or makes a later Run return at once). In-flight requests finish first.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuplan::server

#endif  // GPUPLAN_SRC_SERVER_HTTP_SERVER_H_
