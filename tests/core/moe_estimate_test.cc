// The MoE parts of the performance model against hand-worked numbers: expert weights under
// expert parallelism, the dispatch/combine all-to-all volume and time, decode reading only the
// experts a batch touches, and MLA's KV cache.
#include <gtest/gtest.h>

#include <cmath>

#include "gpuplan/estimate.h"
#include "perf/internal.h"
#include "testing/embedded_calibration.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::perf {
namespace {

constexpr double kGiB = 1073741824.0;

using testing::A100;

// Round numbers: no fragmentation, context or transients; NVLink at 75 %, RDMA at 80 %, 20 us
// per collective step, no all-to-all overlap: set by hand for the hand-worked numbers below
// (the shipped rows: 0.80, 0.80, 10 us, 0).
Calibration Plain() {
  Calibration c = testing::EmbeddedCalibration();
  c.allocator_fragmentation = 0;
  c.cuda_context_gib = 0;
  c.transient_factor = 0;
  c.nvlink_efficiency = 0.75;
  c.rdma_efficiency = 0.8;
  c.collective_latency_us = 20;
  c.moe_a2a_overlap = 0;
  return c;
}

// Qwen/Qwen3-30B-A3B config.json (see tests/core/model_test.cc).
ModelArch Qwen3_30B_A3B() {
  ModelArch m;
  m.name = "qwen3-30b-a3b";
  m.mlp = MlpKind::kSwiglu;
  m.layers = 48, m.hidden = 2048, m.heads = 32, m.kv_heads = 4, m.head_dim = 128;
  m.vocab = 151936;
  m.moe.experts = 128, m.moe.top_k = 8, m.moe.expert_ffn = 768;
  return m;
}

Workload Pretrain(int global_batch) {
  Workload w;
  w.task = Task::kPretrain;
  w.precision = Precision::kBf16;
  w.seq_len = 512;
  w.global_batch = global_batch;
  return w;
}

TEST(MoeEstimateTest, ExpertWeightsShardOverEp) {
  const Gpu gpu = A100();
  // Layers and embeddings (the final norm's 2,048 aside: the estimator leaves it out) hold
  // 30,532,108,288 parameters; the 28,991,029,248 of the experts (48 x 128 x 4,718,592) split
  // over ep, the other 1,541,079,040 stay whole: 2 bytes each in BF16.
  struct Case {
    const char* name;
    int ep;
    double want_bytes;
  };
  const Case kCases[] = {
      {"ep1_every_gpu_holds_all", 1, 30532108288.0 * 2},
      {"ep8_one_eighth_of_the_experts", 8, (1541079040.0 + 28991029248.0 / 8) * 2},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Layout l;
    l.dp = 8;
    l.ep = c.ep;
    Result<Estimate> e =
        EstimateRun(Pretrain(8), Qwen3_30B_A3B(), HardwareFor(gpu, 8, 8), l, Plain());
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_NEAR(e->memory.breakdown.weights, c.want_bytes / kGiB, 1e-6);
    EXPECT_NEAR(e->memory.breakdown.gradients, c.want_bytes / kGiB, 1e-6);
  }
}

// Serving weights by format: the same 28,991,029,248 expert and 1,541,079,040 other parameters
// as above. MXFP4 holds 4 bits and an 8-bit scale per 32 (4.25 bits); GPTQ/AWQ int4 4 bits and
// 20 bits per 128 (4.15625); quantising the experts only leaves the rest in 16 bits (gpt-oss).
TEST(MoeEstimateTest, ServingWeightsByFormatAndQuantisedLayers) {
  constexpr double kExperts = 28991029248.0, kOther = 1541079040.0;
  // The embedding and head: 2 x 151,936 x 2,048; never quantised.
  constexpr double kEmbed = 2 * 151936.0 * 2048;
  struct Case {
    const char* name;
    int bits;
    WeightFormat format;
    QuantizedLayers layers;
    double want_bytes;
  };
  const Case kCases[] = {
      {"bf16", 0, WeightFormat::kInt, QuantizedLayers::kAll, (kExperts + kOther) * 2},
      {"mxfp4_experts_rest_bf16", 4, WeightFormat::kMxfp4, QuantizedLayers::kExperts,
       kExperts * 4.25 / 8 + kOther * 2},
      {"mxfp4_all_layers", 4, WeightFormat::kMxfp4, QuantizedLayers::kAll,
       (kExperts + kOther - kEmbed) * 4.25 / 8 + kEmbed * 2},
      {"int4_all_layers", 4, WeightFormat::kInt, QuantizedLayers::kAll,
       (kExperts + kOther - kEmbed) * 4.15625 / 8 + kEmbed * 2},
      {"int8_experts_only", 8, WeightFormat::kInt, QuantizedLayers::kExperts,
       kExperts * (8 + 24.0 / 128) / 8 + kOther * 2},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w;
    w.task = Task::kInference;
    w.precision = Precision::kBf16;
    w.weight_bits = c.bits;
    w.weight_format = c.format;
    w.quantized_layers = c.layers;
    w.inference.prompt_tokens = 128;
    w.inference.output_tokens = 128;
    w.inference.batch = 1;
    Layout l;
    Result<Estimate> e = EstimateRun(w, Qwen3_30B_A3B(), HardwareFor(A100(), 1, 8), l, Plain());
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_NEAR(e->memory.breakdown.weights, c.want_bytes / kGiB, 1e-6);
  }
}

// Eager HF generate of an MoE loops over every routed expert in each MoE layer (Transformers'
// Qwen3-MoE block before 4.54): the host's 850 us per layer (hf_layer_overhead_us) plus 128 x 82
// us (hf_expert_iteration_us) over 48 layers, 544.6 ms per token, far above the GPU's work at
// batch 1. An engine's fused MoE kernels have no such loop.
TEST(MoeEstimateTest, HfGenerateLoopsOverEveryExpert) {
  const Calibration cal = Plain();
  struct Case {
    const char* name;
    Engine engine;
    double want_tpot_ms_min, want_tpot_ms_max;
  };
  const double loop_ms = 48 * (cal.hf_layer_overhead_us + 128 * cal.hf_expert_iteration_us) / 1e3;
  const Case kCases[] = {
      {"hf_host_loop", Engine::kHf, loop_ms * 0.999, loop_ms * 1.001},
      {"vllm_no_loop", Engine::kVllm, 0, 30},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w;
    w.task = Task::kInference;
    w.precision = Precision::kBf16;
    w.inference.engine = c.engine;
    w.inference.prompt_tokens = 16;
    w.inference.output_tokens = 64;
    w.inference.batch = 1;
    Result<Estimate> e = EstimateRun(w, Qwen3_30B_A3B(), HardwareFor(A100(), 1, 8), Layout{}, cal);
    ASSERT_TRUE(e.ok()) << e.status().message();
    ASSERT_TRUE(e->inference.has_value());
    EXPECT_GE(e->inference->tpot_ms, c.want_tpot_ms_min);
    EXPECT_LE(e->inference->tpot_ms, c.want_tpot_ms_max);
  }
}

TEST(MoeEstimateTest, AllToAllVolumeAndTime) {
  const Gpu gpu = A100();
  // One micro-batch of 512 tokens per GPU; each token's 8 copies of 2048 x 2 bytes; 48 MoE
  // layers x 4 all-to-alls (dispatch + combine, forward and backward).
  const double copy_bytes = 512.0 * 2048 * 2;
  const double latency = 2 * 20e-6;
  // ep 8 inside one node: 7 of the 8 copies leave the GPU, 14,680,064 bytes per all-to-all over
  // 300 GB/s x 0.75 NVLink.
  const double intra = copy_bytes * 7 / (300e9 * 0.75) + latency;
  // ep 16 over two nodes (1600 Gbit/s per node, 8 GPUs): a token crosses to the other node once
  // if any of its 8 experts is there: 2 (1 - 2^-8) x 1/2 = 0.996 copies, over 20 GB/s per GPU.
  const double inter =
      copy_bytes * (2 * (1 - std::pow(0.5, 8)) * 0.5) / (1600e9 / 8 * 0.8 / 8) + latency;
  // With the overlap on (--moe-a2a-overlap), moe_a2a_overlap_on of it runs behind another
  // micro-batch's compute: set to 0.8 here, 20% stays exposed.
  struct Case {
    const char* name;
    int gpus, ep;
    bool overlap;
    double want_s;
  };
  const Case kCases[] = {{"ep8_nvlink", 8, 8, false, 192 * intra},
                         {"ep16_two_nodes", 16, 16, false, 192 * inter},
                         {"ep16_two_nodes_overlapped", 16, 16, true, 0.2 * 192 * inter}};
  Calibration cal = Plain();
  cal.moe_a2a_overlap_on = 0.8;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Layout l;
    l.dp = c.gpus;
    l.ep = c.ep;
    Hardware hw = HardwareFor(gpu, c.gpus, 8);
    if (hw.nodes > 1) {  // DGX A100's fabric, stated: 8 x 200 Gbit/s RDMA per node
      hw.inter_node_gbps = 1600;
      hw.rdma = true;
    }
    Workload w = Pretrain(c.gpus);
    w.moe_a2a_overlap = c.overlap;
    Result<Estimate> e = EstimateRun(w, Qwen3_30B_A3B(), hw, l, cal);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_NEAR(e->time.breakdown.ep_comm, c.want_s, 1e-9);
  }
  Layout dense;
  dense.dp = 8;
  Result<Estimate> e =
      EstimateRun(Pretrain(8), Qwen3_30B_A3B(), HardwareFor(gpu, 8, 8), dense, Plain());
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->time.breakdown.ep_comm, 0);  // ep 1: every expert is local
}

TEST(MoeEstimateTest, MlaCacheIsOneLatentReplicatedOverTensorParallel) {
  ModelArch m;  // deepseek-ai/DeepSeek-V3 config.json
  m.mlp = MlpKind::kSwiglu;
  m.layers = 61, m.hidden = 7168, m.heads = 128, m.kv_heads = 128, m.ffn = 18432;
  m.vocab = 129280;
  m.attention = AttentionKind::kMla;
  m.mla = {.q_lora_rank = 1536,
           .kv_lora_rank = 512,
           .qk_rope_head_dim = 64,
           .qk_nope_head_dim = 128,
           .v_head_dim = 128};
  m.moe = {.experts = 256,
           .top_k = 8,
           .expert_ffn = 2048,
           .shared_experts = 1,
           .shared_ffn = 0,
           .dense_layers = 3,
           .moe_every = 1};
  Gpu gpu = A100();
  gpu.tflops[static_cast<int>(Precision::kFp8)] = 624;
  // (512 + 64) x 61 layers x 1,000 tokens on every one of the 8 ranks, in the cache's bytes: FP8
  // weights keep a 16-bit cache in vLLM (kv_cache_dtype "auto"); TensorRT-LLM's FP8 builds
  // cache in FP8.
  struct Case {
    std::string name;
    Engine engine;
    double cache_bytes;
  };
  const Case kCases[] = {
      {"vllm_fp8_weights_bf16_cache", Engine::kVllm, 2},
      {"trtllm_fp8_cache", Engine::kTrtllm, 1},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w;
    w.task = Task::kInference;
    w.precision = Precision::kFp8;
    w.inference.engine = c.engine;
    w.inference.prompt_tokens = 900;
    w.inference.output_tokens = 100;
    w.inference.batch = 1;
    Layout l;
    l.tp = 8;
    Result<Estimate> e = EstimateRun(w, m, HardwareFor(gpu, 8, 8), l, Plain());
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_NEAR(e->memory.breakdown.kv_cache, 576.0 * 61 * 1000 * c.cache_bytes / kGiB, 1e-9);
  }
}

// The busiest expert gets moe_load_imbalance times the mean rows: more arithmetic, not another
// read of its weights. Qwen3-30B-A3B on an A100, 64 tokens (4 rows an expert: weight-bound) and
// a saturated 10^7: the time is the arithmetic at the inner size's ceiling times the imbalance
// plus what the few rows add over it (the weight read), so raising the imbalance from 1 to 1.5
// adds exactly half the arithmetic however few the rows.
TEST(MoeEstimateTest, LoadImbalanceSlowsTheArithmeticNotTheWeightRead) {
  const Gpu gpu = A100();
  const ModelArch m = Qwen3_30B_A3B();
  Calibration cal = Plain();
  const ArchEfficiency eff = cal.For(gpu);
  const double peak = 312, flops = 1e12;
  for (const double tokens : {64.0, 1e7}) {
    SCOPED_TRACE(tokens);
    const double at_rows = flops / (peak * 1e12 *
                                    internal::ExpertGemmEfficiency(m, eff, cal, gpu, peak, tokens,
                                                                   1, Precision::kBf16, 2));
    const double math = flops / (peak * 1e12 * eff.gemm_fraction * 768 / (768 + 256.0));
    cal.moe_load_imbalance = 1;
    const double balanced =
        internal::ExpertGemmSeconds(m, eff, cal, gpu, peak, tokens, 1, Precision::kBf16, 2, flops);
    cal.moe_load_imbalance = 1.5;
    const double skewed =
        internal::ExpertGemmSeconds(m, eff, cal, gpu, peak, tokens, 1, Precision::kBf16, 2, flops);
    EXPECT_NEAR(balanced, at_rows, 1e-9 * at_rows);
    EXPECT_NEAR(skewed - balanced, 0.5 * math, 1e-6 * math);
  }
}

// The read floor (Estimate::inference_floor): what a batch would take if every step only read
// what it must at the datasheet bandwidth. Qwen3-30B-A3B in BF16 on one A100 (2,039 GB/s), one
// request of 128 + 128 tokens: a decode step reads the non-expert weights less the input
// embedding (a lookup of the token's row; the untied head is read in full), the 8 of 128
// experts the token routes to, and the KV cache at its mean length (192 tokens x 48 layers x
// 2 x 4 x 128 x 2 bytes); the prefill of 128 tokens reaches 1 - (120/128)^128 of the experts.
TEST(MoeEstimateTest, TheReadFloorIsTheTouchedWeightsAtDatasheetBandwidth) {
  constexpr double kExperts = 28991029248.0, kOther = 1541079040.0, kBw = 2039e9;
  constexpr double kLookup = 151936.0 * 2048 * 2;
  Workload w;
  w.task = Task::kInference;
  w.precision = Precision::kBf16;
  w.inference.prompt_tokens = 128;
  w.inference.output_tokens = 128;
  w.inference.batch = 1;
  Result<Estimate> e =
      EstimateRun(w, Qwen3_30B_A3B(), HardwareFor(A100(), 1, 8), Layout{}, Plain());
  ASSERT_TRUE(e.ok()) << e.status().message();
  ASSERT_TRUE(e->inference_floor.has_value());
  const double kv = 192.0 * 48 * 2 * 4 * 128 * 2;
  const double step = (kOther * 2 - kLookup + kExperts * 2 * 8 / 128 + kv) / kBw;
  const double prefill =
      (kOther * 2 - kLookup + kExperts * 2 * (1 - std::pow(120.0 / 128, 128))) / kBw;
  EXPECT_NEAR(e->inference_floor->tpot_ms, step * 1e3, 1e-9);
  EXPECT_NEAR(e->inference_floor->ttft_ms, prefill * 1e3, 1e-9);
  EXPECT_NEAR(e->inference_floor->request_s, prefill + 127 * step, 1e-12);
}

// No prediction is faster than the floor: the model's reads run at memory_bw_fraction of the
// datasheet and its arithmetic, launches and collectives only add.
TEST(MoeEstimateTest, NoPredictionBeatsTheReadFloor) {
  struct Case {
    const char* name;
    bool moe;
    int batch, tp;
    Engine engine;
  };
  const Case kCases[] = {
      {"moe_batch1_vllm", true, 1, 1, Engine::kVllm},
      {"moe_batch64_trtllm", true, 64, 1, Engine::kTrtllm},
      {"moe_batch256_tp2_vllm", true, 256, 2, Engine::kVllm},
      {"dense_batch1_hf", false, 1, 1, Engine::kHf},
      {"dense_batch32_tp2_trtllm", false, 32, 2, Engine::kTrtllm},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w;
    w.task = Task::kInference;
    w.precision = Precision::kBf16;
    w.inference.prompt_tokens = 512;
    w.inference.output_tokens = 256;
    w.inference.batch = c.batch;
    w.inference.engine = c.engine;
    Layout l;
    l.tp = c.tp;
    const ModelArch m = c.moe ? Qwen3_30B_A3B() : testing::Llama3_8B();
    Result<Estimate> e = EstimateRun(w, m, HardwareFor(A100(), c.tp, 8), l, Plain());
    ASSERT_TRUE(e.ok()) << e.status().message();
    const InferenceTimes& floor = *e->inference_floor;
    EXPECT_LT(floor.ttft_ms, e->inference->ttft_ms);
    EXPECT_LT(floor.tpot_ms, e->inference->tpot_ms);
    EXPECT_GT(floor.tokens_per_s_per_gpu, e->inference->tokens_per_s_per_gpu);
  }
}

// Tensor parallelism without expert parallelism splits every expert's matrices over the group
// (vLLM's and SGLang's default for an MoE): each GPU multiplies 1 / tp of an expert's width, a
// narrower GEMM; expert parallelism over the group keeps whole experts (Megatron's MoE parallel
// folding: ep x tp beyond the group's GPUs takes the experts' tp down to 1).
TEST(MoeEstimateTest, TensorParallelismSplitsEachExpertsGemm) {
  struct Case {
    const char* name;
    int tp, ep, dp;
    double want_split;
  };
  const Case kCases[] = {
      {"tp8_serving", 8, 1, 1, 8},          {"tp8_ep8_serving", 8, 8, 1, 1},
      {"tp1_ep8_training", 1, 8, 8, 1},     {"tp2_ep8_folded", 2, 8, 8, 2},
      {"tp2_ep32_over_dp16", 2, 32, 16, 1},
  };
  const Gpu gpu = A100();
  const ModelArch m = Qwen3_30B_A3B();  // expert_ffn 768
  const Calibration cal = Plain();
  const ArchEfficiency eff = cal.For(gpu);
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Layout l;
    l.tp = c.tp, l.ep = c.ep, l.dp = c.dp;
    EXPECT_DOUBLE_EQ(internal::ExpertTensorSplit(l), c.want_split);
    EXPECT_DOUBLE_EQ(internal::ExpertGemmEfficiency(m, eff, cal, gpu, 312, 1e7, c.want_split,
                                                    Precision::kBf16, 2),
                     internal::GemmEfficiency(eff, cal, gpu, 312, 768 / c.want_split, 1e7 * 8 / 128,
                                              Precision::kBf16, 2));
  }
}

// Qwen3-30B-A3B served by vLLM with its experts over 16 A100s on two nodes (DGX A100's
// 8 x 200 Gbit/s RDMA per node), 8 prompts of 512 tokens, 64 generated, the all-to-all's
// overlap on or off, moe_a2a_overlap_on `on` of it hidden when on.
Estimate CrossNodeExpertServing(bool overlap, double on) {
  Layout l;
  l.ep = 16, l.dp = 16;
  const Gpu gpu = A100();  // the hardware points at it: it outlives the estimate
  Hardware hw = HardwareFor(gpu, 16, 8);
  hw.inter_node_gbps = 1600;
  hw.rdma = true;
  Workload w;
  w.task = Task::kInference;
  w.precision = Precision::kBf16;
  w.inference.engine = Engine::kVllm;
  w.inference.prompt_tokens = 512;
  w.inference.output_tokens = 64;
  w.inference.batch = 8;
  w.moe_a2a_overlap = overlap;
  Calibration cal = Plain();
  cal.moe_a2a_overlap_on = on;
  Result<Estimate> e = EstimateRun(w, Qwen3_30B_A3B(), hw, l, cal);
  EXPECT_TRUE(e.ok() && e->inference) << e.status().message();
  return e.ok() ? *e : Estimate{};
}

// Serving with expert parallelism over two nodes: a two-batch overlap (SGLang
// --enable-two-batch-overlap, vLLM --enable-dbo; moe_a2a_overlap in the workload) hides
// moe_a2a_overlap_on of the dispatch and combine in the prefill and in every decode step, as
// training's overlap does. The all-to-all adds to the rest of each pass, so the time falls
// by exactly that share of it: the fully hidden run (on = 1) measures the all-to-all.
TEST(MoeEstimateTest, ServingTwoBatchOverlapHidesItsShareOfTheAllToAll) {
  const InferenceTimes off = *CrossNodeExpertServing(false, 0.8).inference;
  const InferenceTimes hidden = *CrossNodeExpertServing(true, 1.0).inference;
  const InferenceTimes on = *CrossNodeExpertServing(true, 0.8).inference;
  const double a2a_prefill = off.prefill_s - hidden.prefill_s;
  const double a2a_token_ms = off.tpot_ms - hidden.tpot_ms;
  EXPECT_GT(a2a_prefill, 0.05 * off.prefill_s);  // two nodes: the all-to-all is no rounding
  EXPECT_GT(a2a_token_ms, 0.05 * off.tpot_ms);
  EXPECT_NEAR(on.prefill_s, off.prefill_s - 0.8 * a2a_prefill, 1e-12);
  EXPECT_NEAR(on.tpot_ms, off.tpot_ms - 0.8 * a2a_token_ms, 1e-9);
}

// A service's time splits as a training step's does: the all-to-alls of its prefill and of its
// out - 1 decode steps are ep_comm, what the fully hidden run saves; no tensor parallelism here.
TEST(MoeEstimateTest, ServingBreakdownNamesItsAllToAlls) {
  const Estimate open = CrossNodeExpertServing(false, 1.0);
  const Estimate hidden = CrossNodeExpertServing(true, 1.0);
  const Estimate::Time& t = open.time;
  EXPECT_NEAR(t.breakdown.ep_comm, t.step_s - hidden.time.step_s, 1e-9 * t.step_s);
  EXPECT_GT(t.breakdown.ep_comm, 0.05 * t.step_s);
  EXPECT_EQ(t.breakdown.tp_comm, 0);
  EXPECT_NEAR(t.breakdown.compute + t.breakdown.ep_comm, t.step_s, 1e-12 * t.step_s);
  EXPECT_EQ(hidden.time.breakdown.ep_comm, 0);
}

TEST(MoeEstimateTest, LayoutErrorsNameTheDegree) {
  const Gpu gpu = A100();
  Layout l;
  l.dp = 8;
  l.ep = 3;
  Result<Estimate> e =
      EstimateRun(Pretrain(8), Qwen3_30B_A3B(), HardwareFor(gpu, 8, 8), l, Plain());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("ep 3"), std::string::npos) << e.status().message();
}

}  // namespace
}  // namespace gpuplan::perf
