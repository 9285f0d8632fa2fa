// A client for the ECS instance metadata service (http://100.100.100.200 on Alibaba Cloud).
//
// Plain GETs first; when the service answers 401 or 403 (hardened mode, "security hardening
// mode" in the ECS docs), it gets a token with `PUT /latest/api/token` and header
// `X-aliyun-ecs-metadata-token-ttl-seconds`, then repeats the GET with header
// `X-aliyun-ecs-metadata-token` and keeps using the token until shortly before it expires
// (reference notes §3.2, source S13). Every request has a connect and a read timeout, and a
// reply body is capped, so a slow, down or babbling service can delay the caller by at most
// about two timeouts per call and never exhaust memory.
//
//   auto client = MetadataClient::Create({.base_url = "http://127.0.0.1:8080"});
//   MetadataReply r = (*client)->Get("/latest/meta-data/instance/instance-type");
//   if (r.kind == MetadataReply::Kind::kOk) Use(r.body);
//
// Thread safety: not thread-safe (it caches the token); use one per thread.
#ifndef GPUPLAN_SRC_AGENT_METADATA_CLIENT_H_
#define GPUPLAN_SRC_AGENT_METADATA_CLIENT_H_

#include <memory>
#include <string>
#include <string_view>

#include "gpuplan/status.h"

namespace gpuplan::agent {

class Clock;

inline constexpr std::string_view kDefaultMetadataUrl = "http://100.100.100.200";

struct MetadataOptions {
  // Base URL of the service: scheme, host, optional port and path prefix; no query.
  std::string base_url = std::string(kDefaultMetadataUrl);
  // Connect timeout and read timeout of each request, in seconds. The service is link-local, so
  // a healthy one answers in milliseconds; 2 s tolerates a busy host without stalling a watcher.
  double timeout_seconds = 2.0;
  // Lifetime requested for a hardened-mode token (the ECS docs allow 1 to 21600 s).
  int token_ttl_seconds = 21600;
};

struct MetadataReply {
  enum class Kind {
    kOk,           // 2xx; `body` holds the reply
    kNotFound,     // 404: the item does not exist (for termination-time: no notice)
    kHttpError,    // another status, or 401/403 even with a token; see http_status and error
    kUnreachable,  // no HTTP answer: refused, timed out, reset, reply too large
  };
  Kind kind = Kind::kUnreachable;
  int http_status = 0;  // 0 when there was no HTTP answer
  std::string body;
  std::string error;        // why, for every kind but kOk
  bool used_token = false;  // the final request carried a hardened-mode token
};

// "ok", "not-found", "http-error", "unreachable".
std::string_view MetadataReplyKindName(MetadataReply::Kind kind);

class MetadataClient {
 public:
  // Validates `options.base_url` (http://, a host, an optional port 1-65535; no TLS: the
  // service is plain HTTP).
  // `clock` times token expiry; nullptr uses the system clock. Returns kInvalidArgument naming
  // the URL and the expected form.
  static Result<std::unique_ptr<MetadataClient>> Create(const MetadataOptions& options,
                                                        Clock* clock = nullptr);
  ~MetadataClient();
  MetadataClient(const MetadataClient&) = delete;
  MetadataClient& operator=(const MetadataClient&) = delete;

  // GETs base path + `path` (which starts with '/'). Never throws.
  MetadataReply Get(std::string_view path);

  // The largest reply body kept; longer replies are reported as kUnreachable.
  static constexpr size_t kMaxBodyBytes = size_t{64} * 1024;

 private:
  struct Impl;
  explicit MetadataClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_METADATA_CLIENT_H_
