// libFuzzer target: the HTTP API's handler (server::Handle, the function the socket layer
// calls) must answer any /v1/plan or /v1/estimate body with a JSON response and a status the
// API documents, never crash, hang or throw. The first byte picks the endpoint and query.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "gpuplan/status.h"
#include "io/calibration_csv.h"
#include "io/catalog_loader.h"
#include "io/model_zoo.h"
#include "server/api.h"

namespace {

const gpuplan::server::ServerData& Data() {
  static const gpuplan::server::ServerData* data = [] {
    auto* d = new gpuplan::server::ServerData;
    gpuplan::Result<gpuplan::Catalog> catalog = gpuplan::io::LoadCatalog("");
    gpuplan::Result<gpuplan::ModelZoo> zoo = gpuplan::io::LoadModelZoo();
    gpuplan::Result<gpuplan::Calibration> cal = gpuplan::io::LoadCalibration();
    if (!catalog.ok() || !zoo.ok() || !cal.ok())
      __builtin_trap();
    d->catalog = std::move(*catalog);
    d->zoo = std::move(*zoo);
    d->calibration = std::move(*cal);
    d->plan_options.today = "2026-11-30";
    d->max_body_bytes = 4096;  // keep each run fast; the limit path is exercised too
    return d;
  }();
  return *data;
}

struct Target {
  const char* path;
  gpuplan::server::Params params;
};

const Target kTargets[] = {
    {"/v1/plan", {}},
    {"/v1/plan", {{"top", "3"}, {"objective", "time"}}},
    {"/v1/plan", {{"region", "cn-hangzhou"}}},
    {"/v1/estimate", {{"gpu", "A100-80G-SXM"}, {"gpus", "8"}}},
    {"/v1/estimate", {{"instance", "ecs.gn7i-c8g1.2xlarge"}, {"nodes", "2"}}},
    {"/v1/estimate", {{"gpu", "A10"}, {"gpus", "4"}, {"tp", "2"}, {"zero", "3"}}},
    {"/v1/estimate", {}},
    {"/v1/plan", {{"top", "0"}}},
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  if (size == 0)
    return 0;
  const Target& t = kTargets[bytes[0] % (sizeof kTargets / sizeof kTargets[0])];
  gpuplan::server::Request req;
  req.method = "POST";
  req.path = t.path;
  req.params = t.params;
  req.body.assign(reinterpret_cast<const char*>(bytes + 1), size - 1);
  const gpuplan::server::Response r = gpuplan::server::Handle(Data(), req);
  // Any input: a documented status, a JSON body, and an error object on every error. A 500 is
  // a bug in gpuplan, so it fails too.
  if (r.status != 200 && r.status != 400 && r.status != 413)
    __builtin_trap();
  const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    __builtin_trap();
  if (r.status != 200 && !(j.contains("error") && j["error"]["message"].is_string())) {
    __builtin_trap();
  }
  return 0;
}
