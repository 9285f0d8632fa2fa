// Pins each formula of the performance model to a hand-worked example with its source.
#include "gpuplan/estimate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "testing/embedded_calibration.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::perf {
namespace {

constexpr double kGiB = 1073741824.0;

using testing::A100;

// The shipped calibration with round numbers so expected values can be worked by hand: no
// fragmentation or context, no transients.
Calibration Plain() {
  Calibration c = testing::EmbeddedCalibration();
  c.allocator_fragmentation = 0;
  c.cuda_context_gib = 0;
  c.transient_factor = 0;
  return c;
}

// Plain() with round Ampere efficiencies, for hand-worked times.
Calibration PlainAmpere() {
  Calibration c = Plain();
  ArchEfficiency ampere;
  ampere.architecture = "Ampere";
  ampere.gemm_fraction = 0.75;
  ampere.simt_fraction = 0.8;
  ampere.memory_bw_fraction = 0.8;
  ampere.attention_fraction = 0.3;
  c.archs = {ampere};
  return c;
}

// Llama-2-7B shape with exactly 7e9 parameters published.
ModelArch Model7B() {
  ModelArch m;
  m.name = "test-7b";
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 32;
  m.ffn = 11008;
  m.vocab = 32000;
  m.mlp = MlpKind::kSwiglu;
  m.params = 7e9;
  return m;
}

// GPT-style layer as in Korthikanti et al. 2022 (GELU, f = 4h, dropout, no GQA).
ModelArch GptLike() {
  ModelArch m;
  m.name = "gpt-like";
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 32;
  m.ffn = 4 * 4096;
  m.vocab = 51200;
  m.mlp = MlpKind::kGelu;
  m.dropout = true;
  return m;
}

Workload Pretrain(int seq, int global_batch) {
  Workload w;
  w.task = Task::kPretrain;
  w.method = Method::kFull;
  w.seq_len = seq;
  w.global_batch = global_batch;
  return w;
}

TEST(EstimateTest, ModelStatesFollowZeroPaper) {
  // Rajbhandari et al. 2020 (ZeRO), 3.1: mixed-precision Adam = 2 + 2 + 12 = 16 bytes/param;
  // 7e9 x 16 B = 104.3 GiB before activations. ZeRO stages shard states over dp; gpuplan adds
  // DeepSpeed's fp32 gradient partition (4 B/param) under ZeRO >= 1.
  struct Case {
    std::string name;
    Optimizer optimizer;
    int dp, zero;
    double want_states_gib;
    bool master_weights = true;
  };
  // Worked by hand: 7e9 parameters = 6.519 GiB per byte of state per parameter.
  const Case kCases[] = {
      {"adamw_mixed_16_bytes", Optimizer::kAdamw, 1, 0, 104.31},  // 16 B x 6.519 GiB
      // 2 + 2 + 4 (master) + 8-bit m and v with a 4-byte absmax per 256 values of each (2.03125).
      {"adamw_8bit_10_bytes", Optimizer::kAdamw8bit, 1, 0, 65.40},
      {"sgd_momentum_12_bytes", Optimizer::kSgd, 1, 0, 78.23},
      {"zero1_dp8", Optimizer::kAdamw, 8, 1, 39.12},  // 2 + 2 + 16/8 B
      {"zero2_dp8", Optimizer::kAdamw, 8, 2, 27.71},  // 2 + 2/8 + 16/8 B
      {"zero3_dp8", Optimizer::kAdamw, 8, 3, 16.30},  // 20/8 B
      // Pure bf16 (torchtune): 2 B weights + 2 B gradients + bf16 m and v = 8 bytes/param.
      {"adamw_pure_bf16_8_bytes", Optimizer::kAdamw, 1, 0, 52.15, false},
      {"sgd_pure_bf16_6_bytes", Optimizer::kSgd, 1, 0, 39.12, false},
      {"zero1_pure_bf16_no_fp32_grads", Optimizer::kAdamw, 8, 1, 29.34, false},  // 4 + 4/8 B
  };
  const Gpu gpu = A100();
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w = Pretrain(2048, 64);
    w.optimizer = c.optimizer;
    w.master_weights = c.master_weights;
    Layout l;
    l.dp = c.dp;
    l.zero = c.zero;
    Result<Estimate> e = EstimateRun(w, Model7B(), HardwareFor(gpu, c.dp, 8), l, Plain());
    ASSERT_TRUE(e.ok()) << e.status().message();
    const MemoryBreakdown& m = e->memory.breakdown;
    EXPECT_NEAR(m.weights + m.gradients + m.optimizer, c.want_states_gib, 0.01);
  }
}

TEST(EstimateTest, TheLossHoldsTheLogitsAsItsCrossEntropyDoes) {
  // A small Llama-shaped model of 1e8 parameters (vocabulary 32,000) at seq 2048, micro-batch
  // 2: 131.07M logits. The loss holds, per logit, 16-bit logits plus: fp32 upcast 12 B (14 in
  // all), chunked or fused 4 (6), native 16-bit 6 (8). With one micro-batch per step the
  // gradients (1e8 x 2 B = 0.19 GiB) are freed at the loss; with accumulation they are held.
  constexpr double kLogits = 2048.0 * 2 * 32000 / kGiB;  // GiB per byte per logit
  constexpr double kGradients = 1e8 * 2 / kGiB;
  ModelArch model = testing::Llama(4, 1024, 8, 8, 2816);
  model.params = 1e8;
  struct Case {
    std::string name;
    std::optional<CrossEntropy> workload;   // the workload's own choice
    std::optional<CrossEntropy> framework;  // else the framework's
    int global_batch;                       // 2: one micro-batch per step; 4: two
    double want_transient_gib;
  };
  const Case kCases[] = {
      {"fp32_default_accumulating", std::nullopt, std::nullopt, 4, 14 * kLogits},
      {"fp32_one_micro_batch_frees_the_gradients", CrossEntropy::kFp32, std::nullopt, 2,
       14 * kLogits - kGradients},
      {"chunked", CrossEntropy::kChunked, std::nullopt, 4, 6 * kLogits},
      {"native_16_bit", CrossEntropy::kNative, std::nullopt, 4, 8 * kLogits},
      // Fused with the output projection: a hidden-sized chunk in fp32 and the hidden states'
      // gradient, 10 bytes per hidden value (1024) of each of the 4096 tokens.
      {"fused_linear", CrossEntropy::kFusedLinear, std::nullopt, 4, 2048.0 * 2 * 1024 * 10 / kGiB},
      {"fused_from_the_framework", std::nullopt, CrossEntropy::kFused, 4, 6 * kLogits},
      {"workload_overrides_the_framework", CrossEntropy::kFp32, CrossEntropy::kFused, 4,
       14 * kLogits},
  };
  Calibration cal = Plain();
  cal.transient_factor = 1;
  const Gpu gpu = A100();
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w = Pretrain(2048, c.global_batch);
    w.cross_entropy = c.workload;
    if (c.framework) {
      Framework f;
      f.name = "stack";
      f.caps.full = true;
      f.caps.zero_stages = 1;
      f.cross_entropy = *c.framework;
      w.frameworks = {f};
    }
    Layout l;
    l.micro_batch = 2;
    Result<Estimate> e = EstimateRun(w, model, HardwareFor(gpu, 1, 8), l, cal);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_NEAR(e->memory.breakdown.transient, c.want_transient_gib, 1e-4);
  }
}

TEST(EstimateTest, ActivationsFollowKorthikanti) {
  // Korthikanti et al. 2022, Table 2: per layer sbh(34 + 5as/h) without parallelism;
  // sbh(10 + 24/t + 5as/(ht)) with tensor parallel t; sbh(34/t) with sequence parallel and
  // selective recompute; 2sbh with full recompute. Flash attention drops the 5as/h term and
  // keeps a 4-byte log-sum-exp per head and position.
  const double s = 2048, b = 1, h = 4096, a = 32, layers = 32;
  const double sbh = s * b * h;
  struct Case {
    std::string name;
    int tp;
    bool sp, flash;
    Recompute rc;
    double want_per_layer_bytes;
  };
  const Case kCases[] = {
      {"no_parallelism", 1, false, false, Recompute::kNone, sbh * (34 + 5 * a * s / h)},
      {"tensor_parallel_8", 8, false, false, Recompute::kNone,
       sbh * (10 + 24.0 / 8 + 5 * a * s / (h * 8))},
      {"tp8_sequence_parallel", 8, true, false, Recompute::kNone, sbh * (34 + 5 * a * s / h) / 8},
      {"tp8_sp_selective", 8, true, false, Recompute::kSelective, sbh * 34 / 8},
      {"full_recompute", 1, false, false, Recompute::kFull, 2 * sbh},
      {"flash_attention", 1, false, true, Recompute::kNone, sbh * 34 + 4 * a * s * b},
  };
  const Gpu gpu = A100();
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w = Pretrain(2048, 8);
    Layout l;
    l.tp = c.tp;
    l.dp = 8 / c.tp;
    l.sequence_parallel = c.sp;
    l.flash_attention = c.flash;
    l.recompute = c.rc;
    Result<Estimate> e = EstimateRun(w, GptLike(), HardwareFor(gpu, 8, 8), l, Plain());
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_NEAR(e->memory.breakdown.activations, c.want_per_layer_bytes * layers / kGiB, 1e-6);
  }
}

TEST(EstimateTest, LoraAndQloraWeights) {
  // QLoRA (Dettmers et al. 2023): NF4 base = 4 bits + double-quantised constants (8/64 +
  // 32/(64*256) bits) = 4.127 bits/param for the layers; embeddings stay 16-bit. LoRA on all
  // linear layers adds r(in + out) per matrix, trained in fp32 with AdamW: 16 B/param.
  const ModelArch m = Model7B();
  const double layer_params = 7e9 - 2 * 32000.0 * 4096;  // published total minus embeddings
  const double r = 8;
  const double adapters_per_layer =
      r * (2 * 4096 + 2 * (4096 + 4096) + 2 * 4096) + 3 * r * (4096 + 11008);
  struct Case {
    std::string name;
    Method method;
    double want_weights_gib, want_adapters_gib;
  };
  const Case kCases[] = {
      {"lora_bf16_base", Method::kLora, 7e9 * 2 / kGiB, 32 * adapters_per_layer * 16 / kGiB},
      {"qlora_nf4_base", Method::kQlora,
       (layer_params * (4 + 8.0 / 64 + 32.0 / (64 * 256)) / 8 + 2 * 32000.0 * 4096 * 2) / kGiB,
       32 * adapters_per_layer * 16 / kGiB},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w = Pretrain(512, 1);
    w.task = Task::kFinetune;
    w.method = c.method;
    w.weight_bits = c.method == Method::kQlora ? 4 : 0;
    w.lora_rank = static_cast<int>(r);
    const Gpu gpu = A100();
    Result<Estimate> e = EstimateRun(w, m, HardwareFor(gpu, 1, 1), Layout{}, Plain());
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_NEAR(e->memory.breakdown.weights, c.want_weights_gib, 0.01);
    EXPECT_NEAR(e->memory.breakdown.adapters, c.want_adapters_gib, 0.01);
    EXPECT_EQ(e->memory.breakdown.gradients, 0);
    EXPECT_EQ(e->memory.breakdown.optimizer, 0);
  }
}

TEST(EstimateTest, KvCacheAndFlopsPerToken) {
  // KV cache (Pope et al. 2022): 2 (K, V) x layers x context x kv_heads x head_dim x 2 bytes:
  // Llama-2-7B at 4096 tokens, batch 1 = 2 x 32 x 4096 x 4096 x 2 B = 2.0 GiB.
  Workload inf;
  inf.task = Task::kInference;
  inf.inference.prompt_tokens = 2048;
  inf.inference.output_tokens = 2048;
  inf.inference.batch = 1;
  const Gpu gpu = A100();
  Result<Estimate> e = EstimateRun(inf, Model7B(), HardwareFor(gpu, 1, 1), Layout{}, Plain());
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_NEAR(e->memory.breakdown.kv_cache, 2.0, 1e-9);
  ASSERT_TRUE(e->inference.has_value());
  EXPECT_TRUE(e->inference->decode_memory_bound);  // batch 1 decode reads every weight

  // Training FLOPs per token (Narayanan et al. 2021; PaLM App. B): 6 N + 12 L h s, with N
  // the parameters that multiply (embedding lookups are free; the output head counts).
  ModelArch m = GptLike();
  Result<Estimate> t = EstimateRun(Pretrain(2048, 8), m, HardwareFor(gpu, 1, 1), Layout{}, Plain());
  ASSERT_TRUE(t.ok()) << t.status().message();
  const double n_matmul = m.Params() - m.EmbeddingParams() + 51200.0 * 4096;
  EXPECT_NEAR(t->flops_per_token, 6 * n_matmul + 12.0 * 32 * 4096 * 2048, 1);
}

// FP8 weights on a GPU without FP8 units (A100) are served weight-only, as vLLM's FP8 Marlin
// kernels run them: bf16 math over 1-byte weights (plus the 8-bit path's group scales,
// (16 + 8) / 128 bits per weight), the KV cache in bf16. So the weights take about half the
// bf16 memory, batch-1 decode (a read of every weight) is nearly twice as fast, and the
// estimate equals the bf16 one with 8-bit weights. FP8 training still needs FP8 units.
TEST(EstimateTest, Fp8WeightsRunWeightOnlyWithoutFp8Units) {
  Workload inf;
  inf.task = Task::kInference;
  inf.inference.prompt_tokens = 512;
  inf.inference.output_tokens = 256;
  inf.inference.batch = 1;
  const Gpu gpu = A100();
  const Hardware hw = HardwareFor(gpu, 1, 1);
  Workload fp8 = inf, bf16 = inf, int8 = inf;
  fp8.precision = Precision::kFp8;
  bf16.precision = Precision::kBf16;
  int8.precision = Precision::kBf16;
  int8.weight_bits = 8;
  Result<Estimate> e8 = EstimateRun(fp8, Model7B(), hw, Layout{}, Plain());
  Result<Estimate> e16 = EstimateRun(bf16, Model7B(), hw, Layout{}, Plain());
  Result<Estimate> eq = EstimateRun(int8, Model7B(), hw, Layout{}, Plain());
  ASSERT_TRUE(e8.ok()) << e8.status().message();
  ASSERT_TRUE(e16.ok() && eq.ok());
  EXPECT_NEAR(e8->memory.breakdown.weights / e16->memory.breakdown.weights, (8 + 24.0 / 128) / 16,
              0.03);  // the embeddings stay 16-bit
  EXPECT_DOUBLE_EQ(e8->memory.breakdown.kv_cache, e16->memory.breakdown.kv_cache);
  EXPECT_DOUBLE_EQ(e8->inference->tpot_ms, eq->inference->tpot_ms);
  EXPECT_LT(e8->inference->tpot_ms, 0.7 * e16->inference->tpot_ms);
  EXPECT_DOUBLE_EQ(e8->peak_tflops, 312);  // the bf16 peak, not an FP8 one the A100 lacks

  Workload train = Pretrain(2048, 8);
  train.precision = Precision::kFp8;
  EXPECT_FALSE(EstimateRun(train, Model7B(), hw, Layout{}, Plain()).ok());
  EXPECT_FALSE(Fp8WeightOnly(gpu, Precision::kFp8, /*inference=*/false));
  EXPECT_TRUE(Fp8WeightOnly(gpu, Precision::kFp8, /*inference=*/true));
  EXPECT_FALSE(Fp8WeightOnly(testing::H100(), Precision::kFp8, /*inference=*/true));
}

// FP8 serving on a GPU with FP8 units puts only the linear layers' weights in FP8. vLLM and SGLang
// keep the embeddings and head, the KV cache (kv_cache_dtype "auto") and the attention core in
// 16 bits; TensorRT-LLM's FP8 builds cache in FP8 and run FP8 context attention. Llama-2-7B
// shape on an H100, one 65,536-token prompt: the causal attention core is 4 x 32 x 65536^2 x
// 4096 / 2 = 1.126e15 FLOPs, 5.69 s at Hopper's 0.2 of the 989 TFLOPS BF16 peak, so vLLM's time
// to first token exceeds it and TensorRT-LLM's (twice the peak) does not.
TEST(EstimateTest, Fp8ServingKeepsCacheAttentionAndEmbeddingsIn16BitsOutsideTensorRtLlm) {
  Workload inf;
  inf.task = Task::kInference;
  inf.inference.prompt_tokens = 65536;
  inf.inference.output_tokens = 16;
  inf.inference.batch = 1;
  const Gpu gpu = testing::H100();  // outlives hw, which points at it
  const Hardware hw = HardwareFor(gpu, 1, 1);
  const ModelArch m = Model7B();
  Workload bf16 = inf, vllm = inf, trtllm = inf;
  vllm.precision = trtllm.precision = Precision::kFp8;
  vllm.inference.engine = Engine::kVllm;
  trtllm.inference.engine = Engine::kTrtllm;
  bf16.inference.engine = Engine::kVllm;
  Result<Estimate> e16 = EstimateRun(bf16, m, hw, Layout{}, Plain());
  Result<Estimate> ev = EstimateRun(vllm, m, hw, Layout{}, Plain());
  Result<Estimate> et = EstimateRun(trtllm, m, hw, Layout{}, Plain());
  ASSERT_TRUE(e16.ok() && ev.ok() && et.ok());
  const double embed_gib = m.EmbeddingParams() / kGiB;
  EXPECT_NEAR(ev->memory.breakdown.weights - e16->memory.breakdown.weights / 2, embed_gib, 1e-9)
      << "FP8 layers, 16-bit embeddings and head";
  EXPECT_DOUBLE_EQ(ev->memory.breakdown.weights, et->memory.breakdown.weights);
  EXPECT_DOUBLE_EQ(ev->memory.breakdown.kv_cache, e16->memory.breakdown.kv_cache);
  EXPECT_DOUBLE_EQ(ev->memory.breakdown.kv_cache, 2 * et->memory.breakdown.kv_cache);
  // The prompt's attention core in 16 bits: vLLM's FlashAttention-3 at the Hopper serving
  // fraction (0.6) bounds its FP8 TTFT from below; TensorRT-LLM's own kernel (the attention
  // fraction, 0.2) would take longer in 16 bits than its whole FP8 prefill takes.
  const double square_flops = 4.0 * 32 * 65536.0 * 65536 * 4096 / 2;
  const double vllm_bf16_attention_s = square_flops / (989e12 * 0.6);
  const double trtllm_bf16_attention_s = square_flops / (989e12 * 0.2);
  EXPECT_NEAR(vllm_bf16_attention_s, 1.90, 0.01);
  EXPECT_NEAR(trtllm_bf16_attention_s, 5.69, 0.01);
  EXPECT_GT(ev->inference->ttft_ms, vllm_bf16_attention_s * 1e3);
  EXPECT_LT(et->inference->ttft_ms, trtllm_bf16_attention_s * 1e3);
}

// Prefill GEMMs follow the roofline sum: arithmetic at the fitted fraction of peak plus one read
// of the weights (GemmEfficiency's rows half point is the ridge point). Tensor-core GEMMs lose
// to small inner sizes (d / (d + 256)); FP32 runs on the CUDA cores at simt_fraction with no
// such loss. Hand-worked for the 7B shape on an A100 with no overheads and no elementwise work.
TEST(EstimateTest, PrefillIsArithmeticPlusOneWeightRead) {
  struct Case {
    std::string name;
    Precision precision;
    int prompt;
  };
  const Case kCases[] = {{"fp16_one_token_weight_bound", Precision::kFp16, 1},
                         {"fp16_2048_tokens_compute_bound", Precision::kFp16, 2048},
                         {"fp32_cuda_cores", Precision::kFp32, 512}};
  const Gpu gpu = A100();
  Calibration cal = PlainAmpere();
  cal.vllm_step_overhead_us = 0;
  cal.elementwise_traffic = 0;
  cal.gemm_weight_read_factor = 1;
  const ModelArch m = Model7B();
  const double gemm_weights = m.Params() - m.EmbeddingParams() + 32000.0 * 4096;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w;
    w.task = Task::kInference;
    w.precision = c.precision;
    w.inference.prompt_tokens = c.prompt;
    w.inference.output_tokens = 0;
    w.inference.batch = 1;
    Result<Estimate> e = EstimateRun(w, m, HardwareFor(gpu, 1, 1), Layout{}, cal);
    ASSERT_TRUE(e.ok()) << e.status().message();
    const bool fp32 = c.precision == Precision::kFp32;
    const double bytes = fp32 ? 4 : 2;
    const double peak = (fp32 ? 19.5e12 * 0.8 : 312e12 * 0.75 * 4096 / (4096 + 256.0));
    const double bandwidth = 2039e9 * 0.8;
    const double arithmetic = 2 * gemm_weights * c.prompt / peak;
    const double weight_read = gemm_weights * bytes / bandwidth;
    const double attention =
        4 * 32 * 4096.0 * c.prompt * c.prompt * 0.5 / ((fp32 ? 19.5e12 : 312e12) * 0.3);
    // Never faster than one read of every weight, the embedding table included.
    const double all_weights = e->memory.breakdown.weights * kGiB / bandwidth;
    ASSERT_TRUE(e->inference.has_value());
    EXPECT_NEAR(e->inference->prefill_s,
                std::max(arithmetic + weight_read + attention, all_weights),
                1e-9 * e->inference->prefill_s);
  }
}

// A decode step runs the GEMMs (the larger of their arithmetic and one read of every weight)
// and then attention over the KV cache (one read of the cache so far): separate kernels, so the
// times add (Pope et al. 2022). 7B on an A100: batch 1 reads 13.5 GB of weights; batch 256 is
// compute-bound in its GEMMs (15.7 ms) over 8.3 ms of weights and 1.4 ms of cache at 17 tokens
// of context (512 KiB per token); at 4096 tokens the cache read (337 ms) dominates.
TEST(EstimateTest, DecodeIsGemmRooflinePlusKvCacheRead) {
  struct Case {
    std::string name;
    int batch, prompt;
    bool want_memory_bound;
  };
  const Case kCases[] = {{"batch1_weight_bound", 1, 512, true},
                         {"batch256_short_context_compute_bound", 256, 16, false},
                         {"batch256_long_context_cache_bound", 256, 4096, true}};
  Calibration cal = PlainAmpere();
  cal.vllm_step_overhead_us = 0;
  const Gpu gpu = A100();
  const ModelArch m = Model7B();
  const double gemm_weights = m.Params() - m.EmbeddingParams() + 32000.0 * 4096;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w;
    w.task = Task::kInference;
    w.inference.engine = Engine::kVllm;
    w.inference.prompt_tokens = c.prompt;
    w.inference.output_tokens = 2;  // mean context = prompt + 1
    w.inference.batch = c.batch;
    w.inference.continuous_batching = false;  // the step alone, no interleaved prefill
    Result<Estimate> e = EstimateRun(w, m, HardwareFor(gpu, 1, 1), Layout{}, cal);
    ASSERT_TRUE(e.ok()) << e.status().message();
    const double bandwidth = 2039e9 * 0.8;
    const double arithmetic = 2 * gemm_weights * c.batch / (312e12 * 0.75 * 4096 / (4096 + 256.0));
    const double weights = e->memory.breakdown.weights * kGiB / bandwidth;
    const double kv = 2.0 * 32 * 4096 * 2 * (c.prompt + 1) * c.batch / bandwidth;
    EXPECT_NEAR(e->inference->tpot_ms / 1e3, std::max(arithmetic, weights) + kv, 1e-9);
    EXPECT_EQ(e->inference->decode_memory_bound, c.want_memory_bound);
  }
}

// A decode step's tensor-parallel all-reduces (two per layer, Megatron): vLLM-class engines run
// their own one-shot kernel inside an NVLink domain (engine_allreduce_us a call, whatever the
// group), other engines and PCIe groups beyond two GPUs NCCL's ring (2 (n - 1) steps of
// collective_latency_us). Measured as what raising each latency by 10 us adds to the token of
// Model7B (32 layers, 64 all-reduces).
TEST(EstimateTest, TensorParallelAllReduceLatencyByEngineAndLink) {
  struct Case {
    std::string name;
    Engine engine;
    bool nvlink;
    int tp;
    double engine_us_per_token, ring_us_per_token;  // added per +10 us of each latency
  };
  const Case kCases[] = {
      {"vllm_nvlink_tp2", Engine::kVllm, true, 2, 64 * 10, 0},
      {"vllm_nvlink_tp8", Engine::kVllm, true, 8, 64 * 10, 0},
      {"vllm_pcie_tp2", Engine::kVllm, false, 2, 64 * 10, 0},
      {"vllm_pcie_tp4_nccl", Engine::kVllm, false, 4, 0, 64 * 6 * 10},
      {"trtllm_nvlink_tp8_nccl", Engine::kTrtllm, true, 8, 0, 64 * 14 * 10},
  };
  const Gpu nvlink = A100();
  Gpu pcie = A100();
  pcie.nvlink_gbs = 0;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w;
    w.task = Task::kInference;
    w.inference.engine = c.engine;
    w.inference.prompt_tokens = 128;
    w.inference.output_tokens = 2;
    w.inference.batch = 1;
    Layout l;
    l.tp = c.tp;
    const Hardware hw = HardwareFor(c.nvlink ? nvlink : pcie, c.tp, 8);
    const auto tpot_us = [&](double engine_us, double ring_us) {
      Calibration cal = PlainAmpere();
      cal.engine_allreduce_us = engine_us;
      cal.collective_latency_us = ring_us;
      Result<Estimate> e = EstimateRun(w, Model7B(), hw, l, cal);
      EXPECT_TRUE(e.ok()) << e.status().message();
      return e.ok() ? e->inference->tpot_ms * 1e3 : 0;
    };
    const double base = tpot_us(30, 10);
    EXPECT_NEAR(tpot_us(40, 10) - base, c.engine_us_per_token, 1e-6);
    EXPECT_NEAR(tpot_us(30, 20) - base, c.ring_us_per_token, 1e-6);
  }
}

// ResNet-50 as the zoo has it: 8.2 GFLOPs forward and 9.3M layer output elements per image.
ModelArch ResNet50() {
  ModelArch resnet;
  resnet.name = "resnet-50";
  resnet.kind = ModelKind::kOther;
  resnet.params = 25.6e6;
  resnet.forward_flops_per_sample = 8.2e9;
  resnet.activation_elements_per_sample = 9.3e6;
  resnet.default_seq_len = 1;
  return resnet;
}

// A convolutional network trains at the convolutions' arithmetic plus the memory-bound layers'
// traffic over every layer's output: ResNet-50 (8.2 GFLOPs forward, 9.3M output elements per
// image) in fp16 on an A100 moves 8 x 3 passes x 9.3M x 2 B = 446 MB per image, 0.27 ms at
// 1.63 TB/s, more than its 0.11 ms of arithmetic.
TEST(EstimateTest, ConvNetTrainingAddsActivationTraffic) {
  const ModelArch resnet = ResNet50();
  Calibration cal = PlainAmpere();
  cal.train_layer_overhead_us = 0;
  Workload w = Pretrain(1, 256);
  w.precision = Precision::kFp16;
  w.micro_batch = 256;
  const Gpu gpu = A100();
  Layout l;
  l.micro_batch = 256;
  Result<Estimate> e = EstimateRun(w, resnet, HardwareFor(gpu, 1, 1), l, cal);
  ASSERT_TRUE(e.ok()) << e.status().message();
  const double arithmetic = 3 * 8.2e9 / (312e12 * 0.75 * 4096 / (4096 + 256.0));
  const double traffic = 8 * 3 * 9.3e6 * 2 / (2039e9 * 0.8);
  EXPECT_NEAR(e->time.breakdown.compute / 256, arithmetic + traffic, 1e-3 * (arithmetic + traffic));
  EXPECT_GT(traffic, 2 * arithmetic);
}

// The activation layout and PyTorch's TF32 convolutions: NCHW adds cuDNN's transposes (each
// convolution's input and output read and written once more: 4 bytes-passes per element per
// pass, on top of the 8 of the memory-bound layers) where the convolutions run on tensor cores;
// "fp32" on a GPU with TF32 units convolves in TF32 (cudnn.allow_tf32 defaults to True) over
// 4-byte activations; without TF32 units it stays FP32 SIMT and the layout changes nothing.
struct ConvLayoutCase {
  const char* name;
  Precision precision;
  std::optional<MemoryFormat> format;
  bool gpu_has_tf32;
  double peak_tflops;     // the convolutions' rate
  double fraction;        // of that peak (gemm_fraction or simt_fraction)
  double bytes;           // per activation element
  double traffic_passes;  // bytes-passes per element per pass
};

class ConvLayoutTest : public ::testing::TestWithParam<ConvLayoutCase> {};

TEST_P(ConvLayoutTest, StepIsArithmeticPlusTraffic) {
  const ConvLayoutCase& c = GetParam();
  const ModelArch resnet = ResNet50();
  Calibration cal = PlainAmpere();
  cal.train_layer_overhead_us = 0;
  Workload w = Pretrain(1, 256);
  w.precision = c.precision;
  w.memory_format = c.format;
  w.micro_batch = 256;
  Gpu gpu = A100();
  if (c.gpu_has_tf32)
    gpu.tflops[static_cast<int>(Precision::kTf32)] = 156;
  Layout l;
  l.micro_batch = 256;
  Result<Estimate> e = EstimateRun(w, resnet, HardwareFor(gpu, 1, 1), l, cal);
  ASSERT_TRUE(e.ok()) << e.status().message();
  const double tensor_scale = c.fraction == 0.75 ? 4096 / (4096 + 256.0) : 1;
  const double arithmetic = 3 * 8.2e9 / (c.peak_tflops * 1e12 * c.fraction * tensor_scale);
  const double traffic = c.traffic_passes * 3 * 9.3e6 * c.bytes / (2039e9 * 0.8);
  EXPECT_NEAR(e->time.breakdown.compute / 256, arithmetic + traffic, 2e-3 * (arithmetic + traffic));
  EXPECT_DOUBLE_EQ(e->peak_tflops, c.peak_tflops);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ConvLayoutTest,
    ::testing::Values(ConvLayoutCase{"Fp16ChannelsLastByDefault", Precision::kFp16, std::nullopt,
                                     true, 312, 0.75, 2, 8},
                      ConvLayoutCase{"Fp16NchwPaysTransposes", Precision::kFp16,
                                     MemoryFormat::kNchw, true, 312, 0.75, 2, 12},
                      ConvLayoutCase{"Fp32ConvolvesInTf32", Precision::kFp32, std::nullopt, true,
                                     156, 0.75, 4, 8},
                      ConvLayoutCase{"Fp32NchwIsTf32WithTransposes", Precision::kFp32,
                                     MemoryFormat::kNchw, true, 156, 0.75, 4, 12},
                      ConvLayoutCase{"Fp32WithoutTf32UnitsIsSimtAndLayoutFree", Precision::kFp32,
                                     MemoryFormat::kNchw, false, 19.5, 0.8, 4, 8}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// Continuous batching (vLLM, TensorRT-LLM in-flight): a request's first token waits for its own
// prefill and the running step, not the whole batch's prefill; the batch's prefill work is
// spread over the output tokens. GPU time per batch, hence throughput, is unchanged.
TEST(EstimateTest, ContinuousBatchingChangesLatencyNotThroughput) {
  const Gpu gpu = A100();
  auto run = [&](int batch, bool continuous) {
    Workload w;
    w.task = Task::kInference;
    w.inference.engine = Engine::kVllm;
    w.inference.prompt_tokens = 512;
    w.inference.output_tokens = 256;
    w.inference.batch = batch;
    w.inference.continuous_batching = continuous;
    Result<Estimate> e = EstimateRun(w, Model7B(), HardwareFor(gpu, 1, 1), Layout{}, Plain());
    EXPECT_TRUE(e.ok()) << e.status().message();
    return *e->inference;
  };
  const perf::InferenceTimes one = run(1, false);
  const perf::InferenceTimes batch = run(64, false);
  const perf::InferenceTimes served = run(64, true);
  EXPECT_NEAR(batch.ttft_ms, batch.prefill_s * 1e3, 1e-9);
  EXPECT_NEAR(served.ttft_ms, (one.prefill_s + batch.tpot_ms / 1e3) * 1e3, 1e-6);
  EXPECT_NEAR(served.tpot_ms, batch.tpot_ms + batch.prefill_s * 1e3 / 256, 1e-6);
  EXPECT_LT(served.ttft_ms, batch.ttft_ms / 10);
  EXPECT_DOUBLE_EQ(served.request_s, batch.request_s);
  EXPECT_DOUBLE_EQ(served.tokens_per_s_per_gpu, batch.tokens_per_s_per_gpu);
}

// Eager PyTorch (TorchScript, HF) runs each elementwise op as its own kernel: a BERT-base
// forward moves (eager - fused) x (h + ffn) x 2 B more per token per layer than under
// FasterTransformer, all of it at the memory bandwidth (same fused attention in both).
TEST(EstimateTest, EagerInferenceMovesMoreElementwiseBytes) {
  ModelArch bert;
  bert.name = "bert-base";
  bert.kind = ModelKind::kEncoder;
  bert.layers = 12;
  bert.hidden = 768;
  bert.heads = 12;
  bert.kv_heads = 12;
  bert.ffn = 3072;
  bert.vocab = 30522;
  bert.mlp = MlpKind::kGelu;
  Calibration cal = Plain();
  cal.torch_layer_overhead_us = cal.trtllm_layer_overhead_us = 0;
  cal.torch_step_overhead_us = cal.trtllm_step_overhead_us = 0;
  cal.elementwise_traffic = 8;
  cal.eager_elementwise_traffic = 16;
  const Gpu gpu = A100();
  double prefill[2] = {0, 0};
  const Engine engines[2] = {Engine::kTrtllm, Engine::kTorch};
  for (int i = 0; i < 2; ++i) {
    Workload w;
    w.task = Task::kInference;
    w.precision = Precision::kFp16;
    w.flash_attention = true;
    w.inference.engine = engines[i];
    w.inference.prompt_tokens = 384;
    w.inference.output_tokens = 0;
    w.inference.batch = 32;
    Result<Estimate> e = EstimateRun(w, bert, HardwareFor(gpu, 1, 1), Layout{}, cal);
    ASSERT_TRUE(e.ok()) << e.status().message();
    prefill[i] = e->inference->prefill_s;
  }
  const double bandwidth = 2039e9 * cal.For(gpu).memory_bw_fraction;  // Ampere's row
  const double extra = (16 - 8) * (768 + 3072) * 2.0 * 384 * 32 * 12 / bandwidth;
  EXPECT_NEAR(prefill[1] - prefill[0], extra, 1e-9);
}

TEST(EstimateTest, PipelineBubbleAndRingAllReduce) {
  const Gpu gpu = A100();
  // GPipe/1F1B bubble (Narayanan et al. 2021, eq. 1): (pp-1)/(m+pp-1) of the step when the
  // stages are alike. With a 8-token vocabulary the head's work is nil and they are.
  ModelArch no_head = GptLike();
  no_head.vocab = 8;
  struct BubbleCase {
    std::string name;
    int pp, global_batch;
  };
  const BubbleCase kBubbles[] = {{"pp4_m4", 4, 4}, {"pp4_m16", 4, 16}, {"pp2_m1", 2, 1}};
  for (const BubbleCase& c : kBubbles) {
    SCOPED_TRACE(c.name);
    Layout l;
    l.pp = c.pp;
    Result<Estimate> e =
        EstimateRun(Pretrain(2048, c.global_batch), no_head, HardwareFor(gpu, c.pp, 8), l, Plain());
    ASSERT_TRUE(e.ok()) << e.status().message();
    const double m = c.global_batch;
    const TimeBreakdown& t = e->time.breakdown;
    EXPECT_NEAR(t.pp_bubble / (t.compute + t.pp_bubble), (c.pp - 1) / (m + c.pp - 1), 1e-4);
  }
  // Ring all-reduce (Thakur et al. 2005): 2(n-1)/n x bytes / bandwidth. With no overlap, no
  // latency and ideal links, dp=2 over NVLink (300 GB/s one direction) moves 2 B/param once.
  Calibration c = Plain();
  c.dp_overlap = 0;
  c.collective_latency_us = 0;
  c.nvlink_efficiency = 1;
  Layout l;
  l.dp = 2;
  Result<Estimate> e = EstimateRun(Pretrain(2048, 2), Model7B(), HardwareFor(gpu, 2, 8), l, c);
  ASSERT_TRUE(e.ok()) << e.status().message();
  const double grad_bytes = (7e9 - 4096) * 2;  // layers + embeddings (final norm is not staged)
  EXPECT_NEAR(e->time.breakdown.dp_comm, 2.0 * 1 / 2 * grad_bytes / 300e9, 1e-3);
}

TEST(EstimateTest, TheHeadsStagePacesThePipeline) {
  // The last stage runs the output head beside its layers. GPT-like, 32 layers of 4096 and a
  // 51,200-token vocabulary: the head is 6 x 51200 x 4096 = 1.26 GFLOP per token against a
  // stage of 8 layers' 8 x (6 x 12 x 4096^2 + 12 x 4096 x 2048) = 10.47 GFLOP, so with pp 4 the
  // last stage takes up to 12% longer (less: the layers also run memory-bound work), and every
  // micro-batch waits for it while the fill and drain run through the others. With pp 3 the 32
  // layers split 11/11/10 and the head's stage takes the 10: about as long as the others.
  struct Case {
    std::string name;
    int pp;
    double min_ratio, max_ratio;  // the slowest stage over the others, per micro-batch
  };
  const Case kCases[] = {{"pp4_even_split", 4, 1.06, 1.125},
                         {"pp3_head_takes_fewer", 3, 1.0, 1.02}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Layout l;
    l.pp = c.pp;
    const int m = 16;
    Result<Estimate> e =
        EstimateRun(Pretrain(2048, m), GptLike(), HardwareFor(A100(), c.pp, 8), l, Plain());
    ASSERT_TRUE(e.ok()) << e.status().message();
    const TimeBreakdown& t = e->time.breakdown;
    const double ratio = (t.compute / m) / (t.pp_bubble / (c.pp - 1));
    EXPECT_GE(ratio, c.min_ratio);
    EXPECT_LE(ratio, c.max_ratio);
  }
}
TEST(EstimateTest, BadLayoutsAreErrors) {
  const Gpu gpu = A100();
  struct Case {
    std::string name;
    Layout layout;
    int gpus;
    std::string want;
  };
  Layout too_many;
  too_many.dp = 4;
  Layout bad_tp;
  bad_tp.tp = 3;
  bad_tp.dp = 1;
  Layout big_mb;
  big_mb.micro_batch = 64;
  const Case kCases[] = {
      {"gpu_count_mismatch", too_many, 2, "layout: tp*cp*pp*dp = 4 but the hardware has 2 GPUs"},
      {"tp_not_divisor", bad_tp, 3, "layout: tp 3 does not divide the 32 attention heads"},
      {"micro_batch_over_global", big_mb, 1,
       "layout: micro_batch 64 x dp 1 exceeds global_batch 8"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Estimate> e =
        EstimateRun(Pretrain(2048, 8), GptLike(), HardwareFor(gpu, c.gpus, 8), c.layout, Plain());
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.status().message(), c.want);
  }
}

TEST(EstimateTest, FitSearchesStopWhereMemoryRunsOut) {
  const Gpu gpu = A100();
  Hardware hw = HardwareFor(gpu, 1, 1);
  Workload w = Pretrain(4096, 1024);
  w.task = Task::kFinetune;
  w.method = Method::kLora;
  Layout l;
  const int mb = MaxMicroBatch(w, Model7B(), hw, l, testing::EmbeddedCalibration());
  ASSERT_GT(mb, 0);
  l.micro_batch = mb;
  Result<Estimate> at = EstimateRun(w, Model7B(), hw, l, testing::EmbeddedCalibration());
  l.micro_batch = mb + 1;
  Result<Estimate> over = EstimateRun(w, Model7B(), hw, l, testing::EmbeddedCalibration());
  ASSERT_TRUE(at.ok() && over.ok());
  EXPECT_TRUE(at->memory.fits);
  EXPECT_FALSE(over->memory.fits);
  // 70B full fine-tuning cannot fit one 80 GB GPU at any sequence length.
  ModelArch big = Model7B();
  big.params = 70e9;
  Workload full = Pretrain(2048, 8);
  EXPECT_EQ(MaxSeqLen(full, big, hw, Layout{}, testing::EmbeddedCalibration()), 0);
  // The longest sequence that fits is where memory runs out: it fits, 10% more does not.
  Workload lora = w;
  lora.global_batch = 8;
  const int seq = MaxSeqLen(lora, Model7B(), hw, Layout{}, testing::EmbeddedCalibration(), 1 << 20);
  ASSERT_GT(seq, 0);
  ASSERT_LT(seq, 1 << 20) << "a 7B LoRA on one 80 GB GPU runs out of memory somewhere";
  for (const auto& [len, want_fits] : {std::pair{seq, true}, std::pair{seq + seq / 10, false}}) {
    SCOPED_TRACE(len);
    lora.seq_len = len;
    Result<Estimate> e = EstimateRun(lora, Model7B(), hw, Layout{}, testing::EmbeddedCalibration());
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_EQ(e->memory.fits, want_fits);
  }
}

TEST(EstimateTest, DefaultLayoutFitsWhereOneExists) {
  const Gpu gpu = A100();
  struct Case {
    std::string name;
    double params;
    int gpus;
    bool want_fits;
  };
  const Case kCases[] = {
      {"7b_full_on_8", 7e9, 8, true},     // 16 B/param over 8 with ZeRO
      {"70b_full_on_1", 70e9, 1, false},  // 1.1 TB of states on one GPU
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    ModelArch m = Model7B();
    m.params = c.params;
    Workload w = Pretrain(2048, 64);
    Hardware hw = HardwareFor(gpu, c.gpus, 8);
    Layout l = DefaultLayout(w, m, hw, testing::EmbeddedCalibration());
    EXPECT_EQ(l.Gpus(), c.gpus);
    Result<Estimate> e = EstimateRun(w, m, hw, l, testing::EmbeddedCalibration());
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_EQ(e->memory.fits, c.want_fits);
  }
}

}  // namespace
}  // namespace gpuplan::perf
