#include "agent/plain_http.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuplan::agent {
namespace {

TEST(PlainHttpTest, ParsesRepliesByFraming) {
  struct Case {
    const char* name;
    std::string raw;
    bool closed;
    HttpParse want;
    int want_status;
    std::string want_body;
    bool want_too_large;
  };
  const Case kCases[] = {
      {"content_length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false,
       HttpParse::kDone, 200, "hello", false},
      {"length_cut_short", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nhello", false,
       HttpParse::kNeedMore, 200, "", false},
      {"until_close_open", "HTTP/1.0 404 Not Found\r\n\r\nNot Found", false, HttpParse::kNeedMore,
       404, "", false},
      {"until_close", "HTTP/1.0 404 Not Found\r\n\r\nNot Found", true, HttpParse::kDone, 404,
       "Not Found", false},
      {"chunked",
       "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\n2026\r\n1;x=y\r\n-\r\n0\r\n\r\n",
       false, HttpParse::kDone, 200, "2026-", false},
      {"chunked_cut", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n20", false,
       HttpParse::kNeedMore, 200, "", false},
      {"too_large", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nxx", false, HttpParse::kDone,
       200, "", true},
      {"headers_cut", "HTTP/1.1 200 OK\r\nContent-", false, HttpParse::kNeedMore, 0, "", false},
      {"not_http", "SSH-2.0-OpenSSH_9.2\r\n\r\n", false, HttpParse::kBad, 0, "", false},
      {"closed_in_headers", "HTTP/1.1 200 OK\r\n", true, HttpParse::kBad, 0, "", false},
      {"bad_length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false, HttpParse::kBad, 0, "",
       false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    PlainHttpReply r;
    EXPECT_EQ(ParsePlainHttpReply(c.raw, c.closed, 10, &r), c.want) << r.error;
    if (c.want == HttpParse::kDone) {
      EXPECT_EQ(r.status, c.want_status);
      EXPECT_EQ(r.body, c.want_body);
      EXPECT_EQ(r.too_large, c.want_too_large);
    }
    if (c.want == HttpParse::kBad) {
      EXPECT_FALSE(r.error.empty());
    }
  }
}

TEST(PlainHttpTest, RefusedConnectionSaysWhy) {
  PlainHttpRequest request;
  request.host = "127.0.0.1";
  request.port = 1;  // nobody listens on tcpmux
  request.target = "/";
  request.timeout_seconds = 0.5;
  PlainHttpReply r = PlainHttpExchange(request);
  EXPECT_FALSE(r.answered);
  EXPECT_NE(r.error.find("connect"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace gpuplan::agent
