// Full search of the embedded catalog, the planner's performance target (issue 4: a 70B
// pre-training job in tens of milliseconds). Run: make bench.
#include <benchmark/benchmark.h>

#include "gpuplan/plan.h"
#include "io/calibration_csv.h"
#include "io/catalog_loader.h"
#include "io/model_zoo.h"
#include "io/workload_yaml.h"

namespace gpuplan {
namespace {

struct Inputs {
  Catalog catalog;
  ModelZoo zoo;
  Calibration cal;
  bool ok = false;
};

const Inputs& Load() {
  static const Inputs* in = [] {
    auto* x = new Inputs;
    auto catalog = io::LoadCatalog("");
    auto zoo = io::LoadModelZoo();
    auto cal = io::LoadCalibration();
    if (!catalog.ok() || !zoo.ok() || !cal.ok())
      return x;  // ok() stays false; reported below
    x->catalog = *catalog;
    (void)x->catalog.Validate();
    x->zoo = *zoo;
    x->cal = *cal;
    x->ok = true;
    return x;
  }();
  return *in;
}

void PlanWorkload(benchmark::State& state, const char* yaml) {
  const Inputs& in = Load();
  Result<Workload> parsed = io::ParseWorkloadYaml(yaml, "bench.yaml");
  if (!in.ok || !parsed.ok()) {
    state.SkipWithError("embedded data or workload failed to load");
    return;
  }
  const Workload& w = *parsed;
  Result<ModelArch> resolved = planner::PlanModel(w, in.zoo);
  if (!resolved.ok()) {
    state.SkipWithError(resolved.status().message().c_str());
    return;
  }
  const ModelArch& arch = *resolved;
  planner::PlanOptions options;
  options.today = "2026-11-30";
  int evaluated = 0;
  size_t candidates = 0;
  for (auto _ : state) {
    Result<planner::Plan> plan = planner::MakePlan(w, arch, in.catalog, in.cal, options);
    if (!plan.ok()) {
      state.SkipWithError(plan.status().message().c_str());
      return;
    }
    evaluated = plan->evaluated;
    candidates = plan->candidates.size();
    benchmark::DoNotOptimize(plan);
  }
  state.counters["model_evaluations"] = evaluated;
  state.counters["candidates"] = static_cast<double>(candidates);
}

void BM_Plan70bPretrainFullCatalog(benchmark::State& state) {
  PlanWorkload(state, R"(task: pretrain
model: llama-2-70b
precision: bf16
seq_len: 4096
global_batch: 1024
tokens: 20B
constraints: {max_nodes: 16, billing: [payg, spot]}
objective: time
)");
}
BENCHMARK(BM_Plan70bPretrainFullCatalog)->Unit(benchmark::kMillisecond);

void BM_Plan7bLoraFullCatalog(benchmark::State& state) {
  PlanWorkload(state, R"(task: finetune
method: lora
model: llama-2-7b
precision: bf16
seq_len: 2048
global_batch: 32
tokens: 100M
constraints: {billing: [payg, spot]}
)");
}
BENCHMARK(BM_Plan7bLoraFullCatalog)->Unit(benchmark::kMillisecond);

// A 24-hour fleet over the full catalog (issue 25's target: under 50 ms of CPU on one core): the
// serving search per hardware, then per type and region a base chosen over every size.
void BM_PlanDayAndNightFleetFullCatalog(benchmark::State& state) {
  PlanWorkload(state, R"(task: inference
model: qwen2.5-32b
inference:
  traffic: {base_rps: 2, peak_rps: 30, peak_hours: "19-22", timezone: Asia/Shanghai}
)");
}
BENCHMARK(BM_PlanDayAndNightFleetFullCatalog)->Unit(benchmark::kMillisecond);

// The MoE service of issue 25: expert parallelism and every batch in the serving search.
void BM_PlanQwen3MoeServiceFullCatalog(benchmark::State& state) {
  PlanWorkload(state, R"(task: inference
model: qwen3-235b-a22b
inference: {requests_per_s: 8, prompt_tokens: 2048, output_tokens: 512, ttft_ms: 2000}
)");
}
BENCHMARK(BM_PlanQwen3MoeServiceFullCatalog)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpuplan
