// Cost of one perf::EstimateRun call: the planner calls it for every instance type x node
// count x layout it considers, so it must stay in microseconds.
#include <benchmark/benchmark.h>

#include "gpuplan/estimate.h"
#include "io/calibration_csv.h"
#include "io/catalog_loader.h"
#include "io/model_zoo.h"

namespace gpuplan {
namespace {

struct Fixture {
  Catalog catalog;
  ModelZoo zoo;
  Calibration cal;
  Fixture() {
    catalog = *io::LoadCatalog("");
    catalog.Validate();
    zoo = *io::LoadModelZoo();
    cal = *io::LoadCalibration();
  }
};

const Fixture& Data() {
  static const Fixture* f = new Fixture();
  return *f;
}

void BM_EstimateTraining70B(benchmark::State& state) {
  const Fixture& f = Data();
  Workload w;
  w.task = Task::kPretrain;
  w.seq_len = 4096;
  w.global_batch = 1024;
  w.tokens = 1e12;
  const ModelArch& arch = *f.zoo.Find("llama-2-70b");
  const perf::Hardware hw = perf::HardwareFor(*f.catalog.FindGpu("H100-80G-SXM"), 64, 8);
  perf::Layout l;
  l.tp = 8;
  l.pp = 2;
  l.dp = 4;
  l.zero = 1;
  l.recompute = Recompute::kSelective;
  l.sequence_parallel = true;
  for (auto _ : state) {
    Result<perf::Estimate> e = perf::EstimateRun(w, arch, hw, l, f.cal);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_EstimateTraining70B);

void BM_EstimateInference7B(benchmark::State& state) {
  const Fixture& f = Data();
  Workload w;
  w.task = Task::kInference;
  w.inference.prompt_tokens = 1000;
  w.inference.output_tokens = 300;
  w.inference.batch = 16;
  const ModelArch& arch = *f.zoo.Find("qwen2.5-7b");
  const perf::Hardware hw = perf::HardwareFor(*f.catalog.FindGpu("A10"), 1, 1);
  for (auto _ : state) {
    Result<perf::Estimate> e = perf::EstimateRun(w, arch, hw, perf::Layout{}, f.cal);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_EstimateInference7B);

// The micro-batch search the planner runs per layout (a binary search over EstimateRun).
void BM_MaxMicroBatch7BLora(benchmark::State& state) {
  const Fixture& f = Data();
  Workload w;
  w.task = Task::kFinetune;
  w.method = Method::kLora;
  w.seq_len = 2048;
  w.global_batch = 256;
  const ModelArch& arch = *f.zoo.Find("llama-2-7b");
  const perf::Hardware hw = perf::HardwareFor(*f.catalog.FindGpu("A10"), 1, 1);
  perf::Layout l;
  l.recompute = Recompute::kFull;  // fits micro-batches 1..~8 on a 24 GB A10: a real search
  for (auto _ : state) {
    benchmark::DoNotOptimize(perf::MaxMicroBatch(w, arch, hw, l, f.cal, 256));
  }
  state.counters["max_micro_batch"] = perf::MaxMicroBatch(w, arch, hw, l, f.cal, 256);
}
BENCHMARK(BM_MaxMicroBatch7BLora);

}  // namespace
}  // namespace gpuplan
