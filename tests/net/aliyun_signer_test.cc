#include "net/aliyun_signer.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace gpuplan::net {
namespace {

// RPC v1 test vector of alibaba_reference.md section 4.7 (S14).
std::map<std::string, std::string> RpcVectorParams() {
  return {{"AccessKeyId", "testid"},
          {"Action", "DescribeRegions"},
          {"Format", "XML"},
          {"SignatureMethod", "HMAC-SHA1"},
          {"SignatureNonce", "3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf"},
          {"SignatureVersion", "1.0"},
          {"Timestamp", "2016-02-23T12:46:24Z"},
          {"Version", "2014-05-26"}};
}

TEST(AliyunSignerTest, RpcV1DocumentedVectors) {
  struct Case {
    const char* name;
    const char* method;
    const char* want_signature;
  };
  const Case kCases[] = {
      {"get_doc_value", "GET", "OLeaidS1JvxuMvnyHOwuJ+uX5qY="},
      {"post_recomputed", "POST", "MxbnVAM4w6sft9xjVpe/GCKueuk="},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::string to_sign = RpcStringToSign(c.method, RpcVectorParams());
    EXPECT_EQ(RpcSignature("testsecret", to_sign), c.want_signature);
  }
  EXPECT_EQ(
      RpcStringToSign("GET", RpcVectorParams()),
      "GET&%2F&AccessKeyId%3Dtestid%26Action%3DDescribeRegions%26Format%3DXML%26"
      "SignatureMethod%3DHMAC-SHA1%26SignatureNonce%3D3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf%26"
      "SignatureVersion%3D1.0%26Timestamp%3D2016-02-23T12%253A46%253A24Z%26Version%3D2014-05-26");
}

TEST(AliyunSignerTest, SignRpcAddsCommonParametersAndSignature) {
  std::map<std::string, std::string> p = {
      {"Action", "DescribeRegions"}, {"Format", "XML"}, {"Version", "2014-05-26"}};
  SignRpc({"testid", "testsecret", ""}, "GET", "2016-02-23T12:46:24Z",
          "3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf", &p);
  EXPECT_EQ(p["Signature"], "OLeaidS1JvxuMvnyHOwuJ+uX5qY=");
  EXPECT_EQ(p.count("SecurityToken"), 0u);
}

TEST(AliyunSignerTest, V3DocumentedVector) {
  V3Request req;
  req.method = "POST";
  req.path = "/";
  req.query = {{"ImageId", "win2019_1809_x64_dtc_zh-cn_40G_alibase_20230811.vhd"},
               {"RegionId", "cn-shanghai"}};
  req.headers = {{"host", "ecs.cn-shanghai.aliyuncs.com"},
                 {"x-acs-action", "RunInstances"},
                 {"x-acs-version", "2014-05-26"},
                 {"x-acs-date", "2023-10-26T10:22:32Z"},
                 {"x-acs-signature-nonce", "3156853299f313e23d1673dc12e1703d"}};
  SignV3({"YourAccessKeyId", "YourAccessKeySecret", ""}, &req);
  EXPECT_EQ(req.headers["x-acs-content-sha256"],
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  std::string signed_headers;
  EXPECT_EQ(Sha256Hex(V3CanonicalRequest(req, &signed_headers)),
            "7ea06492da5221eba5297e897ce16e55f964061054b7695beedaac1145b1e259");
  EXPECT_EQ(
      signed_headers,
      "host;x-acs-action;x-acs-content-sha256;x-acs-date;x-acs-signature-nonce;x-acs-version");
  EXPECT_EQ(req.headers["authorization"],
            "ACS3-HMAC-SHA256 Credential=YourAccessKeyId,SignedHeaders=host;x-acs-action;"
            "x-acs-content-sha256;x-acs-date;x-acs-signature-nonce;x-acs-version,"
            "Signature=06563a9e1b43f5dfe96b81484da74bceab24a1d853912eee15083a6f0f3283c0");
}

TEST(AliyunSignerTest, PercentEncodingFollowsRfc3986) {
  struct Case {
    const char* in;
    const char* want;
  };
  const Case kCases[] = {{"a b", "a%20b"},     {"a*b", "a%2Ab"}, {"a~b", "a~b"},
                         {"12:46", "12%3A46"}, {"/", "%2F"},     {"\xe4\xb8\xad", "%E4%B8%AD"}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    EXPECT_EQ(PercentEncode(c.in), c.want);
  }
}

TEST(AliyunSignerTest, RedactedNeverShowsTheSecret) {
  AliyunCredentials c{"LTAI5tAbCdEfGh1234", "supersecretvalue", ""};
  EXPECT_EQ(c.Redacted(), "LTAI****1234 (secret hidden)");
  EXPECT_EQ(c.Redacted().find("supersecret"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::net
