// The layout search on the reference case, next to Calculon's numbers: GPT-3 175B
// pre-training (seq 2048, global batch 1536) on 64 A100-80G, 8 per node, 200 Gbit/s RDMA
// between nodes. Prints the configurations the search covers, how many it estimates, and the
// best step time found.
#include <benchmark/benchmark.h>

#include "gpuplan/layout_search.h"
#include "io/calibration_csv.h"
#include "io/catalog_loader.h"
#include "io/model_zoo.h"

namespace gpuplan {
namespace {

void BM_LayoutSearchGpt3On64A100(benchmark::State& state) {
  const Catalog catalog = *io::LoadCatalog("");
  const ModelZoo zoo = *io::LoadModelZoo();
  const Calibration cal = *io::LoadCalibration();
  Workload w;
  w.task = Task::kPretrain;
  w.seq_len = 2048;
  w.global_batch = 1536;
  const ModelArch& arch = *zoo.Find("gpt3-175b");
  perf::Hardware hw = perf::HardwareFor(*catalog.FindGpu("A100-80G-SXM"), 64, 8);
  hw.inter_node_gbps = 200;
  perf::LayoutSearch s;
  for (auto _ : state) {
    s = perf::SearchLayout(w, arch, hw, cal);
    benchmark::DoNotOptimize(s);
  }
  state.counters["configurations"] = static_cast<double>(s.configurations);
  state.counters["structures"] = static_cast<double>(s.structures);
  state.counters["estimated"] = static_cast<double>(s.evaluated);
  state.counters["explored"] = static_cast<double>(s.explored);
  state.counters["best_step_s"] = s.estimate.time.step_s;
  state.counters["mfu"] = s.estimate.throughput.mfu;
  state.SetLabel(perf::DescribeLayout(s.layout));
}
BENCHMARK(BM_LayoutSearchGpt3On64A100)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpuplan
