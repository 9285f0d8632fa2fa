#include "net/aliyun_client.h"

#include <fmt/format.h>
#include <httplib.h>
#include <openssl/rand.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "gpuplan/strings.h"
#include "io/price_import.h"
#include "io/utc_time.h"

namespace gpuplan::net {

// The price-cache rows and parsers this client fills (gpuplan_io).
using io::ImportContext;
using io::MergePriceCache;
using io::ParseAliyunJson;
using io::PriceCache;
using io::UtcNow;

namespace {

using nlohmann::json;

// ECS OpenAPI version all these calls use (alibaba_reference.md section 4, S10).
constexpr char kEcsVersion[] = "2014-05-26";

std::string RandomNonce() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    // Fall back to the clock: a nonce must be unique, not secret.
    return std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  std::string out;
  for (unsigned char b : bytes)
    out += fmt::format("{:02x}", b);
  return out;
}

bool IsLoopback(const std::string& host) {
  if (host == "localhost" || host == "::1" || host == "[::1]")
    return true;
  // 127.0.0.0/8: four dotted numbers, the first 127.
  if (host.rfind("127.", 0) != 0)
    return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.') {
      ++dots;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return dots == 3;
}

bool IsThrottling(int http_status, const std::string& code) {
  return http_status == 429 || http_status == 503 || code.rfind("Throttling", 0) == 0 ||
         code == "ServiceUnavailable";
}

void SplitSeconds(double s, time_t* sec, time_t* usec) {
  s = std::max(s, 0.001);
  *sec = static_cast<time_t>(s);
  *usec = static_cast<time_t>((s - static_cast<double>(*sec)) * 1e6);
}

std::string JsonString(const json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

Result<AliyunCredentials> CredentialsFrom(const char* env_id, const char* env_secret,
                                          const char* env_token,
                                          const std::optional<std::string>& config_text,
                                          const std::string& config_path) {
  const bool has_id = env_id && *env_id, has_secret = env_secret && *env_secret;
  if (has_id && has_secret) {
    return AliyunCredentials{env_id, env_secret, env_token ? env_token : ""};
  }
  if (has_id != has_secret) {
    return Status::InvalidArgument(
        "set both ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET (only one is "
        "set)");
  }
  const std::string how =
      "set ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET, or run 'aliyun "
      "configure' (mode AK)";
  if (!config_text)
    return Status::InvalidArgument("no Alibaba Cloud credentials: " + how);
  json doc = json::parse(*config_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Status::InvalidArgument(config_path + ": malformed JSON; " + how);
  }
  const std::string current =
      JsonString(doc, "current").empty() ? "default" : JsonString(doc, "current");
  auto profiles = doc.find("profiles");
  if (profiles == doc.end() || !profiles->is_array()) {
    return Status::InvalidArgument(config_path + ": no \"profiles\" list; " + how);
  }
  for (const json& p : *profiles) {
    if (!p.is_object() || JsonString(p, "name") != current)
      continue;
    const std::string mode = JsonString(p, "mode");
    if (mode != "AK" && mode != "StsToken" && !mode.empty()) {
      return Status::Unsupported(
          fmt::format("{}: profile \"{}\" uses mode {}, which gpuplan does not support; {}",
                      config_path, current, mode, how));
    }
    AliyunCredentials c{JsonString(p, "access_key_id"), JsonString(p, "access_key_secret"),
                        mode == "StsToken" ? JsonString(p, "sts_token") : ""};
    if (c.access_key_id.empty() || c.access_key_secret.empty()) {
      return Status::InvalidArgument(
          fmt::format("{}: profile \"{}\" has no access_key_id/access_key_secret; {}", config_path,
                      current, how));
    }
    return c;
  }
  return Status::InvalidArgument(
      fmt::format("{}: no profile named \"{}\"; {}", config_path, current, how));
}

std::string Endpoint::HostHeader() const {
  return port == 0 ? host : host + ":" + std::to_string(port);
}

std::string Endpoint::Url() const { return scheme + "://" + HostHeader(); }

Result<Endpoint> ParseEndpoint(std::string_view url) {
  const std::string bad =
      "--endpoint: expected https://HOST[:PORT] (or http:// to a loopback "
      "address), got \"" +
      std::string(url) + "\"";
  Endpoint e;
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos)
    return Status::InvalidArgument(bad);
  e.scheme = strings::Lower(url.substr(0, scheme_end));
  if (e.scheme != "http" && e.scheme != "https")
    return Status::InvalidArgument(bad);
  std::string_view rest = url.substr(scheme_end + 3);
  if (const size_t slash = rest.find('/'); slash != std::string_view::npos) {
    if (rest.substr(slash) != "/") {
      return Status::InvalidArgument(bad + " (a path is not supported)");
    }
    rest = rest.substr(0, slash);
  }
  std::string_view host = rest;
  if (!rest.empty() && rest[0] == '[') {  // [::1]:8080
    const size_t close = rest.find(']');
    if (close == std::string_view::npos)
      return Status::InvalidArgument(bad);
    host = rest.substr(0, close + 1);
    rest = rest.substr(close + 1);
  } else if (const size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    rest = rest.substr(colon);
  } else {
    rest = "";
  }
  if (!rest.empty()) {
    if (rest[0] != ':' || rest.size() < 2)
      return Status::InvalidArgument(bad);
    int port = 0;
    for (char c : rest.substr(1)) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return Status::InvalidArgument(bad);
      port = port * 10 + (c - '0');
      if (port > 65535)
        return Status::InvalidArgument(bad);
    }
    e.port = port;
  }
  if (host.empty() || host.find('@') != std::string_view::npos)
    return Status::InvalidArgument(bad);
  e.host = strings::Lower(host);
  if (e.scheme == "http" && !IsLoopback(e.host)) {
    return Status::InvalidArgument(
        "--endpoint: plain http is allowed only for loopback "
        "addresses (127.0.0.1, ::1, localhost); use https for \"" +
        e.host + "\"");
  }
  return e;
}

EcsClient::EcsClient(AliyunCredentials creds, std::string region, ClientOptions options)
    : creds_(std::move(creds)), region_(std::move(region)), options_(std::move(options)) {
  if (!options_.sleep) {
    options_.sleep = [](double s) {
      std::this_thread::sleep_for(std::chrono::duration<double>(s));
    };
  }
  if (!options_.utc_now)
    options_.utc_now = UtcNow;
  if (!options_.nonce)
    options_.nonce = RandomNonce;
}

Result<json> EcsClient::Call(std::string_view action, std::map<std::string, std::string> params) {
  Endpoint ep;
  if (options_.endpoint.empty()) {
    ep.scheme = "https";
    ep.host = "ecs." + region_ + ".aliyuncs.com";
  } else {
    Result<Endpoint> parsed = ParseEndpoint(options_.endpoint);
    if (!parsed.ok())
      return parsed.status();
    ep = *parsed;
  }
  params.emplace("RegionId", region_);
  const std::string act(action);
  Status last;
  for (int attempt = 1; attempt <= std::max(1, options_.max_attempts); ++attempt) {
    if (attempt > 1) {
      const double wait =
          std::min(options_.backoff_initial_s * std::pow(2.0, attempt - 2), options_.backoff_max_s);
      options_.sleep(wait);
    }
    V3Request req;
    req.method = "POST";
    req.path = "/";
    req.query = params;
    req.headers = {{"host", ep.HostHeader()},
                   {"x-acs-action", act},
                   {"x-acs-version", kEcsVersion},
                   {"x-acs-date", options_.utc_now()},
                   {"x-acs-signature-nonce", options_.nonce()}};
    SignV3(creds_, &req);
    httplib::Client http(ep.Url());
    time_t sec = 0, usec = 0;
    SplitSeconds(options_.connect_timeout_s, &sec, &usec);
    http.set_connection_timeout(sec, usec);
    SplitSeconds(options_.read_timeout_s, &sec, &usec);
    http.set_read_timeout(sec, usec);
    http.set_write_timeout(sec, usec);
    httplib::Headers headers(req.headers.begin(), req.headers.end());
    ++requests_;
    httplib::Result res = http.Post("/?" + CanonicalQuery(req.query), headers, std::string(),
                                    "application/x-www-form-urlencoded");
    if (!res) {
      last = Status::Unavailable(fmt::format("{}: {} failed: {} (attempt {} of {})", act, ep.Url(),
                                             httplib::to_string(res.error()), attempt,
                                             options_.max_attempts));
      continue;
    }
    json body = json::parse(res->body, nullptr, /*allow_exceptions=*/false);
    if (res->status == 200) {
      if (body.is_discarded() || !body.is_object()) {
        return Status::Unavailable(
            fmt::format("{}: malformed JSON in the response from {} (HTTP 200, {} bytes)", act,
                        ep.Url(), res->body.size()));
      }
      return body;
    }
    const bool is_obj = !body.is_discarded() && body.is_object();
    const std::string code = is_obj ? JsonString(body, "Code") : "";
    const std::string message = is_obj ? JsonString(body, "Message") : "";
    const std::string request_id = is_obj ? JsonString(body, "RequestId") : "";
    const std::string what = fmt::format(
        "{}: {}{}{} (HTTP {}{})", act, code.empty() ? "error" : code, message.empty() ? "" : ": ",
        message, res->status, request_id.empty() ? "" : ", RequestId " + request_id);
    if (IsThrottling(res->status, code) || res->status >= 500) {
      last = Status::Unavailable(
          fmt::format("{} (attempt {} of {})", what, attempt, options_.max_attempts));
      continue;
    }
    return Status::InvalidArgument(what);
  }
  return Status::Unavailable(last.message() + "; giving up");
}

Result<std::vector<json>> EcsClient::CallAllPages(
    std::string_view action, const std::map<std::string, std::string>& params) {
  std::vector<json> pages;
  std::map<std::string, std::string> p = params;
  std::string token;
  long offset = 0;
  for (int page = 0; page < options_.max_pages; ++page) {
    Result<json> body = Call(action, p);
    if (!body.ok())
      return body.status();
    pages.push_back(*body);
    const json& b = pages.back();
    if (std::string next = JsonString(b, "NextToken"); !next.empty() && next != token) {
      token = next;
      p["NextToken"] = next;
      continue;
    }
    long next_offset = 0;
    if (auto it = b.find("NextOffset"); it != b.end()) {
      if (it->is_number_integer())
        next_offset = it->get<long>();
      if (it->is_string())
        next_offset = std::atol(it->get<std::string>().c_str());
    }
    if (next_offset > offset) {
      offset = next_offset;
      p["Offset"] = std::to_string(next_offset);
      continue;
    }
    return pages;
  }
  return Status::Unavailable(
      fmt::format("{}: paging did not end after {} pages", action, options_.max_pages));
}

namespace {

// Which catalog types are offered in the region (one unfiltered call: absence then means "not
// sold"), into `out`'s stock; returns their names.
Result<std::set<std::string>> FetchStock(EcsClient& client, const RefreshRequest& request,
                                         const Catalog& catalog, const ImportContext& ctx,
                                         PriceCache* out, RefreshReport* rep) {
  Result<json> stock =
      client.Call("DescribeAvailableResource",
                  {{"DestinationResource", "InstanceType"}, {"InstanceChargeType", "PostPaid"}});
  if (!stock.ok())
    return stock.status();
  Result<PriceCache> stock_rows = ParseAliyunJson(*stock, "DescribeAvailableResource", ctx);
  if (!stock_rows.ok())
    return stock_rows.status();
  std::set<std::string> offered;
  for (const cost::StockRecord& s : stock_rows->market.stock) {
    const InstanceType* t = catalog.FindInstance(s.instance);
    if (!t)
      continue;  // keep the cache to types gpuplan can plan with
    cost::StockRecord copy = s;
    copy.instance = t->name;
    offered.insert(t->name);
    out->market.stock.push_back(std::move(copy));
  }
  out->market.complete_stock_regions.push_back(request.region);
  rep->stock_records = static_cast<int>(out->market.stock.size());
  return offered;
}

// The types to price: those asked for (in the catalog's spelling where known), else every type
// offered in the region.
std::vector<std::string> TypesToPrice(const RefreshRequest& request, const Catalog& catalog,
                                      const std::set<std::string>& offered) {
  if (request.types.empty())
    return {offered.begin(), offered.end()};
  std::vector<std::string> types;
  for (const std::string& t : request.types) {
    const InstanceType* known = catalog.FindInstance(t);
    types.push_back(known ? known->name : t);
  }
  return types;
}

// A type-specific API error (unknown type, not sold here) is a warning; anything else stops the
// refresh.
bool IsTypeSpecific(const Status& s) { return s.code() == ErrorCode::kInvalidArgument; }

// One type's list prices: PAYG hour and, with subscriptions, 1 month and 1 year.
Status FetchListPrices(EcsClient& client, const RefreshRequest& request, const std::string& type,
                       const ImportContext& ctx, PriceCache* out, RefreshReport* rep) {
  struct Quote {
    const char* unit;
    const char* what;
  };
  std::vector<Quote> quotes = {{"Hour", "PAYG"}};
  if (request.subscription) {
    quotes.push_back({"Month", "1-month subscription"});
    quotes.push_back({"Year", "1-year subscription"});
  }
  bool priced = false;
  for (const Quote& q : quotes) {
    std::map<std::string, std::string> params = {{"ResourceType", "instance"},
                                                 {"InstanceType", type},
                                                 {"PriceUnit", q.unit},
                                                 {"Period", "1"},
                                                 {"SystemDisk.Category", "cloud_essd"}};
    Result<json> body = client.Call("DescribePrice", params);
    if (!body.ok()) {
      if (!IsTypeSpecific(body.status()))
        return body.status();
      rep->warnings.push_back(fmt::format("{} {}: {}", type, q.what, body.status().message()));
      continue;
    }
    ImportContext pctx = ctx;
    pctx.instance = type;
    pctx.price_unit = q.unit;
    Result<PriceCache> rows = ParseAliyunJson(*body, "DescribePrice " + type, pctx);
    if (!rows.ok())
      return rows.status();
    MergePriceCache(*rows, out);
    priced = true;
  }
  if (priced)
    ++rep->types_priced;
  return Status::Ok();
}

// One type's spot prices per zone (last 3 hours by default), following NextOffset.
Status FetchSpotPrices(EcsClient& client, const std::string& type, const ImportContext& ctx,
                       PriceCache* out, RefreshReport* rep) {
  Result<std::vector<json>> pages =
      client.CallAllPages("DescribeSpotPriceHistory",
                          {{"NetworkType", "vpc"}, {"InstanceType", type}, {"OSType", "linux"}});
  if (!pages.ok()) {
    if (!IsTypeSpecific(pages.status()))
      return pages.status();
    rep->warnings.push_back(type + " spot: " + pages.status().message());
    return Status::Ok();
  }
  for (const json& page : *pages) {
    Result<PriceCache> rows = ParseAliyunJson(page, "DescribeSpotPriceHistory " + type, ctx);
    if (!rows.ok())
      return rows.status();
    for (const Price& p : rows->prices)
      rep->spot_prices += p.billing == Billing::kSpot ? 1 : 0;
    MergePriceCache(*rows, out);
  }
  return Status::Ok();
}

// Spot advice (30-day release rate and discount), 10 types per call.
Status FetchSpotAdvice(EcsClient& client, const std::vector<std::string>& types,
                       const ImportContext& ctx, PriceCache* out, RefreshReport* rep) {
  for (size_t i = 0; i < types.size(); i += 10) {
    std::map<std::string, std::string> params;
    for (size_t j = i; j < std::min(types.size(), i + 10); ++j) {
      params["InstanceTypes." + std::to_string(j - i + 1)] = types[j];
    }
    Result<json> body = client.Call("DescribeSpotAdvice", params);
    if (!body.ok()) {
      if (!IsTypeSpecific(body.status()))
        return body.status();
      rep->warnings.push_back("spot advice: " + body.status().message());
      continue;
    }
    Result<PriceCache> rows = ParseAliyunJson(*body, "DescribeSpotAdvice", ctx);
    if (!rows.ok())
      return rows.status();
    rep->advice_records += static_cast<int>(rows->market.spot_advice.size());
    MergePriceCache(*rows, out);
  }
  return Status::Ok();
}

// Keeps only rows for catalog types, in the catalog's spelling.
void KeepCatalogTypes(const Catalog& catalog, PriceCache* out) {
  std::erase_if(out->prices, [&](Price& p) {
    const InstanceType* t = catalog.FindInstance(p.instance);
    if (t)
      p.instance = t->name;
    return t == nullptr;
  });
  for (cost::SpotAdvice& a : out->market.spot_advice) {
    if (const InstanceType* t = catalog.FindInstance(a.instance))
      a.instance = t->name;
  }
}

}  // namespace

Result<PriceCache> FetchRegion(EcsClient& client, const RefreshRequest& request,
                               const Catalog& catalog, RefreshReport* report) {
  RefreshReport local;
  RefreshReport* rep = report ? report : &local;
  ImportContext ctx;
  ctx.as_of = request.today;
  ctx.origin = PriceSource::kApi;
  ctx.region = request.region;
  PriceCache out;
  Result<std::set<std::string>> offered = FetchStock(client, request, catalog, ctx, &out, rep);
  if (!offered.ok())
    return offered.status();
  const std::vector<std::string> types = TypesToPrice(request, catalog, *offered);
  for (const std::string& type : types) {
    if (Status s = FetchListPrices(client, request, type, ctx, &out, rep); !s.ok())
      return s;
    if (Status s = FetchSpotPrices(client, type, ctx, &out, rep); !s.ok())
      return s;
  }
  if (Status s = FetchSpotAdvice(client, types, ctx, &out, rep); !s.ok())
    return s;
  KeepCatalogTypes(catalog, &out);
  return out;
}

}  // namespace gpuplan::net
