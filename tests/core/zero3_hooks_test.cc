// DeepSpeed ZeRO-3's per-submodule hooks (data/frameworks.csv zero3_fetch module): the host runs a
// fetch and a release around every parameterised submodule in every pass, whatever the tokens, so
// a short micro-batch waits for them; a long one hides them behind its GPU time. FSDP's one
// gather per layer (zero3_fetch layer) adds nothing there.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/estimate.h"
#include "gpuplan/framework.h"
#include "testing/embedded_calibration.h"
#include "testing/layout_cases.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::perf {
namespace {

Framework ShardedStack(bool per_module) {
  Framework f = testing::FullTrainingStack(per_module ? "deepspeed" : "fsdp", 0b1001);
  f.zero3_fetches_modules = per_module;
  return f;
}

// Seconds of one micro-batch's compute on ZeRO-3 over 8 H100s, micro-batch 1.
double MicroBatchCompute(bool per_module, int seq, Recompute rc, const Calibration& cal) {
  const ModelArch arch = testing::Llama2_7B();
  Workload w = testing::Training(Method::kFull, seq, 8);
  w.frameworks = {ShardedStack(per_module)};
  const Gpu gpu = testing::H100();
  const Result<Estimate> e =
      EstimateRun(w, arch, HardwareFor(gpu, 8, 8), testing::ShardedLayout(8, 3, 1, rc), cal);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? e->time.breakdown.compute : 0;  // one micro-batch per step (8 / 8)
}

TEST(Zero3HooksTest, ShortMicroBatchesWaitForTheHostsHooks) {
  Calibration cal = testing::EmbeddedCalibration();
  cal.zero3_module_hook_us = 400;
  // Llama 2 7B: 32 layers of 7 linear layers (q k v o gate up down) and 2 norms = 9 modules.
  // Forward and backward: 2 x 32 x 9 x 400 us = 0.2304 s; full recomputation adds a forward:
  // 0.3456 s. 256 tokens take far less on the GPU.
  struct Case {
    std::string name;
    Recompute rc;
    double want_s;
  };
  const Case kCases[] = {{"no_recompute", Recompute::kNone, 0.2304},
                         {"full_recompute", Recompute::kFull, 0.3456}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_NEAR(MicroBatchCompute(true, 256, c.rc, cal), c.want_s, 1e-9);
    EXPECT_LT(MicroBatchCompute(false, 256, c.rc, cal), c.want_s / 3) << "FSDP gathers per layer";
  }
}

TEST(Zero3HooksTest, LongMicroBatchesHideThem) {
  Calibration cal = testing::EmbeddedCalibration();
  cal.zero3_module_hook_us = 400;
  // 16,384 tokens: 6 x 6.7e9 x 16384 = 0.66 PFLOP, about 1 s on an H100: the hooks run behind.
  const double hooks = MicroBatchCompute(true, 16384, Recompute::kFull, cal);
  const double fsdp = MicroBatchCompute(false, 16384, Recompute::kFull, cal);
  EXPECT_GT(fsdp, 0.3456);
  EXPECT_DOUBLE_EQ(hooks, fsdp);
}

}  // namespace
}  // namespace gpuplan::perf
