// Where mixed-precision training keeps its gradients (data/frameworks.csv main_grads): Megatron-
// Core holds an fp32 main-gradient buffer the size of the local parameters, so its model states
// are the distributed-optimizer guide's bytes per parameter for bf16 parameters with fp32
// gradients (18 without the distributed optimizer, 6 + 12/d with it), where the default (16-bit
// gradients, ZeRO's optimizer holding an fp32 copy of its partition) gives 16 and 4 + 16/d.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuplan/estimate.h"
#include "gpuplan/framework.h"
#include "testing/embedded_calibration.h"
#include "testing/layout_cases.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::perf {
namespace {

Framework DataParallelStack(bool fp32_main_grads) {
  Framework f = testing::FullTrainingStack(fp32_main_grads ? "megatron" : "peft", 0b0011);
  f.caps.offload_optimizer = true;
  f.fp32_main_grads = fp32_main_grads;
  return f;
}

TEST(MainGradsTest, ModelStatesPerParameterFollowTheFramework) {
  struct Case {
    std::string name;
    bool fp32_main_grads;
    int zero;
    double want_bytes_per_param;  // weights + gradients + optimizer, 8 data-parallel ranks
    Offload offload = Offload::kNone;
  };
  const Case kCases[] = {
      {"default_ddp", false, 0, 2 + 2 + 12},
      {"default_zero1", false, 1, 2 + 2 + 16.0 / 8},
      {"megatron_ddp", true, 0, 18},
      {"megatron_distributed_optimizer", true, 1, 6 + 12.0 / 8},
      // ZeRO-Offload moves the optimizer to the host; the gradients go too only where ZeRO
      // partitions them (stage 2): under ZeRO-1 every rank holds the whole 16-bit gradient until
      // the all-reduce (2 + 2), under ZeRO-2 only the weights stay (2).
      {"default_zero1_offload_keeps_gradients", false, 1, 2 + 2, Offload::kOptimizer},
      {"default_zero2_offload", false, 2, 2, Offload::kOptimizer},
      // Megatron-Core's --optimizer-cpu-offload moves the optimizer only: its fp32 main
      // gradients stay in the GPU's buffer (2 + 4).
      {"megatron_offload_keeps_main_grads", true, 1, 6, Offload::kOptimizer},
  };
  const Calibration cal = testing::EmbeddedCalibration();
  const ModelArch arch = testing::Llama2_7B();
  Workload w = testing::Training(Method::kFull, 2048, 8);
  const Gpu gpu = testing::H100();  // Hardware points at it
  const Hardware hw = HardwareFor(gpu, 8, 8);
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    w.frameworks = {DataParallelStack(c.fp32_main_grads)};
    Layout l;
    l.dp = 8;
    l.zero = c.zero;
    l.offload = c.offload;
    l.micro_batch = 1;
    const Result<Estimate> e = EstimateRun(w, arch, hw, l, cal);
    ASSERT_TRUE(e.ok()) << e.status().message();
    const MemoryBreakdown& m = e->memory.breakdown;
    const double bytes = (m.weights + m.gradients + m.optimizer) * (1 << 30);
    EXPECT_NEAR(bytes / arch.Params(), c.want_bytes_per_param, 0.01);
  }
}

}  // namespace
}  // namespace gpuplan::perf
