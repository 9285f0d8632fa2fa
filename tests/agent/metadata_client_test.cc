#include "agent/metadata_client.h"

#include <gtest/gtest.h>

#include <chrono>

#include "agent/spot_watcher.h"
#include "testing/mock_metadata_server.h"

namespace gpuplan::agent {
namespace {

using testing::MockMetadataServer;
using Kind = MetadataReply::Kind;
using Mode = MockMetadataServer::Mode;

std::unique_ptr<MetadataClient> Client(const std::string& url, double timeout = 1.0) {
  MetadataOptions o;
  o.base_url = url;
  o.timeout_seconds = timeout;
  auto c = MetadataClient::Create(o);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(*c);
}

// A port nobody listens on: a server's port after it stopped.
std::string DeadUrl() {
  MockMetadataServer s;
  return s.url();
}

TEST(MetadataClientTest, RepliesByKind) {
  struct Case {
    const char* name;
    MockMetadataServer::Behaviour behaviour;
    Kind want_kind;
    int want_status;
    const char* want_body;
    const char* want_error;
  };
  auto b = [](Mode m, std::string body = "", int status = 500) {
    MockMetadataServer::Behaviour x;
    x.mode = m;
    x.body = std::move(body);
    x.status = status;
    return x;
  };
  const Case kCases[] = {
      {"no_notice_404", b(Mode::kNoNotice), Kind::kNotFound, 404, "Not Found", "HTTP 404"},
      {"notice", b(Mode::kNotice, "2026-11-30T14:08:56Z"), Kind::kOk, 200, "2026-11-30T14:08:56Z",
       ""},
      {"server_error", b(Mode::kStatus, "boom", 500), Kind::kHttpError, 500, "boom", "HTTP 500"},
      {"throttled", b(Mode::kStatus, "", 429), Kind::kHttpError, 429, "", "HTTP 429"},
      {"huge_reply", b(Mode::kGarbage, std::string(200000, 'x')), Kind::kUnreachable, 0, "",
       "reply larger than 65536 bytes"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    MockMetadataServer server;
    server.Set(c.behaviour);
    MetadataReply r = Client(server.url())->Get(kTerminationTimePath);
    EXPECT_EQ(MetadataReplyKindName(r.kind), MetadataReplyKindName(c.want_kind));
    EXPECT_EQ(r.http_status, c.want_status);
    EXPECT_EQ(r.body, c.want_body);
    EXPECT_NE(r.error.find(c.want_error), std::string::npos) << r.error;
    EXPECT_FALSE(r.used_token);
    EXPECT_EQ(server.token_requests(), 0);
  }
}

TEST(MetadataClientTest, HardenedModeGetsATokenOnceAndReusesIt) {
  MockMetadataServer server;
  MockMetadataServer::Behaviour b;
  b.require_token = true;
  b.mode = Mode::kNotice;
  b.body = "2026-11-30T14:08:56Z";
  server.Set(b);
  std::unique_ptr<MetadataClient> client = Client(server.url());
  for (int i = 0; i < 3; ++i) {
    MetadataReply r = client->Get(kTerminationTimePath);
    EXPECT_EQ(r.kind, Kind::kOk) << r.error;
    EXPECT_EQ(r.body, "2026-11-30T14:08:56Z");
    EXPECT_TRUE(r.used_token);
  }
  EXPECT_EQ(server.token_requests(), 1);
  EXPECT_EQ(server.token_uses(), 3);
  EXPECT_EQ(server.last_ttl_header(), "21600");
  // The first request went out without a token (then 401), the next two with it.
  EXPECT_EQ(server.termination_requests(), 4);
}

TEST(MetadataClientTest, SlowOrDownServiceTimesOutQuickly) {
  struct Case {
    const char* name;
    bool dead;
    const char* want_error;
  };
  const Case kCases[] = {
      {"slow", false, "no reply from"},
      {"down", true, "no reply from"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    MockMetadataServer server;
    MockMetadataServer::Behaviour b;
    b.mode = Mode::kSlow;
    b.delay_seconds = 2;
    server.Set(b);
    const std::string url = c.dead ? DeadUrl() : server.url();
    const auto start = std::chrono::steady_clock::now();
    MetadataReply r = Client(url, 0.2)->Get(kTerminationTimePath);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.kind, Kind::kUnreachable);
    EXPECT_NE(r.error.find(c.want_error), std::string::npos) << r.error;
    EXPECT_LT(took, 1.0);
  }
}

TEST(MetadataClientTest, BadBaseUrlsAreRejectedWithTheExpectedForm) {
  struct Case {
    const char* name;
    const char* url;
    const char* want;
  };
  const Case kCases[] = {
      {"no_scheme", "100.100.100.200", "the scheme must be http://"},
      {"ftp", "ftp://host", "the scheme must be http://"},
      {"https", "https://100.100.100.200", "https is not supported"},
      {"ipv6_unclosed", "http://[::1", "no ']'"},
      {"no_host", "http://", "no host"},
      {"bad_port", "http://host:99999", "the port must be a number from 1 to 65535"},
      {"port_text", "http://host:abc", "the port must be a number"},
      {"query", "http://host/x?y=1", "no query or fragment"},
      {"space", "http://ho st", "unexpected character"},
      {"userinfo", "http://user@host", "unexpected character"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    MetadataOptions o;
    o.base_url = c.url;
    auto r = MetadataClient::Create(o);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(c.want), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("expected http://HOST[:PORT][/PATH]"), std::string::npos);
  }
  MetadataOptions o;
  o.timeout_seconds = 0;
  EXPECT_FALSE(MetadataClient::Create(o).ok());
}

TEST(MetadataClientTest, BaseUrlWithAPathPrefix) {
  MockMetadataServer server;
  MetadataReply r = Client(server.url() + "/")->Get("/latest/meta-data/instance/instance-type");
  EXPECT_EQ(r.kind, Kind::kOk) << r.error;
  EXPECT_EQ(r.body, "ecs.gn7i-c8g1.2xlarge");
  MetadataReply prefixed = Client(server.url() + "/prefix")->Get(kTerminationTimePath);
  EXPECT_EQ(prefixed.kind, Kind::kNotFound);  // /prefix/latest/... does not exist
}

}  // namespace
}  // namespace gpuplan::agent
