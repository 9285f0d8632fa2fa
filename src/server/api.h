// The HTTP JSON API of `gpuplan serve` as one pure function from a request to a response, so
// the socket layer (server/http_server.h), the tests and the fuzzer all drive the same code.
//
//   GET  /                      the web page (server/web_page.h)
//   GET  /healthz               {"ok": true, "catalog": {counts}, "version"}
//   POST /v1/plan               body: a workload (JSON or YAML); ?top=N&region=R&objective=O
//                               -> exactly what `gpuplan plan --json` prints
//   POST /v1/explain            body: a workload; ?instance=TYPE[&region=R&objective=O]
//                               -> exactly what `gpuplan explain TYPE --json` prints
//   POST /v1/deploy             body: a workload; ?rank=N[&region=R&objective=O]
//                               -> {"rank", "instance", "files": {name: contents}}: the files
//                                  `gpuplan deploy --rank N` writes
//   POST /v1/estimate           body: a workload; ?gpu=&gpus=&gpus_per_node= | ?instance=&nodes=
//                               [&tp=&pp=&dp=&zero=&micro_batch=&sequence_parallel=
//                                &inter_node_gbps=]
//                               -> exactly what `gpuplan estimate --json` prints
//   GET  /v1/catalog/gpus       ?min_gpu_memory=&alibaba=     (gpuplan catalog gpus --json)
//   GET  /v1/catalog/instances  ?gpu=&min_gpu_memory=&min_gpus=&rdma=&family=&status=&region=
//   GET  /v1/catalog/families                                 (gpuplan catalog families --json)
//   GET  /v1/catalog/models                        (gpuplan estimate --list-models --json)
//
// Errors are {"error": {"message": "...", "field": "..."?, "line": N?, "column": N?}} with 400
// (bad request: body, field or parameter), 404 (no such path), 405 (path exists, other method;
// an Allow header lists the methods), 413 (body over ServerData::max_body_bytes) or 500 (a bug).
//
// Thread safety: Handle only reads `data` (the core is pure and every request works on its own
// copies), so any number of threads may call it at once on one shared const ServerData.
#ifndef GPUPLAN_SRC_SERVER_API_H_
#define GPUPLAN_SRC_SERVER_API_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuplan/calibration.h"
#include "gpuplan/catalog.h"
#include "gpuplan/model.h"
#include "gpuplan/plan.h"

namespace gpuplan::server {

// Everything the API reads, loaded once when the server starts and never modified while it
// serves (the CLI's `serve` builds it the way `plan` and `estimate` load theirs).
struct ServerData {
  Catalog catalog;  // validated, with the price cache applied
  ModelZoo zoo;
  Calibration calibration;
  // Price ratios and cached market data for the planner; top_n and today are set per request.
  planner::PlanOptions plan_options;
  // Today's date "YYYY-MM-DD" for price ages, asked per request so a long-running server does
  // not age its prices from its start date; empty = plan_options.today. Must be thread-safe.
  std::function<std::string()> today;
  std::string version = "0.1.0";
  size_t max_body_bytes = 1 << 20;  // larger bodies get 413
};

using Params = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string path;    // without the query string
  Params params;       // query parameters, decoded, in order
  std::string body;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json; charset=utf-8";
  std::string body;
  Params headers;  // extra headers, e.g. Allow on 405
};

// Answers `req`. Never throws: a bug becomes a 500 with the message.
Response Handle(const ServerData& data, const Request& req);

// {"error": {"message": message, "field": field (when not empty)}} with `status`.
Response ErrorResponse(int status, std::string_view message, std::string_view field = "");

}  // namespace gpuplan::server

#endif  // GPUPLAN_SRC_SERVER_API_H_
