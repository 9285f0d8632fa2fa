// Hand-worked pins of the three calibration fixes of calibration_techniques.csv: the attention
// core under FP8 runs at the BF16 peak (context parallelism at long sequence), bitsandbytes'
// 8-bit and paged AdamW states, and the host's memory-bound Adam under optimizer offload.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/estimate.h"
#include "testing/embedded_calibration.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::perf {
namespace {

using testing::A10;
using testing::A100;
using testing::H100;
using testing::Llama2_7B;
using testing::Model7B;

// One optimizer step of `task` over `global_batch` sequences of `seq_len` tokens, the rest of the
// workload at its defaults.
Workload Step(Task task, int seq_len, int global_batch) {
  Workload w;
  w.task = task;
  w.seq_len = seq_len;
  w.global_batch = global_batch;
  return w;
}

Estimate Estimated(const Workload& w, const ModelArch& m, const Hardware& hw, const Layout& l) {
  Result<Estimate> e = EstimateRun(w, m, hw, l, testing::EmbeddedCalibration());
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? *e : Estimate{};
}

TEST(TechniqueCalibrationTest, RingAttentionHidesBehindBf16AttentionUnderFp8) {
  // llama-2-7b at 128K tokens, tp4 cp4 dp2 on 4 nodes of 8 H100 over 64 Gbit/s TCP, one
  // micro-batch. Each layer passes K and V of s/cp = 32768 tokens, 2 x 4096 / tp4 elements of 2
  // bytes each (134,217,728 bytes), cp - 1 = 3 hops at 64/8 GB/s x 0.4 (tcp_efficiency) = 3.2
  // GB/s plus 10 us (collective_latency_us; data/calibration.csv): 0.125859 s. It hides behind
  // the forward attention of the local block: 4 h s x 32768 / tp4 = 1.7592e13 FLOPs at 989 TFLOPS
  // (BF16, also under FP8: Transformer Engine's fp8_dpa is off by default) x 0.4 (causal: twice
  // Hopper's FlashAttention-2 attention_fraction 0.2) = 0.044470 s. Exposed 0.081389 s x 3 passes
  // (forward; backward passes K, V and their gradients) x 32 layers = 7.8134 s. At the FP8 peak
  // the attention would take half that and expose 9.9479 s.
  struct Case {
    std::string name;
    Precision precision;
    double want_cp_comm_s;
  };
  const double hop = 134217728 / 3.2e9 + 10e-6;
  const double attention = 4.0 * 4096 * 131072 * 32768 / 4 / (989e12 * 0.4);
  const double want = (3 * hop - attention) * 3 * 32;
  const Case kCases[] = {
      {"bf16", Precision::kBf16, want},
      {"fp8_attention_still_bf16", Precision::kFp8, want},
  };
  const Gpu g = H100();
  Hardware hw = HardwareFor(g, 32, 8);
  hw.inter_node_gbps = 64;
  hw.rdma = false;
  Layout l;
  l.tp = 4;
  l.cp = 4;
  l.dp = 2;
  l.micro_batch = 1;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w = Step(Task::kPretrain, 131072, 2);
    w.precision = c.precision;
    const Estimate e = Estimated(w, Llama2_7B(), hw, l);
    EXPECT_NEAR(e.time.breakdown.cp_comm, c.want_cp_comm_s, 1e-3);
  }
  EXPECT_NEAR(want, 7.8134, 1e-3);
}

TEST(TechniqueCalibrationTest, Fp8SpeedsUpTheGemmsNotTheAttentionCore) {
  // At 1M tokens attention is 97% of llama-2-7b's FLOPs (12 L h s = 1.65e12 of 1.69e12 per
  // token): FP8 GEMMs at twice the peak save at most the GEMMs' share, so the step may not
  // become anywhere near twice as fast (it did when attention ran at the FP8 peak).
  const Gpu g = H100();
  Hardware hw = HardwareFor(g, 256, 8);
  hw.inter_node_gbps = 3200;
  hw.rdma = true;
  Layout l;
  l.tp = 8;
  l.cp = 32;
  l.micro_batch = 1;
  Workload w = Step(Task::kPretrain, 1048576, 1);
  const Estimate bf16 = Estimated(w, Llama2_7B(), hw, l);
  w.precision = Precision::kFp8;
  const Estimate fp8 = Estimated(w, Llama2_7B(), hw, l);
  EXPECT_GT(fp8.time.breakdown.compute / bf16.time.breakdown.compute, 0.9);
  EXPECT_LT(fp8.time.breakdown.compute, bf16.time.breakdown.compute);
}

TEST(TechniqueCalibrationTest, EightBitAdamStatesArePerBlockQuantised) {
  // bitsandbytes AdamW8bit: m and v one byte each plus one fp32 absmax per 256-element block
  // of each: 2 x (1 + 4/256) = 2.03125 bytes per parameter. 7e9 parameters = 6.51926 GiB per
  // byte. Mixed precision adds the fp32 master (4); pure bf16 has none.
  struct Case {
    std::string name;
    Optimizer optimizer;
    bool master_weights;
    double want_states_gib;  // weights + gradients + optimizer
  };
  const Case kCases[] = {
      {"adamw_mixed_16_bytes", Optimizer::kAdamw, true, 6.51926 * 16},
      {"adamw_8bit_mixed", Optimizer::kAdamw8bit, true, 6.51926 * (2 + 2 + 4 + 2.03125)},
      {"adamw_8bit_pure_bf16", Optimizer::kAdamw8bit, false, 6.51926 * (2 + 2 + 2.03125)},
      // On an 80 GB GPU everything fits: paged states stay resident, as the unpaged ones.
      {"paged_adamw_8bit_resident", Optimizer::kPagedAdamw8bit, false, 6.51926 * (2 + 2 + 2.03125)},
  };
  const Gpu g = A100();
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w = Step(Task::kFinetune, 512, 1);
    w.optimizer = c.optimizer;
    w.master_weights = c.master_weights;
    Layout l;
    l.micro_batch = 1;
    const Estimate e = Estimated(w, Model7B(), HardwareFor(g, 1, 1), l);
    const MemoryBreakdown& m = e.memory.breakdown;
    EXPECT_NEAR(m.weights + m.gradients + m.optimizer, c.want_states_gib, 0.01);
    EXPECT_DOUBLE_EQ(e.memory.host_gib, 0);
  }
}

TEST(TechniqueCalibrationTest, PagedStatesTakeWhatIsLeftOfTheGpuAndSpillTheRest) {
  // Full fine-tune of a 7e9 model on a 24 GB A10 (22.2 GiB usable), pure bf16, optimizer in
  // backward (one layer's gradients), full recomputation: weights alone are 13.04 GiB and the
  // 8-bit states 7e9 x 2.03125 B = 13.2422 GiB do not fit beside them. Paged: the states fill
  // the GPU to its capacity and the rest lives in host RAM, paging in and out once per step
  // over PCIe 4.0 (32 GB/s x 0.7, pcie_efficiency in data/calibration.csv). Unpaged: the run
  // does not fit.
  const Gpu g = A10();
  Workload w = Step(Task::kFinetune, 512, 1);
  w.master_weights = false;
  Layout l;
  l.micro_batch = 1;
  l.recompute = Recompute::kFull;
  l.optimizer_in_backward = true;
  Hardware hw = HardwareFor(g, 1, 1);
  w.optimizer = Optimizer::kAdamw8bit;
  const Estimate unpaged = Estimated(w, Model7B(), hw, l);
  w.optimizer = Optimizer::kPagedAdamw8bit;
  const Estimate paged = Estimated(w, Model7B(), hw, l);
  EXPECT_FALSE(unpaged.memory.fits);
  EXPECT_TRUE(paged.memory.fits);
  EXPECT_NEAR(paged.memory.per_gpu_gib, paged.memory.capacity_gib, 1e-9);
  const double states = 7e9 * 2.03125 / (1024.0 * 1024 * 1024);
  EXPECT_NEAR(states, 13.2422, 1e-4);
  const double resident = paged.memory.breakdown.optimizer;
  EXPECT_GT(resident, 0);
  EXPECT_NEAR(resident + paged.memory.host_gib, states, 1e-4);
  const double evicted_bytes = paged.memory.host_gib * 1024 * 1024 * 1024;
  EXPECT_NEAR(paged.time.breakdown.offload - unpaged.time.breakdown.offload,
              2 * evicted_bytes / (32e9 * 0.7), 1e-9);
}

TEST(TechniqueCalibrationTest, HostAdamIsMemoryBoundAtTheSuperOffloadRate) {
  // One A100 offloading the optimizer of a 7e9 model: gradients down and 16-bit weights up
  // over PCIe 4.0 (2 + 2 bytes at 32 GB/s x 0.7, pcie_efficiency: 1.25 s) and the host's Adam
  // at 10.4e9 parameters/s for mixed-precision AdamW's 28 streamed bytes (DeepSpeed CPU-Adam on
  // a GH200 host): 0.67308 s. Pure bf16 states stream 14 bytes (gradient 2, weight read and written
  // 4, m and v read and written 8): half the host time.
  struct Case {
    std::string name;
    bool master_weights;
    double want_offload_s;
  };
  const Case kCases[] = {
      {"mixed_28_bytes", true, 7e9 * 4 / 22.4e9 + 7e9 * 28 / (28 * 10.4e9)},
      {"pure_bf16_14_bytes", false, 7e9 * 4 / 22.4e9 + 7e9 * 14 / (28 * 10.4e9)},
  };
  const Gpu g = A100();
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w = Step(Task::kFinetune, 512, 1);
    w.master_weights = c.master_weights;
    Layout l;
    l.micro_batch = 1;
    l.offload = Offload::kOptimizer;
    const Estimate e = Estimated(w, Model7B(), HardwareFor(g, 1, 1), l);
    EXPECT_NEAR(e.time.breakdown.offload, c.want_offload_s, 1e-3);
    EXPECT_DOUBLE_EQ(e.time.breakdown.optimizer, 0);
  }
}

}  // namespace
}  // namespace gpuplan::perf
