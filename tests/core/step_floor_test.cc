// The step floor (StepFloorSeconds) the planner rules hardware out on before any search: never
// above the step of any layout the estimator times, fitting or not, and close enough to the best
// layout to rule something out.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuplan/layout_search.h"
#include "perf/layout_search_cutoff.h"
#include "testing/embedded_calibration.h"
#include "testing/layout_cases.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::perf {
namespace {

using testing::A100;
using testing::H100;
using testing::LayoutCase;
using testing::Llama;
using testing::SmallLayoutCases;
using testing::Training;

TEST(StepFloorTest, BoundsTheBestLayoutOfEverySmallCase) {
  const Calibration& cal = testing::EmbeddedCalibration();
  for (const LayoutCase& c : SmallLayoutCases()) {
    SCOPED_TRACE(c.name);
    const Hardware hw = c.Hardware();
    const LayoutSearch all = ExhaustiveLayoutSearch(c.w, c.arch, hw, cal);
    ASSERT_TRUE(all.ok) << all.reason;
    const double floor = StepFloorSeconds(c.w, c.arch, hw, cal);
    EXPECT_GT(floor, 0);
    EXPECT_LE(floor, all.estimate.time.step_s) << DescribeLayout(all.layout);
    // Compute dominates these steps: a floor under a fifth of the best would rule nothing out.
    EXPECT_GT(floor, 0.2 * all.estimate.time.step_s) << DescribeLayout(all.layout);
  }
}

// Qwen/Qwen3-30B-A3B's config.json (tests/core/model_test.cc): 128 experts, top 8.
ModelArch Qwen3_30B_A3B() {
  ModelArch m = Llama(48, 2048, 32, 4, 6144);
  m.name = "qwen3-30b-a3b";
  m.head_dim = 128;
  m.vocab = 151936;
  m.moe.experts = 128, m.moe.top_k = 8, m.moe.expert_ffn = 768;
  return m;
}

struct FloorCase {
  std::string name;
  Workload w;
  ModelArch arch;
  Gpu gpu;
  int gpus;
};

// Every layout the estimator accepts on the case's GPUs (one node), whether it fits or not, at
// every micro-batch and recomputation: none is faster than the floor.
TEST(StepFloorTest, NoLayoutIsFasterThanTheFloor) {
  Workload fp8 = Training(Method::kFull, 4096, 16);
  fp8.precision = Precision::kFp8;
  Workload unfused = Training(Method::kFull, 2048, 16);
  unfused.flash_attention = false;
  const std::vector<FloorCase> cases = {
      {"dense_bf16", Training(Method::kFull, 2048, 16), Llama(32, 4096, 32, 32, 11008), A100(), 8},
      {"lora", Training(Method::kLora, 2048, 16), Llama(32, 4096, 32, 32, 11008), A100(), 8},
      {"moe_with_experts_sharded", Training(Method::kFull, 1024, 16), Qwen3_30B_A3B(), A100(), 8},
      {"fp8_on_hopper", fp8, Llama(32, 4096, 32, 8, 14336), H100(), 8},
      {"unfused_attention", unfused, Llama(32, 4096, 32, 32, 11008), A100(), 4},
  };
  const Calibration& cal = testing::EmbeddedCalibration();
  for (const FloorCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Hardware hw = HardwareFor(c.gpu, c.gpus, c.gpus);
    const double floor = StepFloorSeconds(c.w, c.arch, hw, cal);
    ASSERT_GT(floor, 0);
    int timed = 0;
    for (int tp = 1; tp <= c.gpus; tp *= 2) {
      for (int pp = 1; tp * pp <= c.gpus; pp *= 2) {
        const int dp = c.gpus / (tp * pp);
        for (int ep = 1; ep <= (c.arch.IsMoe() ? tp * dp : 1); ep *= 2) {
          for (int b = 1; b <= c.w.global_batch / dp; b *= 2) {
            for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
              Layout l;
              l.tp = tp, l.pp = pp, l.dp = dp, l.ep = ep, l.micro_batch = b, l.recompute = r;
              l.zero = dp > 1 ? 1 : 0;
              l.flash_attention = c.w.flash_attention;
              const Result<Estimate> e = EstimateRun(c.w, c.arch, hw, l, cal);
              if (!e.ok())
                continue;
              ++timed;
              EXPECT_LE(floor, e->time.step_s) << DescribeLayout(l);
            }
          }
        }
      }
    }
    EXPECT_GT(timed, 10) << "the grid reaches the estimator";
  }
}

TEST(StepFloorTest, NoFloorWithoutATrainingStep) {
  const Calibration& cal = testing::EmbeddedCalibration();
  Workload serve;
  serve.task = Task::kInference;
  serve.seq_len = 2048;
  const Gpu gpu = A100();  // the hardware points at it
  const Hardware hw = HardwareFor(gpu, 8, 8);
  EXPECT_EQ(StepFloorSeconds(serve, Llama(32, 4096, 32, 32, 11008), hw, cal), 0);
  Workload train = Training(Method::kFull, 2048, 16);
  Hardware no_gpu = hw;
  no_gpu.gpu = nullptr;
  EXPECT_EQ(StepFloorSeconds(train, Llama(32, 4096, 32, 32, 11008), no_gpu, cal), 0);
}

}  // namespace
}  // namespace gpuplan::perf
