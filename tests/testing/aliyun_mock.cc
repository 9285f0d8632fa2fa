#include "testing/aliyun_mock.h"

#include <httplib.h>

#include <chrono>

#include "io/file_util.h"
#include "net/aliyun_signer.h"
#include "testing/cli_runner.h"

namespace gpuplan::testing {

std::string AliyunTestdata(const std::string& name) {
  Result<std::string> text = io::ReadFile(TestDataPath("aliyun/" + name));
  return text.ok() ? *text : "";
}

AliyunMock::AliyunMock() : server_(std::make_unique<httplib::Server>()) {
  server_->Post("/", [this](const httplib::Request& req, httplib::Response& res) {
    // Rebuild the signed request the way the server side of the API would.
    net::V3Request v3;
    v3.method = "POST";
    v3.path = "/";
    for (const auto& [k, v] : req.params)
      v3.query[k] = v;
    for (const auto& [k, v] : req.headers) {
      std::string lower;
      for (char c : k)
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower == "host" || lower.rfind("x-acs-", 0) == 0)
        v3.headers[lower] = v;
    }
    v3.body = req.body;
    const std::string got_auth = req.get_header_value("Authorization");
    net::V3Request expect = v3;
    expect.headers.erase("x-acs-content-sha256");
    net::SignV3({"", kSecret, ""}, &expect);
    // Compare only the signature part (the key id is not checked).
    auto sig = [](const std::string& auth) {
      const size_t at = auth.find("Signature=");
      return at == std::string::npos ? std::string() : auth.substr(at);
    };
    Request rec;
    rec.action = req.get_header_value("x-acs-action");
    rec.params = v3.query;
    rec.signature_ok = !got_auth.empty() && sig(got_auth) == sig(expect.headers["authorization"]);
    Canned reply{404, R"({"Code": "InvalidAction.NotFound", "Message": "no mock reply"})", 0};
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(rec);
      auto it = replies_.find(rec.action);
      if (it != replies_.end() && !it->second.empty()) {
        reply = it->second.front();
        if (it->second.size() > 1)
          it->second.pop_front();
      }
    }
    if (!rec.signature_ok) {
      reply = {
          400,
          R"({"RequestId": "mock", "Code": "SignatureDoesNotMatch", "Message": "Specified signature is not matched with our calculation."})",
          0};
    }
    if (reply.delay_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(reply.delay_ms));
    res.status = reply.status;
    res.set_content(reply.body, "application/json;charset=utf-8");
  });
  port_ = server_->bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  while (!server_->is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

AliyunMock::~AliyunMock() {
  server_->stop();
  thread_.join();
}

void AliyunMock::Reply(const std::string& action, int status, std::string body, int delay_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  replies_[action].push_back({status, std::move(body), delay_ms});
}

std::string AliyunMock::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::vector<AliyunMock::Request> AliyunMock::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

}  // namespace gpuplan::testing
