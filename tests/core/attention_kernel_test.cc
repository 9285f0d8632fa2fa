// The attention kernel per framework (data/frameworks.csv attention_kernel): Megatron-Core and
// NeMo run cuDNN's fused attention (Transformer Engine), which on Hopper reaches its own fraction
// of peak (calibration cudnn_attention_fraction); the other stacks run FlashAttention-2. The
// estimate takes the kernel of the framework that runs the layout, so the same layout under the
// two differs by the attention core's FLOPs at the two fractions, and nowhere the calibration
// does not tell the kernels apart.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuplan/calibration.h"
#include "gpuplan/estimate.h"
#include "gpuplan/framework.h"
#include "gpuplan/layout_search.h"
#include "perf/layout_search_cutoff.h"
#include "testing/embedded_calibration.h"
#include "testing/layout_cases.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::perf {
namespace {

using testing::A100;
using testing::H100;
using testing::Llama2_7B;

// The capabilities of the shipped peft and megatron rows that matter here.
Framework Peft() {
  Framework f;
  f.name = "peft";
  f.caps.full = f.caps.lora = true;
  f.caps.zero_stages = 0b1111;
  return f;
}
Framework Megatron() {
  Framework f;
  f.name = "megatron";
  f.caps.full = f.caps.lora = true;
  f.caps.tp = f.caps.sequence_parallel = f.caps.cp = f.caps.pp = f.caps.vp = true;
  f.caps.zero_stages = 0b1111;
  f.caps.zero_stages_model_parallel = 0b11;
  f.attention_kernel = AttentionKernel::kCudnn;
  return f;
}
// torchtitan: FSDP2 (ZeRO 2/3) with tp and pp, FlashAttention-2 (SDPA).
Framework Torchtitan() {
  Framework f;
  f.name = "torchtitan";
  f.caps.full = true;
  f.caps.tp = f.caps.sequence_parallel = f.caps.cp = f.caps.pp = f.caps.vp = true;
  f.caps.zero_stages = f.caps.zero_stages_model_parallel = 0b1101;
  return f;
}

// The shipped calibration with Hopper FlashAttention-2 at 0.2 of peak and cuDNN at 0.32 (1.6x,
// round numbers for the ratios below), and Ampere without cuDNN data at 0.3.
Calibration TwoKernels() {
  Calibration cal = testing::EmbeddedCalibration();
  for (ArchEfficiency& a : cal.archs) {
    if (a.architecture == "Hopper") {
      a.attention_fraction = 0.2;
      a.cudnn_attention_fraction = 0.32;
    } else if (a.architecture == "Ampere") {
      a.attention_fraction = 0.3;
      a.cudnn_attention_fraction.reset();
    }
  }
  return cal;
}

TEST(AttentionKernelTest, TheFrameworkThatRunsTheLayoutChoosesTheKernel) {
  struct Case {
    std::string name;
    std::vector<Framework> frameworks;
    int tp;
    AttentionKernel want;
  };
  const Case kCases[] = {
      {"no_framework_named_is_flash_attention_2", {}, 1, AttentionKernel::kFlash2},
      {"data_parallel_runs_on_peft", {Peft(), Megatron()}, 1, AttentionKernel::kFlash2},
      {"tensor_parallel_runs_on_megatron", {Peft(), Megatron()}, 2, AttentionKernel::kCudnn},
      {"megatron_asked_for", {Megatron()}, 1, AttentionKernel::kCudnn},
      {"a_layout_none_runs_takes_the_first", {Peft()}, 2, AttentionKernel::kFlash2},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Layout l;
    l.tp = c.tp;
    EXPECT_EQ(AttentionKernelFor(c.frameworks, l), c.want);
  }
}

TEST(AttentionKernelTest, SameLayoutDiffersByTheAttentionCoreAtTheTwoFractions) {
  // llama-2-7b, seq 4096, one micro-batch of one sequence, one GPU, no recomputation. The
  // attention core executes 3 passes x 4 h s FLOPs per token per layer (the full square;
  // the causal kernel runs half of it at twice the rate): 12 x 32 x 4096 x 4096 x 4096 tokens =
  // 2.6388e13 FLOPs against 989 TFLOPS. On H100, FlashAttention-2 (peft) at 2 x 0.2 and cuDNN
  // (megatron) at 2 x 0.32: 0.066703 s vs 0.041689 s, 0.025014 s apart; on A100 the calibration
  // has no cuDNN fraction, so both run at Ampere's FlashAttention-2 fraction.
  struct Case {
    std::string name;
    Gpu gpu;
    double want_difference_s;
  };
  const double attention_flops = 12.0 * 32 * 4096 * 4096.0 * 4096;
  const Case kCases[] = {
      {"h100_cudnn_under_megatron", H100(), attention_flops / 989e12 * (1 / 0.4 - 1 / 0.64)},
      {"a100_kernels_not_told_apart", A100(), 0},
  };
  const Calibration cal = TwoKernels();
  Workload w = testing::Training(Method::kFull, 4096, 1);
  Layout l;
  l.micro_batch = 1;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const Hardware hw = HardwareFor(c.gpu, 1, 1);
    w.frameworks = {Peft()};
    const Result<Estimate> flash2 = EstimateRun(w, Llama2_7B(), hw, l, cal);
    w.frameworks = {Megatron()};
    const Result<Estimate> cudnn = EstimateRun(w, Llama2_7B(), hw, l, cal);
    ASSERT_TRUE(flash2.ok() && cudnn.ok());
    EXPECT_NEAR(flash2->time.breakdown.compute - cudnn->time.breakdown.compute, c.want_difference_s,
                1e-9 * flash2->time.breakdown.compute);
    EXPECT_DOUBLE_EQ(flash2->flops_per_token, cudnn->flops_per_token) << "same model FLOPs";
  }
}

TEST(AttentionKernelTest, SearchEqualsExhaustiveWhereZeroStagesRunOnDifferentKernels) {
  // With tp or pp, megatron runs ZeRO 0-1 (cuDNN) and torchtitan ZeRO 2-3 (FlashAttention-2):
  // one ZeRO group holds both kernels, so its bound must not come from the slower one alone.
  struct Case {
    std::string name;
    Workload w;
    ModelArch arch;
    int gpus, per_node;
    double cudnn_fraction;
  };
  Workload no_cp = testing::Training(Method::kFull, 16384, 8);
  no_cp.cp = 1;  // cp groups run every ZeRO stage on megatron: leave them out
  const Case kCases[] = {
      // A kernel far faster than FlashAttention-2 (0.8 of peak): a pipeline on megatron (pp2
      // ZeRO-1) wins, while its group's ZeRO-3 stage (torchtitan) is no faster than the rest;
      // bounding the group by that stage alone pruned the winner.
      {"1b_seq16k_megatron_stage_wins_by_its_kernel", no_cp, testing::Llama(16, 2048, 16, 16, 5632),
       8, 8, 0.8},
      {"7b_seq8k_one_node", testing::Training(Method::kFull, 8192, 16), Llama2_7B(), 8, 8, 0.32},
      {"3b_seq16k_two_nodes", testing::Training(Method::kFull, 16384, 8),
       testing::Llama(16, 3072, 24, 8, 8192), 16, 8, 0.32},
  };
  const Gpu h100 = H100();  // outlives the hardware that points at it
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Calibration cal = TwoKernels();
    cal.archs[0].cudnn_attention_fraction = c.cudnn_fraction;
    Workload w = c.w;
    w.frameworks = {Peft(), Megatron(), Torchtitan()};
    const Hardware hw = HardwareFor(h100, c.gpus, c.per_node);
    const LayoutSearch fast = SearchLayout(w, c.arch, hw, cal, PinsFrom(w));
    const LayoutSearch all = ExhaustiveLayoutSearch(w, c.arch, hw, cal, PinsFrom(w));
    ASSERT_TRUE(fast.ok && all.ok) << fast.reason << all.reason;
    EXPECT_NEAR(fast.estimate.time.step_s, all.estimate.time.step_s,
                2e-6 * all.estimate.time.step_s)
        << "search " << DescribeLayout(fast.layout) << " vs exhaustive "
        << DescribeLayout(all.layout);
    EXPECT_LT(fast.evaluated, all.evaluated) << "the bounds prune";
  }
}

// A plan's searches share a LayoutMemo across GPUs of one shape. Whether the attention kernels
// run at different speeds depends on the GPU: a memo filled on an A100 (one kernel) must not
// make an H100 search (cuDNN far faster) bound a group by a stage of the other kernel.
TEST(AttentionKernelTest, AMemoFilledOnAnotherArchitectureKeepsTheKernelsApart) {
  Workload w = testing::Training(Method::kFull, 16384, 8);
  w.cp = 1;
  w.frameworks = {Peft(), Megatron(), Torchtitan()};
  const ModelArch arch = testing::Llama(16, 2048, 16, 16, 5632);
  Calibration cal = TwoKernels();
  cal.archs[0].cudnn_attention_fraction = 0.8;
  const Gpu h100 = H100(), a100 = A100();
  const LayoutPins pins = PinsFrom(w);
  LayoutMemo memo(w, arch, pins);
  const LayoutSearch ampere = SearchLayout(w, arch, HardwareFor(a100, 8, 8), cal, pins, {}, &memo);
  ASSERT_TRUE(ampere.ok) << ampere.reason;
  const Hardware hw = HardwareFor(h100, 8, 8);
  const LayoutSearch shared = SearchLayout(w, arch, hw, cal, pins, {}, &memo);
  const LayoutSearch all = ExhaustiveLayoutSearch(w, arch, hw, cal, pins);
  ASSERT_TRUE(shared.ok && all.ok) << shared.reason << all.reason;
  EXPECT_NEAR(shared.estimate.time.step_s, all.estimate.time.step_s,
              2e-6 * all.estimate.time.step_s)
      << "search " << DescribeLayout(shared.layout) << " vs exhaustive "
      << DescribeLayout(all.layout);
}

// `--framework auto` for full training: the pick is the fastest layout over every framework,
// not the first framework that runs a layout. Per case, the auto search equals the best of the
// searches on each framework alone and brute force, and names the framework that was fastest
// (the first in the table's order on a tie).
TEST(AttentionKernelTest, AutoPicksTheFastestFrameworkNotTheFirstThatRunsTheLayout) {
  struct Case {
    std::string name;
    Gpu gpu;
    std::string want;  // the framework the pick runs on
  };
  const Case kCases[] = {
      // Hopper: megatron's cuDNN attention (0.32 of peak against 0.2) beats peft's
      // FlashAttention-2 on the same ZeRO-3 layout, though peft is first in the table.
      {"hopper_megatron_kernel_wins", H100(), "megatron"},
      // Ampere: one kernel speed, so the same layout is a tie and the first row keeps it.
      {"ampere_tie_keeps_the_first", A100(), "peft"},
  };
  const ModelArch arch = testing::Llama(8, 2048, 16, 16, 5632);
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const Calibration cal = TwoKernels();
    Workload w = testing::Training(Method::kFull, 8192, 16);
    w.frameworks = {Peft(), Megatron(), Torchtitan()};
    LayoutPins pins = PinsFrom(w);
    pins.tp = pins.pp = pins.cp = 1;
    pins.zero = 3;
    const Hardware hw = HardwareFor(c.gpu, 8, 8);
    const LayoutSearch pick = SearchLayout(w, arch, hw, cal, pins);
    ASSERT_TRUE(pick.ok) << pick.reason;
    double best = 0;
    for (const Framework& f : w.frameworks) {
      Workload alone = w;
      alone.frameworks = {f};
      LayoutPins alone_pins = pins;
      alone_pins.frameworks = {f.caps};
      const LayoutSearch s = SearchLayout(alone, arch, hw, cal, alone_pins);
      if (s.ok && (best == 0 || s.estimate.time.step_s < best))
        best = s.estimate.time.step_s;
    }
    EXPECT_NEAR(pick.estimate.time.step_s, best, 1e-9 * best);
    const Framework* runs = FrameworkFor(w.frameworks, pick.layout);
    ASSERT_NE(runs, nullptr);
    EXPECT_EQ(runs->name, c.want);
    // Estimating the picked layout again (as `estimate` and the plan's rows do) gives its time.
    const Result<Estimate> again = EstimateRun(w, arch, hw, pick.layout, cal);
    ASSERT_TRUE(again.ok());
    EXPECT_NEAR(again->time.step_s, pick.estimate.time.step_s, 1e-9 * best);
    const LayoutSearch all = ExhaustiveLayoutSearch(w, arch, hw, cal, pins);
    ASSERT_TRUE(all.ok);
    EXPECT_NEAR(all.estimate.time.step_s, best, 1e-9 * best);
    const std::string why = FrameworkWhy(w, pick.layout);
    if (c.want == "megatron") {
      EXPECT_NE(why.find("the fastest framework for this layout"), std::string::npos) << why;
      EXPECT_NE(why.find("peft, runs FlashAttention-2, not cuDNN fused attention"),
                std::string::npos)
          << why;
    }
  }
}

}  // namespace
}  // namespace gpuplan::perf
