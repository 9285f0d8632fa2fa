// The operation records of a hand-worked Llama-2-7B layer (h 4096, 32 heads, SwiGLU ffn 11008,
// bf16, flash attention, sequence 2048): each op's FLOPs, weights, saved activations and
// streamed elements, and that they sum to the totals the estimate reports.
#include "perf/op_records.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "gpuplan/estimate.h"
#include "testing/embedded_calibration.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::perf::internal {
namespace {

using testing::A100;
using testing::Llama;

// Llama-2-7B's shape with its parameters computed from the shape (6,738,415,616).
ModelArch Llama7B() { return Llama(32, 4096, 32, 32, 11008); }

OpRecords RecordsOf(const ModelArch& m, double seq = 2048, bool flash = true) {
  OpContext c;
  c.seq = seq;
  c.seq_local = seq;
  c.element_bytes = 2;
  c.flash = flash;
  return BuildOpRecords(m, DimsOf(m), c);
}

const OpRecord* Find(const OpRecords& r, std::string_view name) {
  for (int i = 0; i < r.layer_ops; ++i) {
    if (r.layer[i].name == name)
      return &r.layer[i];
  }
  for (int i = 0; i < r.model_ops; ++i) {
    if (r.model[i].name == name)
      return &r.model[i];
  }
  return nullptr;
}

struct OpCase {
  std::string_view name;
  double flops;          // forward, per token
  double weight_params;  //
  double saved_bytes;    // per token
  double moved;          // elements per token
};

TEST(OpRecordsTest, Llama7BLayerOpsMatchTheHandWorkedCounts) {
  // h = 4096, kvd = 4096, f = 11008, e = 2, s = 2048, 32 heads.
  const OpCase cases[] = {
      // Two norm vectors; both norm inputs (2 e h) kept; the h-wide residual stream.
      {"norms, residual adds, dropout", 0, 2 * 4096, 2 * 2 * 4096, 4096},
      // Q, K, V: 3 h^2 weights, 2 FLOPs each; keeps its input e h.
      {"qkv projection", 2 * 50331648.0, 50331648, 2 * 4096, 0},
      // 4 h s per token (QK^T and AV over the full square); keeps Q, K, V (e (h + 2 kvd)) and
      // the fp32 log-sum-exp per head (4 x 32).
      {"attention core", 4.0 * 4096 * 2048, 0, 2 * (4096 + 2 * 4096) + 4 * 32, 0},
      {"output projection", 2 * 16777216.0, 16777216, 2 * 4096, 0},
      {"tp all-reduce after attention", 0, 0, 0, 4096},
      // Gate and up: 2 h f weights; keeps the MLP input.
      {"mlp up and gate", 2 * 90177536.0, 90177536, 2 * 4096, 0},
      // SwiGLU keeps gate, up, SiLU output and product: 4 e f.
      {"activation function", 0, 0, 4 * 2 * 11008, 11008},
      {"mlp down", 2 * 45088768.0, 45088768, 0, 0},
      {"tp all-reduce after mlp", 0, 0, 0, 4096},
      // K and V blocks of the local tokens.
      {"cp key/value ring", 0, 0, 0, 2 * 4096},
      {"logits", 2 * 131072000.0, 131072000, 0, 0},
      {"embedding", 0, 131072000, 0, 0},
      {"final norm", 0, 4096, 0, 0},
      // 32 layers x 2 norm vectors + the final norm: in N but not a listed GEMM.
      {"unlisted weights", 2 * 266240.0, 266240, 0, 0},
  };
  const OpRecords r = RecordsOf(Llama7B());
  for (const OpCase& c : cases) {
    SCOPED_TRACE(std::string(c.name));
    const OpRecord* op = Find(r, c.name);
    ASSERT_NE(op, nullptr);
    EXPECT_DOUBLE_EQ(op->flops, c.flops);
    EXPECT_DOUBLE_EQ(op->weight_params, c.weight_params);
    EXPECT_DOUBLE_EQ(op->saved_bytes, c.saved_bytes);
    EXPECT_DOUBLE_EQ(op->moved, c.moved);
  }
  EXPECT_EQ(Find(r, "routed experts"), nullptr) << "a dense model has no expert records";
  EXPECT_EQ(Find(r, "lora adapters"), nullptr) << "full training has no adapter records";
}

TEST(OpRecordsTest, LayerWeightsSumToTheModelsLayerParameters) {
  const ModelArch m = Llama7B();
  const OpRecords r = RecordsOf(m);
  double layer = 0;
  for (int i = 0; i < r.layer_ops; ++i)
    layer += r.layer[i].weight_params;
  EXPECT_DOUBLE_EQ(layer, 202383360);  // 4 h^2 + 3 h f + 2 h
  EXPECT_DOUBLE_EQ(layer * r.layers, m.LayerParams());
  EXPECT_DOUBLE_EQ(LayerParamScale(m, DimsOf(m)), 1) << "no published total: the shape's weights";
}

TEST(OpRecordsTest, GemmWeightsAreExactlyTheModelsNWithAPublishedTotal) {
  // N = published 7e9 - embedding 2 x 32000 x 4096 + head 32000 x 4096, to the last bit.
  ModelArch m = Llama7B();
  m.params = 7e9;
  const OpRecords r = RecordsOf(m);
  EXPECT_EQ(GemmWeightParams(r), 7e9 - 262144000 + 131072000);
  EXPECT_NEAR(LayerParamScale(m, DimsOf(m)), (7e9 - 262144000) / (6738415616.0 - 262144000), 1e-12);
}

TEST(OpRecordsTest, SavedActivationsSumToTheLayerFormula) {
  // Per token: outside the TP region 2 e h (norm inputs) + e h (QKV input) + e h (MLP input) =
  // 32768 bytes; inside e (2 h + 2 kvd) + 4 e f + 4 a = 120960 bytes (Korthikanti et al. 2022,
  // 4.1, for SwiGLU and flash attention).
  const OpRecords r = RecordsOf(Llama7B());
  const double tokens = 2048;
  struct Case {
    const char* name;
    int tp;
    bool sp;
    Rerun rc;
    double bytes;
  } cases[] = {
      {"no parallelism", 1, false, Rerun::kNone, (32768 + 120960) * tokens},
      {"tp 4 without sequence parallel", 4, false, Rerun::kNone,
       32768 * tokens + 120960 * tokens / 4},
      {"tp 4 with sequence parallel", 4, true, Rerun::kNone, (32768 + 120960) * tokens / 4},
      {"selective keeps all of it with flash", 1, false, Rerun::kSelective,
       (32768 + 120960) * tokens},
      {"full keeps the layer input", 2, true, Rerun::kFull, 2 * 4096 * tokens / 2},
      // torchtitan's op-level policy: outside the TP region the layer input and the down
      // projection's output (the 7th matmul), 2 x 2 x 4096 = 16384; inside q and v (the 1st and
      // 3rd; k, the 2nd, reruns), attention's output and log-sum-exp and the gate (5th; up, the
      // 6th, reruns): 2 x (4096 + 4096 + 4096 + 11008) + 4 x 32 = 46720. The output projection
      // (4th) reruns.
      {"matmul policy keeps every other matmul", 1, false, Rerun::kSelectiveMatmuls,
       (16384 + 46720) * tokens},
      {"matmul policy under tp 4", 4, false, Rerun::kSelectiveMatmuls,
       16384 * tokens + 46720 * tokens / 4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_DOUBLE_EQ(LayerActivationBytes(r, tokens, c.tp, c.sp, c.rc), c.bytes);
  }
}

TEST(OpRecordsTest, SelectiveRecomputationDropsTheUnfusedScores) {
  // Unfused attention keeps the bf16 softmax output: e a s per token (no dropout).
  const OpRecords r = RecordsOf(Llama7B(), 2048, /*flash=*/false);
  const double scores = 2.0 * 32 * 2048;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(r, 1, 1, false, Rerun::kNone),
                   32768 + 2 * 3 * 4096 + 4 * 2 * 11008 + 2 * 4096 + scores);
  EXPECT_DOUBLE_EQ(LayerActivationBytes(r, 1, 1, false, Rerun::kSelective),
                   32768 + 2 * 3 * 4096 + 4 * 2 * 11008 + 2 * 4096);
}

TEST(OpRecordsTest, RecordFlopsAreWhatTheEstimateReports) {
  // 6N + 12 L h s: 6 x 6,607,343,616 + 12 x 32 x 4096 x 2048 = 42,865,287,168 FLOPs per token.
  const Gpu g = A100();
  Workload w;
  w.task = Task::kPretrain;
  w.seq_len = 2048;
  w.global_batch = 8;
  Layout l;
  l.dp = 8;
  Result<Estimate> e =
      EstimateRun(w, Llama7B(), HardwareFor(g, 8, 8), l, testing::EmbeddedCalibration());
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->flops_per_token, 42865287168.0);
  const OpRecords r = RecordsOf(Llama7B());
  EXPECT_EQ(3 * ForwardFlops(r, OpKind::kGemm) + 3 * ForwardFlops(r, OpKind::kAttention),
            42865287168.0);
}

}  // namespace
}  // namespace gpuplan::perf::internal
