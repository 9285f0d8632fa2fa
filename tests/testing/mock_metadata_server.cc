#include "testing/mock_metadata_server.h"

#include <httplib.h>

#include <chrono>

namespace gpuplan::testing {
namespace {
constexpr const char* kToken = "mock-token-8f3a";
}

MockMetadataServer::MockMetadataServer() : server_(std::make_unique<httplib::Server>()) {
  server_->Put("/latest/api/token", [this](const httplib::Request& req, httplib::Response& res) {
    ++token_requests_;
    {
      std::lock_guard<std::mutex> lock(mu_);
      last_ttl_ = req.get_header_value("X-aliyun-ecs-metadata-token-ttl-seconds");
    }
    if (!req.has_header("X-aliyun-ecs-metadata-token-ttl-seconds")) {
      res.status = 400;
      return;
    }
    res.set_content(kToken, "text/plain");
  });
  auto authorised = [this](const httplib::Request& req, const Behaviour& b) {
    const bool has = req.get_header_value("X-aliyun-ecs-metadata-token") == kToken;
    if (has)
      ++token_uses_;
    return !b.require_token || has;
  };
  server_->Get("/latest/meta-data/instance/instance-type",
               [this, authorised](const httplib::Request& req, httplib::Response& res) {
                 Behaviour b;
                 {
                   std::lock_guard<std::mutex> lock(mu_);
                   b = behaviour_;
                 }
                 if (!authorised(req, b)) {
                   res.status = 401;
                   return;
                 }
                 res.set_content(b.instance_type, "text/plain");
               });
  server_->Get("/latest/meta-data/instance/spot/termination-time",
               [this, authorised](const httplib::Request& req, httplib::Response& res) {
                 Behaviour b;
                 {
                   std::lock_guard<std::mutex> lock(mu_);
                   b = behaviour_;
                 }
                 const int n = ++termination_requests_;
                 if (!authorised(req, b)) {
                   res.status = 401;
                   return;
                 }
                 if (n <= b.notice_after) {
                   res.status = 404;
                   return;
                 }
                 switch (b.mode) {
                   case Mode::kNoNotice:
                     res.status = 404;
                     res.set_content("Not Found", "text/plain");
                     break;
                   case Mode::kNotice:
                   case Mode::kGarbage:
                     res.set_content(b.body, "text/plain");
                     break;
                   case Mode::kStatus:
                     res.status = b.status;
                     res.set_content(b.body, "text/plain");
                     break;
                   case Mode::kSlow: {
                     const auto until = std::chrono::steady_clock::now() +
                                        std::chrono::duration<double>(b.delay_seconds);
                     while (!stopping_ && std::chrono::steady_clock::now() < until) {
                       std::this_thread::sleep_for(std::chrono::milliseconds(10));
                     }
                     res.status = 404;
                     break;
                   }
                 }
               });
  port_ = server_->bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  while (!server_->is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

MockMetadataServer::~MockMetadataServer() {
  stopping_ = true;
  server_->stop();
  thread_.join();
}

void MockMetadataServer::Set(const Behaviour& b) {
  std::lock_guard<std::mutex> lock(mu_);
  behaviour_ = b;
}

std::string MockMetadataServer::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::string MockMetadataServer::last_ttl_header() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_ttl_;
}

}  // namespace gpuplan::testing
