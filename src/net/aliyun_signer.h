// Request signing for the Alibaba Cloud OpenAPI: RPC signature v1 (HMAC-SHA1) and V3
// (ACS3-HMAC-SHA256). Both follow the documented algorithms (alibaba_reference.md section 4.7,
// S14 and S15) and are checked against the documented test vectors.
//
//   AliyunCredentials creds{"id", "secret", ""};
//   V3Request req;  // method, host, query, body
//   req.headers["x-acs-action"] = "DescribePrice"; ...
//   SignV3(creds, &req);  // adds x-acs-content-sha256 and Authorization
//
// Secrets never appear in errors or logs: use AliyunCredentials::Redacted() to print them.
// Thread safety: pure functions over values.
#ifndef GPUPLAN_SRC_NET_ALIYUN_SIGNER_H_
#define GPUPLAN_SRC_NET_ALIYUN_SIGNER_H_

#include <map>
#include <string>
#include <string_view>

namespace gpuplan::net {

struct AliyunCredentials {
  std::string access_key_id;
  std::string access_key_secret;
  std::string security_token;  // STS token, "" when using a long-term key
  // "LTAI****abcd (secret hidden)": safe to print.
  std::string Redacted() const;
};

// RFC 3986 percent-encoding as both schemes require: unreserved A-Z a-z 0-9 - _ . ~ stay,
// everything else (including space as %20 and * as %2A) is %XX with uppercase hex.
std::string PercentEncode(std::string_view s);

// Sorted `k=v` pairs, both percent-encoded, joined with '&'.
std::string CanonicalQuery(const std::map<std::string, std::string>& params);

// ---- RPC signature v1 (HMAC-SHA1) ----
// StringToSign = METHOD & pe("/") & pe(CanonicalQuery(params without Signature)).
std::string RpcStringToSign(std::string_view method,
                            const std::map<std::string, std::string>& params);
// Base64(HMAC-SHA1(secret + "&", string_to_sign)).
std::string RpcSignature(std::string_view access_key_secret, std::string_view string_to_sign);
// Adds the common parameters that are missing (Format=JSON, SignatureMethod, SignatureVersion,
// AccessKeyId, SecurityToken) and the Signature to `params`. `timestamp` ISO 8601 UTC and
// `nonce` unique per request.
void SignRpc(const AliyunCredentials& creds, std::string_view method, std::string_view timestamp,
             std::string_view nonce, std::map<std::string, std::string>* params);

// ---- V3 (ACS3-HMAC-SHA256) ----
struct V3Request {
  std::string method = "POST";
  std::string path = "/";
  std::map<std::string, std::string> query;
  // Header names in lowercase. Must hold host, x-acs-action, x-acs-version, x-acs-date and
  // x-acs-signature-nonce before signing.
  std::map<std::string, std::string> headers;
  std::string body;
};

std::string Sha256Hex(std::string_view data);
std::string HmacSha256Hex(std::string_view key, std::string_view data);

// The canonical request of section 4.7 step 1; `signed_headers` receives the ';'-joined names
// (host, content-type and every x-acs-* header, sorted).
std::string V3CanonicalRequest(const V3Request& req, std::string* signed_headers);
// Sets x-acs-content-sha256 (and x-acs-security-token when present), then Authorization:
// "ACS3-HMAC-SHA256 Credential=<id>,SignedHeaders=<...>,Signature=<hex>".
void SignV3(const AliyunCredentials& creds, V3Request* req);

}  // namespace gpuplan::net

#endif  // GPUPLAN_SRC_NET_ALIYUN_SIGNER_H_
