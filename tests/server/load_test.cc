// `gpuplan serve` under load on loopback: slow, idle, oversized and too many clients must get a
// clear answer (or a quiet close) without delaying anyone else, and the server stays up.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "server/api.h"
#include "server/http_server.h"

namespace gpuplan {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

server::ServerData LoadData() {
  std::ostringstream out, err;
  cli::CliContext ctx;
  ctx.out = &out;
  ctx.err = &err;
  Result<server::ServerData> data = cli::LoadServerData(ctx);
  EXPECT_TRUE(data.ok()) << data.status().message();
  return data.ok() ? std::move(*data) : server::ServerData{};
}

std::string Example(const std::string& name) {
  std::ifstream in(std::string(GPUPLAN_SOURCE_DIR) + "/examples/" + name, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A raw loopback connection: the test decides exactly which bytes the server gets, and when.
class RawClient {
 public:
  // `from`: the loopback address it connects from (127.0.0.0/8 is all loopback on Linux), so one
  // machine can play several clients.
  explicit RawClient(int port, const char* from = "127.0.0.1") {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in source{};
    source.sin_family = AF_INET;
    inet_pton(AF_INET, from, &source.sin_addr);
    bind(fd_, reinterpret_cast<sockaddr*>(&source), sizeof source);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    timeval tv{10, 0};  // no test waits longer for an answer
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~RawClient() { close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return connected_; }

  // Sends what it can; false once the server has closed its side.
  bool Send(std::string_view bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0)
        return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

  // Everything the server sends until it closes (or 10 s pass).
  std::string ReadAll() {
    std::string out;
    char buf[16384];
    for (;;) {
      const ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0)
        break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }

  // What arrives within `wait`, without waiting for the close.
  std::string ReadSome(milliseconds wait) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(wait.count())) <= 0)
      return "";
    char buf[4096];
    const ssize_t n = recv(fd_, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

int StatusOf(const std::string& response) {
  // The last status line: a 100 Continue may come first.
  const size_t at = response.rfind("HTTP/1.1 ");
  return at == std::string::npos ? 0 : std::atoi(response.c_str() + at + 9);
}

nlohmann::json BodyOf(const std::string& response) {
  const size_t at = response.find("\r\n\r\n");
  if (at == std::string::npos)
    return nullptr;
  return nlohmann::json::parse(response.substr(at + 4), nullptr, /*allow_exceptions=*/false);
}

// A server on a free loopback port with `limits`, run on its own thread for one test.
class Running {
 public:
  Running(const server::ServerData& data, server::ServerLimits limits) : http_(data, log_, limits) {
    Result<int> port = http_.Bind("127.0.0.1", 0);
    EXPECT_TRUE(port.ok()) << port.status().message();
    port_ = port.ok() ? *port : 0;
    thread_ = std::thread([this] { status_ = http_.Run(); });
  }
  ~Running() {
    http_.Stop();
    thread_.join();
  }
  int port() const { return port_; }
  std::string log() const { return log_.str(); }  // only once stopped: the server writes it
  Status Stop() {
    http_.Stop();
    thread_.join();
    thread_ = std::thread([] {});
    return status_;
  }

  // GET /healthz through a real HTTP client; the seconds it took, or -1 when it failed.
  double TimeHealthz() const {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(10, 0);
    const auto start = Clock::now();
    auto r = client.Get("/healthz");
    if (!r || r->status != 200)
      return -1;
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

 private:
  std::ostringstream log_;
  server::HttpServer http_;
  int port_ = 0;
  std::thread thread_;
  Status status_ = Status::Ok();
};

class ServerLoadTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { data_ = new server::ServerData(LoadData()); }
  static void TearDownTestSuite() { delete data_; }
  static inline server::ServerData* data_ = nullptr;
};

TEST_F(ServerLoadTest, TwoHundredSlowClientsDoNotDelayHealthz) {
  server::ServerLimits limits;
  limits.workers = 2;  // fewer workers than slow clients by far: they must not hold workers
  Running server(*data_, limits);
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < 200; ++i) {
    // 50 clients with 4 connections each (one client may hold 64).
    const std::string from = "127.0.1." + std::to_string(1 + i % 50);
    slow.push_back(std::make_unique<RawClient>(server.port(), from.c_str()));
    ASSERT_TRUE(slow.back()->connected());
    // Half of them stop inside the headers, half inside the body.
    ASSERT_TRUE(slow.back()->Send(i % 2 ? "POST /v1/plan HTTP/1.1\r\nHost: x\r\nContent-Le"
                                        : "POST /v1/plan HTTP/1.1\r\nContent-Length: 100\r\n\r\n"
                                          "{\"task\":"));
  }
  for (int i = 0; i < 5; ++i) {
    const double seconds = server.TimeHealthz();
    EXPECT_GE(seconds, 0) << "GET /healthz failed with 200 slow clients open";
    EXPECT_LT(seconds, 1.0) << "GET /healthz took " << seconds << " s with 200 slow clients open";
  }
}

TEST_F(ServerLoadTest, OversizedAndMalformedRequestsGetJsonErrors) {
  Running server(*data_, server::ServerLimits{});
  const std::string big_header = "GET /healthz HTTP/1.1\r\nX-Pad: " + std::string(20000, 'a');
  const std::string long_uri =
      "GET /healthz?" + std::string(9000, 'q') + " HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string big_body = std::string(2 << 20, ' ');
  struct Case {
    const char* name;
    std::string request;
    int want_status;
    const char* want_message;
  };
  const Case cases[] = {
      {"headers over 16 KiB", big_header, 431, "over the limit of 16384 bytes"},
      {"URI over httplib's 8 KiB", long_uri, 414, "URI too long"},
      {"declared body over 1 MiB", "POST /v1/plan HTTP/1.1\r\nContent-Length: 2097152\r\n\r\n", 413,
       "2097152 bytes is over the limit of 1048576 bytes"},
      {"sent body over 1 MiB",
       "POST /v1/plan HTTP/1.1\r\nContent-Length: 2097152\r\n\r\n" + big_body, 413,
       "over the limit"},
      {"chunked body", "POST /v1/plan HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello",
       411, "send the body with a Content-Length"},
      {"bad Content-Length", "POST /v1/plan HTTP/1.1\r\nContent-Length: ten\r\n\r\n", 400,
       "malformed Content-Length"},
      {"two Content-Lengths",
       "POST /v1/plan HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400,
       "malformed Content-Length"},
      {"garbage request line", "HELLO\r\n\r\n", 400, "malformed HTTP request"},
      {"issue 32: HTTP/1.1 without Host", "GET /healthz HTTP/1.1\r\n\r\n", 400,
       "the request has no Host header (required in HTTP/1.1)"},
      {"issue 32: bare CR in a header", "GET /healthz HTTP/1.1\r\nHost: x\rX: y\r\n\r\n", 400,
       "bare CR"},
      {"issue 32: NUL in a header", std::string("GET /healthz HTTP/1.1\r\nHost: x\0y\r\n\r\n", 36),
       400, "NUL byte"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    RawClient client(server.port());
    ASSERT_TRUE(client.connected());
    (void)client.Send(c.request);  // the server may answer and close before all is sent
    const std::string answer = client.ReadAll();
    EXPECT_EQ(StatusOf(answer), c.want_status) << answer.substr(0, 300);
    const nlohmann::json body = BodyOf(answer);
    ASSERT_TRUE(body.contains("error")) << answer.substr(0, 300);
    EXPECT_NE(body["error"]["message"].get<std::string>().find(c.want_message), std::string::npos)
        << body.dump();
  }
  EXPECT_GE(server.TimeHealthz(), 0) << "the server must stay up";
}

TEST_F(ServerLoadTest, SlowRequestsTimeOutWith408AndIdleOnesCloseQuietly) {
  server::ServerLimits limits;
  limits.header_timeout = milliseconds(300);
  limits.body_timeout = milliseconds(300);
  Running server(*data_, limits);
  struct Case {
    const char* name;
    std::string sent;
    int want_status;  // 0: closed without an answer
    const char* want_message;
  };
  const Case cases[] = {
      {"half the headers", "GET /healthz HTTP/1.1\r\nHo", 408, "headers did not arrive within 300"},
      {"half the body", "POST /v1/plan HTTP/1.1\r\nContent-Length: 50\r\n\r\n{", 408,
       "body did not arrive within 300"},
      {"nothing at all", "", 0, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    RawClient client(server.port());
    ASSERT_TRUE(client.connected());
    ASSERT_TRUE(client.Send(c.sent));
    const auto start = Clock::now();
    const std::string answer = client.ReadAll();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    EXPECT_LT(seconds, 3.0) << "the server must close a slow connection after its timeout";
    if (c.want_status == 0) {
      EXPECT_EQ(answer, "");
      continue;
    }
    EXPECT_EQ(StatusOf(answer), c.want_status) << answer;
    EXPECT_NE(BodyOf(answer)["error"]["message"].get<std::string>().find(c.want_message),
              std::string::npos)
        << answer;
  }
}

TEST_F(ServerLoadTest, ConnectionsOverTheCapGet503) {
  server::ServerLimits limits;
  limits.max_connections = 20;
  Running server(*data_, limits);
  std::vector<std::unique_ptr<RawClient>> held;
  for (int i = 0; i < 20; ++i) {
    held.push_back(std::make_unique<RawClient>(server.port()));
    ASSERT_TRUE(held.back()->Send("GET /healthz HTTP/1.1\r\n"));  // and never finish
  }
  std::this_thread::sleep_for(milliseconds(200));  // let the loop accept them all
  RawClient extra(server.port());
  ASSERT_TRUE(extra.connected());
  const std::string answer = extra.ReadAll();
  EXPECT_EQ(StatusOf(answer), 503) << answer;
  EXPECT_NE(answer.find("Retry-After: 1"), std::string::npos) << answer;
  EXPECT_NE(BodyOf(answer)["error"]["message"].get<std::string>().find("limit of 20 open"),
            std::string::npos)
      << answer;
  held.clear();  // the clients leave; the server takes new ones again
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_GE(server.TimeHealthz(), 0);
}

TEST_F(ServerLoadTest, OneClientHoldingIdleSocketsGets429AndOthersAreServed) {
  server::ServerLimits limits;
  limits.max_connections_per_client = 8;
  Running server(*data_, limits);
  std::vector<std::unique_ptr<RawClient>> held;
  for (int i = 0; i < 8; ++i) {
    held.push_back(std::make_unique<RawClient>(server.port(), "127.0.0.2"));
    ASSERT_TRUE(held.back()->Send("GET /healthz HTTP/1.1\r\n"));  // and never finish
  }
  std::this_thread::sleep_for(milliseconds(200));  // let the loop accept them all
  RawClient greedy(server.port(), "127.0.0.2");
  ASSERT_TRUE(greedy.connected());
  const std::string answer = greedy.ReadAll();
  EXPECT_EQ(StatusOf(answer), 429) << answer;
  EXPECT_NE(answer.find("Retry-After: 1"), std::string::npos) << answer;
  EXPECT_NE(BodyOf(answer)["error"]["message"].get<std::string>().find("limit for one client"),
            std::string::npos)
      << answer;
  EXPECT_GE(server.TimeHealthz(), 0) << "another client (127.0.0.1) was refused too";
}

TEST_F(ServerLoadTest, Expect100ContinueGetsOneContinueThenTheAnswer) {
  Running server(*data_, server::ServerLimits{});
  const std::string body = "{\"task\": \"finetune\", \"model\": \"nonesuch\"}";
  RawClient client(server.port());
  ASSERT_TRUE(
      client.Send("POST /v1/plan HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: " +
                  std::to_string(body.size()) + "\r\n\r\n"));
  EXPECT_EQ(client.ReadSome(milliseconds(2000)), "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(client.Send(body));
  const std::string answer = client.ReadAll();
  EXPECT_EQ(StatusOf(answer), 400) << answer;
  EXPECT_EQ(answer.find("100 Continue"), std::string::npos) << "only one 100 Continue: " << answer;
  EXPECT_NE(answer.find("nonesuch"), std::string::npos) << answer;
}

// The mixed load CI runs: concurrent plans while slow and oversized clients come and go.
TEST_F(ServerLoadTest, ConcurrentPlansUnderMixedLoadAllAnswerRight) {
  server::ServerLimits limits;
  limits.header_timeout = milliseconds(500);
  Running server(*data_, limits);
  const std::string yaml = Example("llm-lora-finetune.yaml");
  server::Request direct;
  direct.method = "POST";
  direct.path = "/v1/plan";
  direct.body = yaml;
  const server::Response want = server::Handle(*data_, direct);
  ASSERT_EQ(want.status, 200) << want.body;

  std::atomic<bool> done{false};
  std::atomic<int> abusers_answered{0}, abusers_sent{0};
  std::thread abuse([&] {
    // Slow clients that time out, and oversized headers, over and over.
    while (!done) {
      std::vector<std::unique_ptr<RawClient>> slow;
      for (int i = 0; i < 30; ++i) {  // from an address of their own, as abusers are
        slow.push_back(std::make_unique<RawClient>(server.port(), "127.0.0.3"));
        (void)slow.back()->Send("POST /v1/plan HTTP/1.1\r\n");
      }
      RawClient big(server.port(), "127.0.0.3");
      (void)big.Send("GET / HTTP/1.1\r\nX: " + std::string(40000, 'x') + "\r\n\r\n");
      ++abusers_sent;
      if (StatusOf(big.ReadAll()) == 431)
        ++abusers_answered;
      std::this_thread::sleep_for(milliseconds(100));
    }
  });
  std::atomic<int> right{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 6; ++t) {
    clients.emplace_back([&] {
      httplib::Client client("127.0.0.1", server.port());
      client.set_read_timeout(60, 0);
      for (int k = 0; k < 2; ++k) {
        auto r = client.Post("/v1/plan", yaml, "application/yaml");
        if (r && r->status == 200 && r->body == want.body)
          ++right;
      }
    });
  }
  // While the plans run (they take every worker but the GET-only one), /healthz still answers.
  std::this_thread::sleep_for(milliseconds(50));
  const double healthz = server.TimeHealthz();
  for (std::thread& t : clients)
    t.join();
  done = true;
  abuse.join();
  EXPECT_EQ(right.load(), 12) << "every plan answer must equal the direct answer";
  EXPECT_EQ(abusers_answered.load(), abusers_sent.load());
  EXPECT_GE(healthz, 0);
  EXPECT_LT(healthz, 1.0);
  EXPECT_TRUE(server.Stop().ok());
  const std::string log = server.log();
  EXPECT_NE(log.find("POST /v1/plan -> 200"), std::string::npos);
  EXPECT_NE(log.find("-> 431"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan
