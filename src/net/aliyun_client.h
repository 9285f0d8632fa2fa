// A small Alibaba Cloud ECS OpenAPI client (version 2014-05-26) for live prices: signs every
// request with ACS3-HMAC-SHA256, retries throttling and server errors with exponential backoff,
// applies timeouts, and follows paging (NextToken / NextOffset). Plus the refresh that fetches
// DescribeAvailableResource, DescribePrice, DescribeSpotPriceHistory and DescribeSpotAdvice for
// one region into price-cache rows.
//
//   Result<AliyunCredentials> creds = CredentialsFrom(env_id, env_secret, env_token, config);
//   EcsClient client(*creds, "cn-hangzhou", ClientOptions{});
//   Result<io::PriceCache> fetched = FetchRegion(client, request, catalog, &report);
//
// Errors never include the secret or the Authorization header.
// Thread safety: an EcsClient is used by one thread at a time.
#ifndef GPUPLAN_SRC_NET_ALIYUN_CLIENT_H_
#define GPUPLAN_SRC_NET_ALIYUN_CLIENT_H_

#include <functional>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/status.h"
#include "io/price_cache.h"
#include "net/aliyun_signer.h"

namespace gpuplan::net {

// Credentials from the standard variables ALIBABA_CLOUD_ACCESS_KEY_ID /
// ALIBABA_CLOUD_ACCESS_KEY_SECRET (and ALIBABA_CLOUD_SECURITY_TOKEN), else from the aliyun CLI
// config text (~/.aliyun/config.json: the "current" profile, mode AK or StsToken). Arguments are
// the variables' values (nullptr when unset) and the config file's text (nullopt when absent);
// `config_path` names it in errors.
Result<AliyunCredentials> CredentialsFrom(const char* env_id, const char* env_secret,
                                          const char* env_token,
                                          const std::optional<std::string>& config_text,
                                          const std::string& config_path);

struct Endpoint {
  std::string scheme;              // "https" | "http"
  std::string host;                // "ecs.cn-hangzhou.aliyuncs.com", "127.0.0.1"
  int port = 0;                    // 0 = scheme default
  std::string HostHeader() const;  // host[:port]
  std::string Url() const;         // scheme://host[:port]
};
// Parses scheme://host[:port][/]. Plain http is allowed only for loopback hosts (127.0.0.0/8,
// ::1, localhost): anything else is kInvalidArgument, so credentials never travel unencrypted.
Result<Endpoint> ParseEndpoint(std::string_view url);

struct ClientOptions {
  std::string endpoint;          // "" = https://ecs.<region>.aliyuncs.com
  double connect_timeout_s = 5;  // per attempt
  double read_timeout_s = 30;    // per attempt
  int max_attempts = 4;          // throttling, 5xx and network errors are retried
  double backoff_initial_s = 1;  // doubles per retry, capped at backoff_max_s
  double backoff_max_s = 16;
  int max_pages = 100;  // a paging loop longer than this is an error
  // Seams for tests; defaults sleep, read the UTC clock and draw a random nonce.
  std::function<void(double seconds)> sleep;
  std::function<std::string()> utc_now;  // "2023-10-26T10:22:32Z"
  std::function<std::string()> nonce;
};

class EcsClient {
 public:
  EcsClient(AliyunCredentials creds, std::string region, ClientOptions options);
  EcsClient(const EcsClient&) = delete;
  EcsClient& operator=(const EcsClient&) = delete;

  // One signed call; the parsed JSON body on HTTP 200. Errors: kInvalidArgument for a bad
  // endpoint or a 4xx API error ("DescribePrice: InvalidInstanceType.NotFound: ..."),
  // kUnavailable after retries for throttling (Throttling* codes, HTTP 429/503), 5xx, timeouts
  // and network failures, kInternal ... never; malformed JSON is kUnavailable, not retried.
  Result<nlohmann::json> Call(std::string_view action, std::map<std::string, std::string> params);

  // Calls until the response has no NextToken / NextOffset, returning every page.
  Result<std::vector<nlohmann::json>> CallAllPages(
      std::string_view action, const std::map<std::string, std::string>& params);

  const std::string& region() const { return region_; }
  int requests_sent() const { return requests_; }

 private:
  AliyunCredentials creds_;
  std::string region_;
  ClientOptions options_;
  int requests_ = 0;
};

struct RefreshRequest {
  std::string region;
  std::vector<std::string> types;  // "" = every catalog type the region offers
  std::string today;               // "YYYY-MM-DD", stamped on the records
  bool subscription = true;        // also quote 1 month and 1 year
};

struct RefreshReport {
  int types_priced = 0;
  int spot_prices = 0;
  int stock_records = 0;
  int advice_records = 0;
  std::vector<std::string> warnings;  // per-type problems that did not stop the refresh
};

// Fetches one region. Any failure that is not specific to one type (network, throttling after
// retries, malformed JSON, auth) fails the whole refresh, so the caller writes the cache only
// on success.
Result<io::PriceCache> FetchRegion(EcsClient& client, const RefreshRequest& request,
                                   const Catalog& catalog, RefreshReport* report);

}  // namespace gpuplan::net

#endif  // GPUPLAN_SRC_NET_ALIYUN_CLIENT_H_
