#include "agent/metadata_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <exception>
#include <utility>
#include <vector>

#include "agent/clock.h"
#include "agent/plain_http.h"
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
  std::string scheme_host_port;  // "http://127.0.0.1:8080", for messages
  std::string host;              // "127.0.0.1"; an IPv6 address without its brackets
  int port = 80;
  std::string prefix;  // "" or "/base" (no trailing slash)
};

Result<ParsedUrl> ParseBaseUrl(const std::string& url) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(
        fmt::format("--metadata-url \"{}\": {}; expected http://HOST[:PORT][/PATH], e.g. {}", url,
                    why, kDefaultMetadataUrl));
  };
  std::string_view rest = url;
  // No TLS: the ECS metadata service is plain HTTP on a link-local address, and a TLS library
  // would be one more shared library the portable agent cannot carry.
  const std::string scheme = "http://";
  if (rest.substr(0, 8) == "https://")
    return bad(
        "https is not supported (the metadata service is plain HTTP); the scheme must be "
        "http://");
  if (rest.substr(0, 7) != scheme)
    return bad("the scheme must be http://");
  rest.remove_prefix(scheme.size());
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  if (path.find_first_of("?#") != std::string_view::npos)
    return bad("no query or fragment");
  while (!path.empty() && path.back() == '/')
    path.remove_suffix(1);
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {  // [IPv6]:port
    const size_t close = authority.find(']');
    if (close == std::string_view::npos)
      return bad("no ']' after an IPv6 address");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':')
      return bad("unexpected character after ']'");
    port = after.empty() ? "" : after.substr(1);
    if (!after.empty() && port.empty())
      return bad("the port must be a number from 1 to 65535");
  } else if (const size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (port.empty())
      return bad("the port must be a number from 1 to 65535");
  }
  int port_number = 80;
  if (!port.empty()) {
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), port_number);
    if (ec != std::errc() || end != port.data() + port.size() || port_number < 1 ||
        port_number > 65535) {
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
  out.host = std::string(host);
  out.port = port_number;
  out.prefix = std::string(path);
  return out;
}

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
  std::string token;
  double token_renew_at = 0;  // monotonic seconds

  PlainHttpReply Send(const std::string& method, const std::string& path,
                      std::vector<std::pair<std::string, std::string>> headers) {
    PlainHttpRequest request;
    request.host = url.host;
    request.port = url.port;
    request.method = method;
    request.target = url.prefix + path;
    request.headers = std::move(headers);
    request.timeout_seconds = options.timeout_seconds;
    request.max_body_bytes = kMaxBodyBytes;
    return PlainHttpExchange(request);
  }

  // One GET with the given headers; the body is capped at kMaxBodyBytes.
  MetadataReply Fetch(const std::string& path,
                      std::vector<std::pair<std::string, std::string>> headers) {
    MetadataReply reply;
    PlainHttpReply r = Send("GET", path, std::move(headers));
    if (r.too_large) {
      reply.error = fmt::format("reply larger than {} bytes", kMaxBodyBytes);
      return reply;
    }
    if (!r.answered) {
      reply.error = fmt::format("no reply from {}: {}", url.scheme_host_port, r.error);
      return reply;
    }
    reply.http_status = r.status;
    reply.body = std::move(r.body);
    if (r.status >= 200 && r.status < 300) {
      reply.kind = MetadataReply::Kind::kOk;
    } else if (r.status == 404) {
      reply.kind = MetadataReply::Kind::kNotFound;
      reply.error =
          fmt::format("HTTP 404 (no such item) from {}{}", url.scheme_host_port, url.prefix + path);
    } else {
      reply.kind = MetadataReply::Kind::kHttpError;
      reply.error =
          fmt::format("HTTP {} from {}{}", r.status, url.scheme_host_port, url.prefix + path);
    }
    return reply;
  }

  // Gets a hardened-mode token; empty with `*error` set when the service gives none.
  std::string FetchToken(std::string* error) {
    PlainHttpReply r =
        Send("PUT", kTokenPath, {{kTokenTtlHeader, std::to_string(options.token_ttl_seconds)}});
    if (!r.answered) {
      *error =
          fmt::format("token request: no reply: {}", r.too_large ? "reply too large" : r.error);
      return "";
    }
    if (r.status != 200) {
      *error = fmt::format("token request: HTTP {}", r.status);
      return "";
    }
    std::string t = r.body;
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
