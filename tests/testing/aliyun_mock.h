// A mock Alibaba Cloud ECS endpoint on 127.0.0.1 (random port, own thread) for client and CLI
// tests. Replies are queued per action and served in order (the last one repeats); each request
// is recorded with its decoded parameters and whether its ACS3-HMAC-SHA256 signature matches
// kSecret (a mismatch gets the API's SignatureDoesNotMatch error, HTTP 400).
#ifndef GPUPLAN_TESTS_TESTING_ALIYUN_MOCK_H_
#define GPUPLAN_TESTS_TESTING_ALIYUN_MOCK_H_

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace httplib {
class Server;
}

namespace gpuplan::testing {

// tests/testdata/aliyun/`name`.
std::string AliyunTestdata(const std::string& name);

class AliyunMock {
 public:
  static constexpr const char* kSecret = "mock-secret-do-not-print";

  struct Request {
    std::string action;
    std::map<std::string, std::string> params;
    bool signature_ok = false;
  };

  AliyunMock();
  ~AliyunMock();
  AliyunMock(const AliyunMock&) = delete;
  AliyunMock& operator=(const AliyunMock&) = delete;

  // Queues a reply for `action`; `delay_ms` makes the server wait first (timeouts).
  void Reply(const std::string& action, int status, std::string body, int delay_ms = 0);
  std::string url() const;  // "http://127.0.0.1:PORT"
  std::vector<Request> requests() const;

 private:
  struct Canned {
    int status;
    std::string body;
    int delay_ms;
  };
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::map<std::string, std::deque<Canned>> replies_;
  std::vector<Request> requests_;
};

}  // namespace gpuplan::testing

#endif  // GPUPLAN_TESTS_TESTING_ALIYUN_MOCK_H_
