// What selective recomputation keeps, by the framework that runs it (data/frameworks.csv
// selective_policy): Megatron's recomputes the attention core (with flash attention that keeps
// every activation: the core keeps only its log-sum-exp), torchtitan's op-level policy keeps
// each layer's input, attention's output and every other matmul's output and runs the rest
// again in backward.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/estimate.h"
#include "gpuplan/framework.h"
#include "testing/embedded_calibration.h"
#include "testing/layout_cases.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::perf {
namespace {

Framework FsdpStack(bool keeps_matmuls) {
  Framework f = testing::FullTrainingStack(keeps_matmuls ? "torchtitan" : "megatron", 0b1101);
  f.caps.selective_recompute = true;
  f.selective_keeps_matmuls = keeps_matmuls;
  return f;
}

// Llama 3 8B pre-training as torchtitan's performance table runs it: 8 H100s, FSDP, local
// batch 2 of 8192 tokens, flash attention.
Result<Estimate> Llama3Pretraining(bool keeps_matmuls, Recompute rc) {
  Workload w = testing::Training(Method::kFull, 8192, 16);
  w.frameworks = {FsdpStack(keeps_matmuls)};
  const Gpu gpu = testing::H100();
  return EstimateRun(w, testing::Llama3_8B(), HardwareFor(gpu, 8, 8),
                     testing::ShardedLayout(8, 3, 2, rc), testing::EmbeddedCalibration());
}

TEST(SelectivePolicyTest, ActivationsFollowTheFrameworksPolicy) {
  // Per token and layer (bf16, h 4096, kvd 1024, f 14336, 32 heads), the matmul policy keeps
  // the layer input and the down projection's output (the 7th matmul): 2 x 2 x 4096; q and v
  // (1st and 3rd), attention's output and the gate (5th): 2 x (4096 + 1024 + 4096 + 14336);
  // the log-sum-exp 4 x 32. 63616 bytes x 32 layers x 16384 tokens.
  const double matmuls_gib = 63616.0 * 32 * 16384 / (1 << 30);
  const Result<Estimate> none = Llama3Pretraining(false, Recompute::kNone);
  ASSERT_TRUE(none.ok()) << none.status().message();
  struct Case {
    std::string name;
    bool keeps_matmuls;
    double want_gib;
  };
  const Case kCases[] = {
      {"attention_policy_keeps_everything_with_flash", false, none->memory.breakdown.activations},
      {"matmul_policy_keeps_every_other_matmul", true, matmuls_gib},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const Result<Estimate> e = Llama3Pretraining(c.keeps_matmuls, Recompute::kSelective);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_NEAR(e->memory.breakdown.activations, c.want_gib, 1e-9);
  }
  EXPECT_NEAR(matmuls_gib, 31.06, 0.01);
}

TEST(SelectivePolicyTest, MatmulPolicyRunsTheMatmulsItDroppedAgain) {
  // Recomputed per token: k (2nd), the output projection (4th) and up (6th), 2 FLOPs per
  // weight: 32 x 2 x (4096 x 1024 + 4096 x 4096 + 4096 x 14336) = 5,100,273,664; attention is
  // not run again (its output is kept).
  const Result<Estimate> e = Llama3Pretraining(true, Recompute::kSelective);
  ASSERT_TRUE(e.ok()) << e.status().message();
  const double hardware_per_token =
      e->flops_per_token * e->throughput.hardware_tflops_per_gpu / e->throughput.tflops_per_gpu;
  EXPECT_NEAR(hardware_per_token - e->flops_per_token, 5100273664.0, 1e3);
  // And it is slower than keeping everything, faster than full recomputation.
  const Result<Estimate> none = Llama3Pretraining(true, Recompute::kNone);
  const Result<Estimate> full = Llama3Pretraining(true, Recompute::kFull);
  ASSERT_TRUE(none.ok() && full.ok());
  EXPECT_GT(e->time.step_s, none->time.step_s);
  EXPECT_LT(e->time.step_s, full->time.step_s);
}

}  // namespace
}  // namespace gpuplan::perf
