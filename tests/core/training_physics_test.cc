// Hand-worked pins of the training physics of the layout issue: data-parallel exposure once per
// step, LoRA FLOPs, the interleaved pipeline, context parallelism, ZeRO-2 per micro-batch, and
// the layouts the model refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpuplan/estimate.h"
#include "testing/embedded_calibration.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::perf {
namespace {

using testing::A100;
using testing::Model7B;

Workload Pretrain(int global_batch, int seq = 2048) {
  Workload w;
  w.task = Task::kPretrain;
  w.seq_len = seq;
  w.global_batch = global_batch;
  return w;
}

Layout Dp(int dp, int zero) {
  Layout l;
  l.dp = dp;
  l.zero = zero;
  l.micro_batch = 1;
  return l;
}

Estimate Estimated(const Workload& w, const Hardware& hw, const Layout& l) {
  Result<Estimate> e = EstimateRun(w, Model7B(), hw, l, testing::EmbeddedCalibration());
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? *e : Estimate{};
}

// Two 8-GPU nodes over 64 Gbit/s VPC TCP (the gn7e-c16g1.32xlarge pair).
Hardware TwoNodesOverTcp(const Gpu& g) {
  Hardware hw = HardwareFor(g, 16, 8);
  hw.inter_node_gbps = 64;
  hw.rdma = false;
  return hw;
}

TEST(TrainingPhysicsTest, DdpAllReduceIsExposedOncePerStepWhateverTheAccumulation) {
  const Gpu g = A100();
  const Hardware hw = TwoNodesOverTcp(g);
  // 7e9 bf16 gradients (1.4e10 bytes) all-reduced over 16 ranks at 64/8 GB/s x 0.4 (TCP):
  // 2 x 15/16 x 1.4e10 / 3.2e9 + 30 hops x 20 us = 8.2037 s; only the last micro-batch's
  // backward (well under a second here) can hide part of it.
  const Estimate small = Estimated(Pretrain(16), hw, Dp(16, 1));
  const Estimate large = Estimated(Pretrain(1024), hw, Dp(16, 1));
  EXPECT_EQ(small.grad_accum, 1);
  EXPECT_EQ(large.grad_accum, 64);
  EXPECT_NEAR(small.time.breakdown.dp_comm, large.time.breakdown.dp_comm, 1e-9)
      << "the exposure must not shrink with more accumulation steps";
  const double comm = 2 * 15.0 / 16 * 1.4e10 / 3.2e9 + 30 * 20e-6;
  const double t_mb = large.time.breakdown.compute / 64;
  EXPECT_LE(large.time.breakdown.dp_comm, comm + 1e-6);
  EXPECT_GE(large.time.breakdown.dp_comm, comm - t_mb);
  EXPECT_GT(large.time.breakdown.dp_comm, 7.5);
}

TEST(TrainingPhysicsTest, Zero2ReduceScattersEveryMicroBatch) {
  const Gpu g = A100();
  const Hardware hw = TwoNodesOverTcp(g);
  const Estimate one = Estimated(Pretrain(16), hw, Dp(16, 2));
  const Estimate many = Estimated(Pretrain(256), hw, Dp(16, 2));
  // 16 micro-batches: 16 reduce-scatters of 1.4e10 x 15/16 bytes, each hidden only behind its
  // own backward, plus one parameter all-gather after the step.
  EXPECT_GT(many.time.breakdown.dp_comm, 8 * one.time.breakdown.dp_comm);
}

TEST(TrainingPhysicsTest, LoraCountsFourNPlusAttentionPlusAdapters) {
  const Gpu g = A100();
  const Hardware hw = HardwareFor(g, 1, 1);
  Workload lora = Pretrain(8);
  lora.task = Task::kFinetune;
  lora.method = Method::kLora;
  lora.lora_rank = 16;
  Workload full = lora;
  full.method = Method::kFull;
  // GEMM weights: 7e9 - 2 x 32000 x 4096 (embedding + head) + 32000 x 4096 (head) = 6.868928e9.
  // Attention 12 L h s = 12 x 32 x 4096 x 2048 = 3.221225472e9. Adapters of rank 16 on every
  // linear layer: 16 x (8192 + 16384 + 8192) + 3 x 16 x (4096 + 11008) = 1,249,280 per layer,
  // x 32 layers x 6 FLOPs = 239,861,760.
  const double lora_flops = 4 * 6.868928e9 + 3.221225472e9 + 239861760;
  const double full_flops = 6 * 6.868928e9 + 3.221225472e9;
  Layout l;
  l.micro_batch = 1;
  l.recompute = Recompute::kFull;
  Result<Estimate> el = EstimateRun(lora, Model7B(), hw, l, testing::EmbeddedCalibration());
  Result<Estimate> ef = EstimateRun(full, Model7B(), hw, l, testing::EmbeddedCalibration());
  ASSERT_TRUE(el.ok() && ef.ok());
  EXPECT_NEAR(el->flops_per_token, lora_flops, 1e3);
  EXPECT_NEAR(ef->flops_per_token, full_flops, 1e3);
  EXPECT_NE(el->mfu_basis.find("4N"), std::string::npos) << el->mfu_basis;
  EXPECT_NE(ef->mfu_basis.find("6N"), std::string::npos) << ef->mfu_basis;
  // Hardware FLOPs add the full-recompute forward (2N + attention / 3, and the adapters'
  // forward, a third of their 6 FLOPs per parameter).
  EXPECT_NEAR(el->throughput.hardware_tflops_per_gpu / el->throughput.tflops_per_gpu,
              (lora_flops + 2 * 6.868928e9 + 3.221225472e9 / 3 + 239861760.0 / 3) / lora_flops,
              1e-9);
  EXPECT_LT(el->throughput.mfu, 0.75) << "no more 86% MFU for LoRA";
}

TEST(TrainingPhysicsTest, InterleavingDividesTheBubbleByVpAndMultipliesPointToPoint) {
  const Gpu g = A100();
  const Hardware hw = HardwareFor(g, 8, 8);
  Layout l = Dp(2, 0);
  l.pp = 4;
  const Estimate plain = Estimated(Pretrain(16), hw, l);  // 8 micro-batches per step
  l.vp = 2;
  const Estimate inter = Estimated(Pretrain(16), hw, l);
  EXPECT_NEAR(inter.time.breakdown.pp_bubble, plain.time.breakdown.pp_bubble / 2, 1e-12);
  EXPECT_NEAR(inter.time.breakdown.pp_comm, plain.time.breakdown.pp_comm * 2, 1e-12);
  // The first rank holds (1 + (p - 1) / (p v)) = 1 + 3/8 times the activations.
  EXPECT_NEAR(inter.memory.breakdown.activations / plain.memory.breakdown.activations, 1.375,
              1e-12);
  EXPECT_DOUBLE_EQ(inter.time.breakdown.compute, plain.time.breakdown.compute);
}

// Uneven chunks (Megatron-Core's first/last stage layer counts): 32 layers over pp 4 x vp 3 is
// estimated; the fullest stage's 8 layers set the compute, the bubble shrinks by vp.
TEST(TrainingPhysicsTest, UnevenInterleavingIsEstimatedAtTheFullestStage) {
  const Gpu g = A100();
  const Hardware hw = HardwareFor(g, 8, 8);
  Layout l = Dp(2, 0);
  l.pp = 4;
  const Estimate plain = Estimated(Pretrain(24), hw, l);  // 12 micro-batches per step
  l.vp = 3;
  const Estimate uneven = Estimated(Pretrain(24), hw, l);
  EXPECT_DOUBLE_EQ(uneven.time.breakdown.compute, plain.time.breakdown.compute);
  EXPECT_NEAR(uneven.time.breakdown.pp_bubble, plain.time.breakdown.pp_bubble / 3, 1e-12);
}

TEST(TrainingPhysicsTest, ContextParallelHalvesActivationsAndHidesTheRingOnNvlink) {
  const Gpu g = A100();
  const Hardware hw = HardwareFor(g, 8, 8);
  Layout one = Dp(8, 0);
  Layout two = Dp(4, 0);
  two.cp = 2;
  const Estimate a = Estimated(Pretrain(8, 16384), hw, one);
  const Estimate b = Estimated(Pretrain(8, 16384), hw, two);
  EXPECT_NEAR(b.memory.breakdown.activations, a.memory.breakdown.activations / 2, 1e-9);
  // 8192 tokens' K and V (2 x 8192 x 4096 x 2 bytes = 134 MB) over NVLink 300 GB/s x 0.75:
  // 0.6 ms, against 4 h s x tokens / (peak x attention rate) of attention: hidden.
  EXPECT_DOUBLE_EQ(b.time.breakdown.cp_comm, 0);
  // The same tokens per GPU per step: per-GPU compute stays within a few percent.
  EXPECT_NEAR(b.time.breakdown.compute / a.time.breakdown.compute, 1.0, 0.05);
}

TEST(TrainingPhysicsTest, LayoutsTheModelRefusesSayWhy) {
  const Gpu g = A100();
  const Hardware hw = HardwareFor(g, 8, 8);
  struct Case {
    std::string name;
    Workload w;
    Layout l;
    std::string want;
  };
  Layout oib = Dp(8, 0);
  oib.optimizer_in_backward = true;
  Layout cp = Dp(4, 0);
  cp.cp = 2;
  Workload unfused = Pretrain(8);
  unfused.flash_attention = false;
  Layout vp = Dp(2, 0);
  vp.pp = 4;
  vp.vp = 2;
  Layout thin = Dp(1, 0);
  thin.pp = 8;
  thin.vp = 5;  // 40 virtual stages for 32 layers
  const Case kCases[] = {
      {"optimizer_in_backward_with_accumulation", Pretrain(16), oib, "cannot accumulate"},
      {"cp_without_flash", unfused, cp, "needs flash attention"},
      {"interleaving_with_too_few_micro_batches", Pretrain(4), vp, "multiple of pp"},
      {"more_virtual_stages_than_layers", Pretrain(16), thin, "exceeds the 32 layers"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Estimate> e = EstimateRun(c.w, Model7B(), hw, c.l, testing::EmbeddedCalibration());
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.status().message().find(c.want), std::string::npos) << e.status().message();
  }
}

}  // namespace
}  // namespace gpuplan::perf
