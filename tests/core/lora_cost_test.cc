// What a PEFT LoRA step costs beyond its FLOPs, pinned against a hand calculation for a
// Llama-2-7B layer (h 4096, MHA, SwiGLU ffn 11008, bf16) with rank-16 adapters on q, k, v and
// o (the repo's H200 device run): skinny memory-bound adapter GEMMs, the casts, scaling and adds
// around them, and the host's kernel launches as a floor under the GPU time.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "gpuplan/estimate.h"
#include "perf/training_shape.h"
#include "testing/embedded_calibration.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::perf::internal {
namespace {

using testing::A100;
using testing::Llama;

Workload Lora(LoraTargets targets, double dropout = 0) {
  Workload w;
  w.task = Task::kFinetune;
  w.method = Method::kLora;
  w.seq_len = 2048;
  w.global_batch = 1;
  w.lora_rank = 16;
  w.lora_targets = targets;
  w.lora_dropout = dropout;
  return w;
}

Layout OneGpu() {
  Layout l;
  l.micro_batch = 1;
  return l;
}

// The shape of `w` on one A100, beside the invariants it points into.
struct Shaped {
  Shaped(const Workload& w, const ModelArch& m)
      : inv(InvariantsOf(w, m, A100(), testing::EmbeddedCalibration(), 1, w.flash_attention)),
        t(ShapeOf(w, m, OneGpu(), inv)) {}
  Shaped(const Shaped&) = delete;
  Shaped& operator=(const Shaped&) = delete;
  TrainingInvariants inv;
  TrainingShape t;
};

const OpRecord& Op(const OpRecords& r, std::string_view name) {
  for (int i = 0; i < r.layer_ops; ++i) {
    if (r.layer[i].name == name)
      return r.layer[i];
  }
  ADD_FAILURE() << "no record " << name;
  return r.layer[0];
}

TEST(LoraCostTest, AdapterRecordsMatchTheHandCount) {
  // Four adapted 4096 x 4096 linears: ins = outs = 16384 per token.
  struct Case {
    const char* name;
    LoraTargets targets;
    double dropout;
    double params;      // r (in + out) summed
    double gemm_moved;  // elements: ins + outs + 2 r n
    double glue_bytes;  // forward: casts 12 ins (+ dropout 9 ins) + scaling and add 10 outs
    double glue_backward;
    double kernels;  // forward launches of the adapters and their glue
  } cases[] = {
      {"attention", LoraTargets::kAttention, 0, 16 * 32768.0, 32768 + 128,
       12 * 16384.0 + 10 * 16384,
       // casts 12 ins + scaling 4 outs + input-gradient add 6 ins
       (12 * 16384.0 + 4 * 16384 + 6 * 16384) / (22 * 16384.0), 4 * 2 + 4 * 5},
      {"attention with dropout", LoraTargets::kAttention, 0.05, 16 * 32768.0, 32768 + 128,
       21 * 16384.0 + 10 * 16384, (31 * 16384.0) / (31 * 16384.0), 4 * 2 + 4 * 6},
      // q and v only: 2 linears.
      {"q and v", LoraTargets::kQv, 0, 16 * 16384.0, 16384 + 64, 22 * 8192.0, 1.0, 2 * 2 + 2 * 5},
  };
  const ModelArch m = Llama(32, 4096, 32, 32, 11008);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Shaped shaped(Lora(c.targets, c.dropout), m);
    const TrainingShape& t = shaped.t;
    const OpRecord& gemm = Op(t.ops(), "lora adapters");
    const OpRecord& glue = Op(t.ops(), "lora casts, dropout, scaling and add");
    EXPECT_DOUBLE_EQ(gemm.weight_params, c.params);
    EXPECT_DOUBLE_EQ(gemm.flops, 2 * c.params);
    EXPECT_DOUBLE_EQ(gemm.moved, c.gemm_moved);
    EXPECT_DOUBLE_EQ(glue.moved * 2, c.glue_bytes);
    EXPECT_DOUBLE_EQ(glue.backward, c.glue_backward);
    EXPECT_DOUBLE_EQ(gemm.kernels + glue.kernels, c.kernels);
    EXPECT_DOUBLE_EQ(Op(t.ops(), "qkv projection").backward, 1) << "frozen: input gradients only";
  }
}

TEST(LoraCostTest, AdapterTimeIsTheirBytesAtTheMemoryBandwidth) {
  // Per layer and token: GEMMs move 32896 elements x 2 bytes forward, twice that backward
  // (3 passes; 1,048,576 FLOPs per pass-unit are far below the A100's ridge); the glue moves
  // 360,448 bytes forward and as many backward. 2048 tokens, 32 layers, A100 at 2039 GB/s x 0.75:
  // (3 x 65,792 + 2 x 360,448) x 2048 x 32 / 1.52925e12 = 39.35 ms.
  const Gpu g = A100();
  const ModelArch m = Llama(32, 4096, 32, 32, 11008);
  const Shaped shaped(Lora(LoraTargets::kAttention), m);
  const TrainingShape& t = shaped.t;
  const double bw = 2039e9 * 0.75;
  const double want = (3 * 65792.0 + 2 * 360448.0) * 2048 * 32 / bw;
  EXPECT_NEAR(AdapterSeconds(t, 2048, 312e12, 0.6, bw), want, 1e-12);
  EXPECT_NEAR(want, 0.03935, 1e-5);
}

TEST(LoraCostTest, HostLaunchesAreAFloorUnderTheMicroBatch) {
  // Launches per layer: norms 18 + 36, q/k/v 3 + 3 (frozen), attention 12 + 24, output 1 + 1,
  // gate/up 2 + 2, SiLU x up 2 + 4, down 1 + 1, adapters 8 + 16 and their glue 20 + 20 = 174;
  // around the layers embedding 1 + 1, final norm 8 + 16, head and loss 5 + 10 = 41. At 1 ms a
  // launch (far above the GPU time) one micro-batch takes 32 x 174 + 41 = 5609 launches.
  const Gpu g = A100();
  const ModelArch m = Llama(32, 4096, 32, 32, 11008);
  const Shaped shaped(Lora(LoraTargets::kAttention), m);
  const TrainingShape& t = shaped.t;
  EXPECT_DOUBLE_EQ(LayerKernels(t.ops(), Rerun::kNone), 174);
  EXPECT_DOUBLE_EQ(ModelKernels(t.ops()), 41);
  Calibration cal = testing::EmbeddedCalibration();
  cal.eager_launch_us = 1000;
  Result<Estimate> e =
      EstimateRun(Lora(LoraTargets::kAttention), m, HardwareFor(g, 1, 1), OneGpu(), cal);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_NEAR(e->time.breakdown.compute, 5.609, 1e-9);
  // Without launch cost the GPU time stands (well under a second).
  cal.eager_launch_us = 0;
  e = EstimateRun(Lora(LoraTargets::kAttention), m, HardwareFor(g, 1, 1), OneGpu(), cal);
  ASSERT_TRUE(e.ok());
  EXPECT_LT(e->time.breakdown.compute, 1.0);
}

TEST(LoraCostTest, FewerTargetsCostLessAndKeepTheMfuBasis) {
  const Gpu g = A100();
  const ModelArch m = Llama(32, 4096, 32, 32, 11008);
  double last = 1e9;
  for (LoraTargets targets : {LoraTargets::kAll, LoraTargets::kAttention, LoraTargets::kQv}) {
    SCOPED_TRACE(std::string(LoraTargetsName(targets)));
    Result<Estimate> e = EstimateRun(Lora(targets), m, HardwareFor(g, 1, 1), OneGpu(),
                                     testing::EmbeddedCalibration());
    ASSERT_TRUE(e.ok());
    EXPECT_LT(e->time.step_s, last);
    EXPECT_LT(e->memory.breakdown.adapters, 1.0);
    last = e->time.step_s;
    // 4N + 12Lhs + 6 x adapter parameters, whatever runs them.
    const double n = 6738415616.0 - 2 * 32000.0 * 4096 + 32000.0 * 4096;
    const double adapters = 32 * AdapterParamsPerLayer(DimsOf(m), 16, targets);
    EXPECT_DOUBLE_EQ(e->flops_per_token, 4 * n + 12.0 * 32 * 4096 * 2048 + 6 * adapters);
  }
}

}  // namespace
}  // namespace gpuplan::perf::internal
