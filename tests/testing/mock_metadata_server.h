// A mock ECS metadata service on 127.0.0.1 (random port) for the agent's tests: the
// termination-time item can answer 404, a notice, garbage, an HTTP error, slowly, or only with a
// hardened-mode token; the notice can arrive after N requests.
#ifndef GPUPLAN_TESTS_TESTING_MOCK_METADATA_SERVER_H_
#define GPUPLAN_TESTS_TESTING_MOCK_METADATA_SERVER_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace gpuplan::testing {

class MockMetadataServer {
 public:
  enum class Mode {
    kNoNotice,  // 404
    kNotice,    // 200 with `body`
    kGarbage,   // 200 with `body` (a test's malformed reply)
    kStatus,    // `status` with `body`
    kSlow,      // waits `delay_seconds` (in small steps), then 404
  };
  struct Behaviour {
    Mode mode = Mode::kNoNotice;
    std::string body;
    int status = 500;
    double delay_seconds = 0;
    // The first `notice_after` termination-time requests get 404, later ones `mode`.
    int notice_after = 0;
    bool require_token = false;  // 401 without a valid X-aliyun-ecs-metadata-token
    std::string instance_type = "ecs.gn7i-c8g1.2xlarge";
  };

  MockMetadataServer();   // starts listening
  ~MockMetadataServer();  // stops and joins
  MockMetadataServer(const MockMetadataServer&) = delete;
  MockMetadataServer& operator=(const MockMetadataServer&) = delete;

  void Set(const Behaviour& b);
  std::string url() const;  // "http://127.0.0.1:PORT"
  int termination_requests() const { return termination_requests_; }
  int token_requests() const { return token_requests_; }
  int token_uses() const { return token_uses_; }
  std::string last_ttl_header() const;

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  Behaviour behaviour_;
  std::string last_ttl_;
  std::atomic<int> termination_requests_{0};
  std::atomic<int> token_requests_{0};
  std::atomic<int> token_uses_{0};
  std::atomic<bool> stopping_{false};
};

}  // namespace gpuplan::testing

#endif  // GPUPLAN_TESTS_TESTING_MOCK_METADATA_SERVER_H_
