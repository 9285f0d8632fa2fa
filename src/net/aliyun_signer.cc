#include "net/aliyun_signer.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cctype>
#include <string>
#include <vector>

namespace gpuplan::net {
namespace {

std::string Hex(const unsigned char* data, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[data[i] >> 4];
    out += kDigits[data[i] & 0xf];
  }
  return out;
}

std::vector<unsigned char> Hmac(const EVP_MD* md, std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(md, key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::vector<unsigned char>(out, out + len);
}

std::string Base64(const std::vector<unsigned char>& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes.data(),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
    --e;
  return std::string(s.substr(b, e - b));
}

}  // namespace

std::string AliyunCredentials::Redacted() const {
  const std::string& id = access_key_id;
  std::string shown = id.size() > 8 ? id.substr(0, 4) + "****" + id.substr(id.size() - 4) : "****";
  return shown + " (secret hidden)";
}

std::string PercentEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() * 3);
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

std::string CanonicalQuery(const std::map<std::string, std::string>& params) {
  // std::map sorts by raw key; percent-encoding keeps the order of ASCII keys used by the API.
  std::string out;
  for (const auto& [k, v] : params) {
    if (!out.empty())
      out += '&';
    out += PercentEncode(k) + "=" + PercentEncode(v);
  }
  return out;
}

std::string RpcStringToSign(std::string_view method,
                            const std::map<std::string, std::string>& params) {
  std::map<std::string, std::string> p = params;
  p.erase("Signature");
  return std::string(method) + "&" + PercentEncode("/") + "&" + PercentEncode(CanonicalQuery(p));
}

std::string RpcSignature(std::string_view access_key_secret, std::string_view string_to_sign) {
  const std::string key = std::string(access_key_secret) + "&";
  return Base64(Hmac(EVP_sha1(), key, string_to_sign));
}

void SignRpc(const AliyunCredentials& creds, std::string_view method, std::string_view timestamp,
             std::string_view nonce, std::map<std::string, std::string>* params) {
  auto& p = *params;
  p.emplace("Format", "JSON");
  p.emplace("SignatureMethod", "HMAC-SHA1");
  p.emplace("SignatureVersion", "1.0");
  p["AccessKeyId"] = creds.access_key_id;
  p["Timestamp"] = std::string(timestamp);
  p["SignatureNonce"] = std::string(nonce);
  if (!creds.security_token.empty())
    p["SecurityToken"] = creds.security_token;
  p["Signature"] = RpcSignature(creds.access_key_secret, RpcStringToSign(method, p));
}

std::string Sha256Hex(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, EVP_sha256(), nullptr);
  return Hex(out, len);
}

std::string HmacSha256Hex(std::string_view key, std::string_view data) {
  std::vector<unsigned char> mac = Hmac(EVP_sha256(), key, data);
  return Hex(mac.data(), mac.size());
}

std::string V3CanonicalRequest(const V3Request& req, std::string* signed_headers) {
  std::map<std::string, std::string> signed_map;  // lowercase name -> trimmed value
  for (const auto& [name, value] : req.headers) {
    std::string lower;
    for (char c : name)
      lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "host" || lower == "content-type" || lower.rfind("x-acs-", 0) == 0) {
      signed_map[lower] = Trim(value);
    }
  }
  std::string headers, names;
  for (const auto& [name, value] : signed_map) {
    headers += name + ":" + value + "\n";
    names += (names.empty() ? "" : ";") + name;
  }
  if (signed_headers)
    *signed_headers = names;
  return req.method + "\n" + req.path + "\n" + CanonicalQuery(req.query) + "\n" + headers + "\n" +
         names + "\n" + Sha256Hex(req.body);
}

void SignV3(const AliyunCredentials& creds, V3Request* req) {
  req->headers["x-acs-content-sha256"] = Sha256Hex(req->body);
  if (!creds.security_token.empty())
    req->headers["x-acs-security-token"] = creds.security_token;
  req->headers.erase("authorization");
  std::string signed_headers;
  const std::string canonical = V3CanonicalRequest(*req, &signed_headers);
  const std::string to_sign = "ACS3-HMAC-SHA256\n" + Sha256Hex(canonical);
  req->headers["authorization"] = "ACS3-HMAC-SHA256 Credential=" + creds.access_key_id +
                                  ",SignedHeaders=" + signed_headers +
                                  ",Signature=" + HmacSha256Hex(creds.access_key_secret, to_sign);
}

}  // namespace gpuplan::net
