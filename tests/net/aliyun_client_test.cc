// The ECS client against a local mock server on 127.0.0.1 that speaks the real response shapes
// (alibaba_reference.md section 4) and checks every request's ACS3-HMAC-SHA256 signature.
#include "net/aliyun_client.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "io/file_util.h"
#include "testing/aliyun_mock.h"
#include "testing/cli_runner.h"

namespace gpuplan::net {
namespace {

using gpuplan::testing::AliyunMock;
using nlohmann::json;

ClientOptions FastOptions(const AliyunMock& mock) {
  ClientOptions o;
  o.endpoint = mock.url();
  o.connect_timeout_s = 1;
  o.read_timeout_s = 1;
  o.max_attempts = 3;
  o.backoff_initial_s = 0.5;
  o.sleep = [](double) {};  // no real waiting in tests
  return o;
}

const AliyunCredentials kCreds{"LTAI5tTestKeyId0001", AliyunMock::kSecret, ""};

TEST(AliyunClientTest, SignedCallSucceeds) {
  AliyunMock mock;
  mock.Reply("DescribeSpotAdvice", 200,
             gpuplan::testing::AliyunTestdata("describe_spot_advice.json"));
  EcsClient client(kCreds, "cn-hangzhou", FastOptions(mock));
  Result<json> body =
      client.Call("DescribeSpotAdvice", {{"InstanceTypes.1", "ecs.gn7i-c8g1.2xlarge"}});
  ASSERT_TRUE(body.ok()) << body.status().message();
  EXPECT_EQ((*body)["RegionId"], "cn-hangzhou");
  ASSERT_EQ(mock.requests().size(), 1u);
  EXPECT_EQ(mock.requests()[0].params.at("RegionId"), "cn-hangzhou");
  EXPECT_TRUE(mock.requests()[0].signature_ok);
}

TEST(AliyunClientTest, WrongSecretIsRejectedAndNotRetried) {
  AliyunMock mock;
  mock.Reply("DescribeSpotAdvice", 200,
             gpuplan::testing::AliyunTestdata("describe_spot_advice.json"));
  EcsClient client({"LTAI5tTestKeyId0001", "wrong-secret", ""}, "cn-hangzhou", FastOptions(mock));
  Result<json> body = client.Call("DescribeSpotAdvice", {});
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(body.status().message().find("SignatureDoesNotMatch"), std::string::npos);
  EXPECT_EQ(body.status().message().find("wrong-secret"), std::string::npos);
  EXPECT_EQ(client.requests_sent(), 1);
}

TEST(AliyunClientTest, FollowsNextOffsetAndNextToken) {
  struct Case {
    const char* name;
    const char* key;
    std::vector<std::string> pages;
    const char* follow_param;
  };
  const Case kCases[] = {
      {"next_offset",
       "NextOffset",
       {R"({"NextOffset": 2, "Currency": "CNY", "SpotPrices": {"SpotPriceType": [{}, {}]}})",
        R"({"NextOffset": 3, "Currency": "CNY", "SpotPrices": {"SpotPriceType": [{}]}})",
        R"({"NextOffset": 0, "Currency": "CNY", "SpotPrices": {"SpotPriceType": []}})"},
       "Offset"},
      {"next_token",
       "NextToken",
       {R"({"NextToken": "abc", "Items": [1]})", R"({"NextToken": "def", "Items": [2]})",
        R"({"NextToken": "", "Items": [3]})"},
       "NextToken"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    AliyunMock mock;
    for (const std::string& page : c.pages)
      mock.Reply("DescribeThings", 200, page);
    EcsClient client(kCreds, "cn-hangzhou", FastOptions(mock));
    Result<std::vector<json>> pages = client.CallAllPages("DescribeThings", {});
    ASSERT_TRUE(pages.ok()) << pages.status().message();
    EXPECT_EQ(pages->size(), 3u);
    ASSERT_EQ(mock.requests().size(), 3u);
    EXPECT_EQ(mock.requests()[0].params.count(c.follow_param), 0u);
    EXPECT_EQ(mock.requests()[1].params.at(c.follow_param),
              c.key == std::string("NextOffset") ? "2" : "abc");
    EXPECT_EQ(mock.requests()[2].params.at(c.follow_param),
              c.key == std::string("NextOffset") ? "3" : "def");
  }
}

TEST(AliyunClientTest, RetriesThrottlingWithBackoff) {
  const std::string throttled = gpuplan::testing::AliyunTestdata("throttled.json");
  struct Case {
    const char* name;
    std::vector<std::pair<int, std::string>> replies;
    bool want_ok;
    std::vector<double> want_sleeps;
    const char* want_error_part;
  };
  const Case kCases[] = {
      {"throttled_twice_then_ok",
       {{400, throttled},
        {429, R"({"Code": "Throttling", "Message": "slow down"})"},
        {200, R"({"AvailableSpotZones": {"AvailableSpotZone": []}})"}},
       true,
       {0.5, 1.0},
       ""},
      {"service_unavailable_then_ok",
       {{503, R"({"Code": "ServiceUnavailable", "Message": "busy"})"}, {200, "{}"}},
       true,
       {0.5},
       ""},
      {"throttled_until_giving_up",
       {{400, throttled}, {400, throttled}, {400, throttled}},
       false,
       {0.5, 1.0},
       "Throttling.User: Request was denied due to user flow control. (HTTP 400"},
      {"client_error_not_retried",
       {{404,
         R"({"Code": "InvalidInstanceType.NotFound", "Message": "The specified InstanceType does not exist."})"}},
       false,
       {},
       "InvalidInstanceType.NotFound"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    AliyunMock mock;
    for (const auto& [status, body] : c.replies)
      mock.Reply("DescribeSpotAdvice", status, body);
    std::vector<double> sleeps;
    ClientOptions o = FastOptions(mock);
    o.sleep = [&](double s) { sleeps.push_back(s); };
    EcsClient client(kCreds, "cn-hangzhou", o);
    Result<json> body = client.Call("DescribeSpotAdvice", {});
    EXPECT_EQ(body.ok(), c.want_ok);
    EXPECT_EQ(sleeps, c.want_sleeps);
    if (!c.want_ok) {
      EXPECT_NE(body.status().message().find(c.want_error_part), std::string::npos)
          << body.status().message();
    }
  }
}

TEST(AliyunClientTest, MalformedJsonAndTimeoutAreUnavailable) {
  {
    AliyunMock mock;
    mock.Reply("DescribePrice", 200, R"({"PriceInfo": {"Price": )");
    EcsClient client(kCreds, "cn-hangzhou", FastOptions(mock));
    Result<json> body = client.Call("DescribePrice", {});
    ASSERT_FALSE(body.ok());
    EXPECT_EQ(body.status().code(), ErrorCode::kUnavailable);
    EXPECT_NE(body.status().message().find("malformed JSON"), std::string::npos);
    EXPECT_EQ(client.requests_sent(), 1);  // deterministic: not retried
  }
  {
    AliyunMock mock;
    mock.Reply("DescribePrice", 200, "{}", /*delay_ms=*/1500);
    mock.Reply("DescribePrice", 200, "{}", /*delay_ms=*/1500);
    ClientOptions o = FastOptions(mock);
    o.read_timeout_s = 0.2;
    o.max_attempts = 2;
    EcsClient client(kCreds, "cn-hangzhou", o);
    const auto start = std::chrono::steady_clock::now();
    Result<json> body = client.Call("DescribePrice", {});
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_FALSE(body.ok());
    EXPECT_EQ(body.status().code(), ErrorCode::kUnavailable);
    EXPECT_NE(body.status().message().find("attempt 2 of 2"), std::string::npos)
        << body.status().message();
    EXPECT_EQ(client.requests_sent(), 2);
    EXPECT_LT(took, 1.4);  // gave up on the timeout, did not wait for the slow replies
  }
}

TEST(AliyunClientTest, EndpointMustBeHttpsUnlessLoopback) {
  struct Case {
    const char* url;
    bool ok;
  };
  const Case kCases[] = {
      {"https://ecs.cn-hangzhou.aliyuncs.com", true},
      {"http://127.0.0.1:8080", true},
      {"http://localhost:1234/", true},
      {"http://[::1]:99", true},
      {"http://10.0.0.1:80", false},
      {"http://ecs.cn-hangzhou.aliyuncs.com", false},
      {"http://127.0.0.1.evil.example", false},
      {"ftp://127.0.0.1", false},
      {"https://ecs.example.com/path", false},
      {"127.0.0.1:80", false},
      {"https://user@host", false},
      {"http://127.0.0.1:99999", false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.url);
    EXPECT_EQ(ParseEndpoint(c.url).ok(), c.ok);
  }
}

TEST(AliyunClientTest, CredentialsFromEnvironmentOrCliConfig) {
  const std::string config = R"({"current": "work", "profiles": [
      {"name": "default", "mode": "AK", "access_key_id": "LTAIdefault0000", "access_key_secret": "s0"},
      {"name": "work", "mode": "StsToken", "access_key_id": "STS.work000000", "access_key_secret": "s1", "sts_token": "tok"},
      {"name": "role", "mode": "RamRoleArn", "access_key_id": "x", "access_key_secret": "y"}]})";
  struct Case {
    const char* name;
    const char* id;
    const char* secret;
    std::optional<std::string> config;
    bool ok;
    const char* want_id;
  };
  const Case kCases[] = {
      {"env_wins", "LTAIenv000000", "envsecret", config, true, "LTAIenv000000"},
      {"config_current_profile", nullptr, nullptr, config, true, "STS.work000000"},
      {"only_id_in_env", "LTAIenv000000", nullptr, config, false, ""},
      {"nothing", nullptr, nullptr, std::nullopt, false, ""},
      {"unsupported_mode", nullptr, nullptr,
       std::string(R"({"current": "role", "profiles": [{"name": "role", "mode": "RamRoleArn"}]})"),
       false, ""},
      {"malformed_config", nullptr, nullptr, std::string("{"), false, ""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<AliyunCredentials> got = CredentialsFrom(c.id, c.secret, nullptr, c.config, "cfg.json");
    ASSERT_EQ(got.ok(), c.ok) << (got.ok() ? "" : got.status().message());
    if (c.ok) {
      EXPECT_EQ(got->access_key_id, c.want_id);
    }
  }
}

}  // namespace
}  // namespace gpuplan::net
