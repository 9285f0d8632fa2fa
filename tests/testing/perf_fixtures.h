// In-memory GPUs and model shapes for performance-model tests: the fields the model reads,
// as in data/gpus.csv and the published configs, without loading the embedded catalog.
#ifndef GPUPLAN_TESTS_TESTING_PERF_FIXTURES_H_
#define GPUPLAN_TESTS_TESTING_PERF_FIXTURES_H_

#include <string>
#include <utility>

#include "gpuplan/catalog.h"
#include "gpuplan/estimate.h"
#include "gpuplan/framework.h"
#include "gpuplan/model.h"

namespace gpuplan::testing {

inline Gpu A100() {
  Gpu g;
  g.name = "A100-80G-SXM";
  g.architecture = "Ampere";
  g.memory_gib = 80;
  g.usable_memory_gib = 79.35;
  g.memory_bandwidth_gbs = 2039;
  g.tflops[static_cast<int>(Precision::kBf16)] = 312;
  g.tflops[static_cast<int>(Precision::kFp16)] = 312;
  g.tflops[static_cast<int>(Precision::kFp32)] = 19.5;
  g.nvlink_gbs = 600;
  g.pcie_gen = 4;
  return g;
}

// H100 SXM as data/gpus.csv has it: dense BF16 989 and FP8 1979 TFLOPS, 3.35 TB/s, NVLink
// 900 GB/s.
inline Gpu H100() {
  Gpu g;
  g.name = "H100-80G-SXM";
  g.architecture = "Hopper";
  g.memory_gib = 80;
  g.usable_memory_gib = 79.1;
  g.memory_bandwidth_gbs = 3350;
  g.tflops[static_cast<int>(Precision::kBf16)] = 989;
  g.tflops[static_cast<int>(Precision::kFp16)] = 989;
  g.tflops[static_cast<int>(Precision::kFp8)] = 1979;
  g.tflops[static_cast<int>(Precision::kFp32)] = 67;
  g.nvlink_gbs = 900;
  g.pcie_gen = 5;
  return g;
}

inline Gpu A10() {
  Gpu g;
  g.name = "A10-24G";
  g.architecture = "Ampere";
  g.memory_gib = 24;
  g.usable_memory_gib = 22.2;
  g.memory_bandwidth_gbs = 600;
  g.tflops[static_cast<int>(Precision::kBf16)] = 125;
  g.tflops[static_cast<int>(Precision::kFp32)] = 31.2;
  g.pcie_gen = 4;
  return g;
}

// A Llama-shaped decoder (SwiGLU, vocabulary 32000); parameters computed from the shape.
inline ModelArch Llama(int layers, int hidden, int heads, int kv_heads, int ffn) {
  ModelArch m;
  m.name = "llama-like";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.ffn = ffn;
  m.vocab = 32000;
  m.mlp = MlpKind::kSwiglu;
  return m;
}

// Llama-2-7B shape with exactly 7e9 parameters published.
inline ModelArch Model7B() {
  ModelArch m = Llama(32, 4096, 32, 32, 11008);
  m.name = "test-7b";
  m.params = 7e9;
  return m;
}

// Rows of data/models.csv (each model's published config.json): name, shape, published
// parameters and default sequence length.
inline ModelArch ZooRow(const char* name, int layers, int hidden, int heads, int kv_heads, int ffn,
                        int vocab, double params_b, int seq_len) {
  ModelArch m = Llama(layers, hidden, heads, kv_heads, ffn);
  m.name = name;
  m.vocab = vocab;
  m.params = params_b * 1e9;
  m.default_seq_len = seq_len;
  return m;
}
inline ModelArch Llama2_7B() {
  return ZooRow("llama-2-7b", 32, 4096, 32, 32, 11008, 32000, 6.738, 4096);
}
inline ModelArch Llama2_13B() {
  return ZooRow("llama-2-13b", 40, 5120, 40, 40, 13824, 32000, 13.016, 4096);
}
inline ModelArch Llama3_8B() {
  return ZooRow("llama-3-8b", 32, 4096, 32, 8, 14336, 128256, 8.03, 8192);
}
inline ModelArch Llama3_70B() {
  return ZooRow("llama-3-70b", 80, 8192, 64, 8, 28672, 128256, 70.554, 8192);
}
inline ModelArch Qwen25_7B() {
  return ZooRow("qwen2.5-7b", 28, 3584, 28, 4, 18944, 152064, 7.616, 131072);
}

// Qwen3-30B-A3B (data/models.csv): every layer MoE, 128 experts of width 768, 8 per token.
inline ModelArch Qwen3_30B_A3B() {
  ModelArch m = ZooRow("qwen3-30b-a3b", 48, 2048, 32, 4, 6144, 151936, 30.5, 32768);
  m.head_dim = 128;
  m.active_params = 3.3e9;
  m.moe.experts = 128;
  m.moe.top_k = 8;
  m.moe.expert_ffn = 768;
  return m;
}

// A data-parallel layout over `dp` GPUs at ZeRO `zero`, `micro_batch` sequences per GPU and
// recomputation `rc` (the framework-property tests' FSDP / ZeRO-3 runs).
inline perf::Layout ShardedLayout(int dp, int zero, int micro_batch, Recompute rc) {
  perf::Layout l;
  l.dp = dp;
  l.zero = zero;
  l.micro_batch = micro_batch;
  l.recompute = rc;
  return l;
}

// A framework that runs full training under the ZeRO stages set in `zero_stages` (bit s = stage
// s) and nothing else; a test sets the property it exercises.
inline Framework FullTrainingStack(std::string name, unsigned zero_stages) {
  Framework f;
  f.name = std::move(name);
  f.caps.full = true;
  f.caps.zero_stages = zero_stages;
  return f;
}

}  // namespace gpuplan::testing

#endif  // GPUPLAN_TESTS_TESTING_PERF_FIXTURES_H_
