#include "agent/metadata_client.h"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <exception>
#include <utility>

#include "agent/clock.h"
#include "gpuplan/enum_names.h"

namespace gpuplan::agent {
namespace {

constexpr const char* kTokenPath = "/latest/api/token";
constexpr const char* kTokenTtlHeader = "X-aliyun-ecs-metadata-token-ttl-seconds";
constexpr const char* kTokenHeader = "X-aliyun-ecs-metadata-token";
// A token is renewed this long before its requested expiry, so a request never carries one the
// service has just dropped.
constexpr double kTokenRenewMarginSeconds = 60;

struct ParsedUrl {
  std::string scheme_host_port;  // "http://127.0.0.1:8080"
  std::string prefix;            // "" or "/base" (no trailing slash)
};

Result<ParsedUrl> ParseBaseUrl(const std::string& url) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(
        fmt::format("--metadata-url \"{}\": {}; expected http://HOST[:PORT][/PATH], e.g. {}", url,
                    why, kDefaultMetadataUrl));
  };
  std::string_view rest = url;
  std::string scheme;
  if (rest.substr(0, 7) == "http://") {
    scheme = "http://";
  } else if (rest.substr(0, 8) == "https://") {
    scheme = "https://";
  } else {
    return bad("the scheme must be http:// or https://");
  }
  rest.remove_prefix(scheme.size());
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  if (path.find_first_of("?#") != std::string_view::npos)
    return bad("no query or fragment");
  while (!path.empty() && path.back() == '/')
    path.remove_suffix(1);
  std::string_view host = authority;
  if (const size_t colon = authority.rfind(':');
      colon != std::string_view::npos && authority.find(']') == std::string_view::npos) {
    host = authority.substr(0, colon);
    std::string_view port = authority.substr(colon + 1);
    int value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value < 1 || value > 65535) {
      return bad("the port must be a number from 1 to 65535");
    }
  }
  if (host.empty())
    return bad("no host");
  for (char ch : authority) {
    const auto u = static_cast<unsigned char>(ch);
    if (u <= 0x20 || u >= 0x7f || ch == '@')
      return bad("unexpected character in the host");
  }
  ParsedUrl out;
  out.scheme_host_port = scheme + std::string(authority);
  out.prefix = std::string(path);
  return out;
}

time_t WholeSeconds(double s) { return static_cast<time_t>(std::floor(s)); }
time_t Micros(double s) { return static_cast<time_t>((s - std::floor(s)) * 1e6); }

}  // namespace

constexpr EnumNames<MetadataReply::Kind, 4> kMetadataReplyKindNames = {
    {{MetadataReply::Kind::kOk, "ok"},
     {MetadataReply::Kind::kNotFound, "not-found"},
     {MetadataReply::Kind::kHttpError, "http-error"},
     {MetadataReply::Kind::kUnreachable, "unreachable"}}};
std::string_view MetadataReplyKindName(MetadataReply::Kind kind) {
  return NameOf(kMetadataReplyKindNames, kind);
}

struct MetadataClient::Impl {
  MetadataOptions options;
  ParsedUrl url;
  Clock* clock = nullptr;
  SystemClock system_clock;
  std::unique_ptr<httplib::Client> http;
  std::string token;
  double token_renew_at = 0;  // monotonic seconds

  void Configure() {
    http = std::make_unique<httplib::Client>(url.scheme_host_port);
    const double t = options.timeout_seconds;
    http->set_connection_timeout(WholeSeconds(t), Micros(t));
    http->set_read_timeout(WholeSeconds(t), Micros(t));
    http->set_write_timeout(WholeSeconds(t), Micros(t));
    http->set_keep_alive(false);
    http->set_follow_location(false);
  }

  // One GET with the given headers; the body is capped at kMaxBodyBytes.
  MetadataReply Fetch(const std::string& path, const httplib::Headers& headers) {
    MetadataReply reply;
    std::string body;
    bool too_large = false;
    auto receiver = [&](const char* data, size_t n) {
      if (body.size() + n > kMaxBodyBytes) {
        too_large = true;
        return false;
      }
      body.append(data, n);
      return true;
    };
    httplib::Result r = http->Get(url.prefix + path, headers, receiver);
    if (too_large) {
      reply.error = fmt::format("reply larger than {} bytes", kMaxBodyBytes);
      return reply;
    }
    if (!r) {
      reply.error =
          fmt::format("no reply from {}: {}", url.scheme_host_port, httplib::to_string(r.error()));
      return reply;
    }
    reply.http_status = r->status;
    reply.body = std::move(body);
    if (r->status >= 200 && r->status < 300) {
      reply.kind = MetadataReply::Kind::kOk;
    } else if (r->status == 404) {
      reply.kind = MetadataReply::Kind::kNotFound;
      reply.error =
          fmt::format("HTTP 404 (no such item) from {}{}", url.scheme_host_port, url.prefix + path);
    } else {
      reply.kind = MetadataReply::Kind::kHttpError;
      reply.error =
          fmt::format("HTTP {} from {}{}", r->status, url.scheme_host_port, url.prefix + path);
    }
    return reply;
  }

  // Gets a hardened-mode token; empty with `*error` set when the service gives none.
  std::string FetchToken(std::string* error) {
    httplib::Headers headers = {{kTokenTtlHeader, std::to_string(options.token_ttl_seconds)}};
    httplib::Result r = http->Put(url.prefix + kTokenPath, headers, "", "text/plain");
    if (!r) {
      *error = fmt::format("token request: no reply: {}", httplib::to_string(r.error()));
      return "";
    }
    if (r->status != 200) {
      *error = fmt::format("token request: HTTP {}", r->status);
      return "";
    }
    std::string t = r->body;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' '))
      t.pop_back();
    // A token goes into a header: refuse one that could split it or is absurdly long.
    if (t.empty() || t.size() > 4096 || t.find_first_of("\r\n") != std::string::npos) {
      *error = "token request: the reply is not a usable token";
      return "";
    }
    return t;
  }

  MetadataReply Get(const std::string& path) {
    const double now = clock->MonotonicSeconds();
    if (!token.empty() && now < token_renew_at) {
      MetadataReply r = Fetch(path, {{kTokenHeader, token}});
      r.used_token = true;
      if (r.http_status != 401 && r.http_status != 403)
        return r;
      token.clear();  // expired or revoked: get a new one below
    } else {
      MetadataReply r = Fetch(path, {});
      if (r.http_status != 401 && r.http_status != 403)
        return r;
    }
    std::string error;
    token = FetchToken(&error);
    if (token.empty()) {
      MetadataReply r;
      r.kind = MetadataReply::Kind::kHttpError;
      r.http_status = 401;
      r.error = "the service wants a hardened-mode token; " + error;
      return r;
    }
    token_renew_at = now + std::max(0.0, options.token_ttl_seconds - kTokenRenewMarginSeconds);
    MetadataReply r = Fetch(path, {{kTokenHeader, token}});
    r.used_token = true;
    return r;
  }
};

MetadataClient::MetadataClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MetadataClient::~MetadataClient() = default;

Result<std::unique_ptr<MetadataClient>> MetadataClient::Create(const MetadataOptions& options,
                                                               Clock* clock) {
  Result<ParsedUrl> url = ParseBaseUrl(options.base_url);
  if (!url.ok())
    return url.status();
  if (!(options.timeout_seconds > 0) || options.timeout_seconds > 600) {
    return Status::InvalidArgument(
        fmt::format("metadata timeout {} s: expected more than 0 and at most 600 seconds",
                    options.timeout_seconds));
  }
  if (options.token_ttl_seconds < 1 || options.token_ttl_seconds > 21600) {
    return Status::InvalidArgument("metadata token TTL: expected 1 to 21600 seconds");
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->url = std::move(*url);
  impl->clock = clock ? clock : &impl->system_clock;
  try {
    impl->Configure();
  } catch (const std::exception& e) {
    return Status::InvalidArgument(
        fmt::format("--metadata-url \"{}\": {}", options.base_url, e.what()));
  }
  return std::unique_ptr<MetadataClient>(new MetadataClient(std::move(impl)));
}

MetadataReply MetadataClient::Get(std::string_view path) {
  try {
    return impl_->Get(std::string(path));
  } catch (const std::exception& e) {
    MetadataReply r;
    r.error = std::string("metadata request failed: ") + e.what();
    return r;
  }
}

}  // namespace gpuplan::agent
