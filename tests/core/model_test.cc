// Parameters, active parameters and KV-cache sizes of MoE and MLA architectures against
// hand-worked numbers from the models' published config.json.
#include "gpuplan/model.h"

#include <gtest/gtest.h>

namespace gpuplan {
namespace {

// Qwen/Qwen3-30B-A3B config.json: 48 layers, hidden 2048, 32 heads of head_dim 128 (not
// 2048/32), 4 KV heads, 128 experts of width 768, 8 per token, vocab 151936, untied.
ModelArch Qwen3_30B_A3B() {
  ModelArch m;
  m.mlp = MlpKind::kSwiglu;
  m.layers = 48, m.hidden = 2048, m.heads = 32, m.kv_heads = 4, m.head_dim = 128;
  m.vocab = 151936;
  m.moe.experts = 128, m.moe.top_k = 8, m.moe.expert_ffn = 768;
  return m;
}

// deepseek-ai/DeepSeek-V3 config.json: MLA (q_lora 1536, kv_lora 512, rope 64, nope 128, v 128),
// 256 routed experts of 2048, 8 per token, 1 shared, first 3 layers dense (18432), vocab 129280.
ModelArch DeepSeekV3() {
  ModelArch m;
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
  return m;
}

TEST(ModelArchTest, Qwen3MoeTotalAndActiveParams) {
  const ModelArch m = Qwen3_30B_A3B();
  ASSERT_TRUE(ValidateModelArch(m).ok()) << ValidateModelArch(m).message();
  // Per layer: attention 2*2048*4096 + 2*2048*512 = 18,874,368; 128 experts x 3*2048*768 =
  // 603,979,776; router 2048*128 = 262,144; norms 4,096 -> 623,120,384 x 48 = 29,909,778,432.
  // Embedding + head 2 x 151936 x 2048 = 622,329,856; final norm 2,048.
  EXPECT_DOUBLE_EQ(m.AttentionParamsPerLayer(), 18874368.0);
  EXPECT_DOUBLE_EQ(m.Params(), 30532110336.0);  // the card's 30.5B
  // Active: 120 idle experts per layer fewer: 48 x 120 x 4,718,592 = 27,179,089,920.
  EXPECT_DOUBLE_EQ(m.ActiveParams(), 3353020416.0);  // the card's 3.3B
  EXPECT_EQ(m.MoeLayers(), 48);
  // GQA cache: K and V of 4 heads x 128 per layer.
  EXPECT_DOUBLE_EQ(m.KvElementsPerTokenPerLayer(), 1024.0);
}

TEST(ModelArchTest, DeepSeekV3TotalActiveAndMlaCache) {
  const ModelArch m = DeepSeekV3();
  ASSERT_TRUE(ValidateModelArch(m).ok()) << ValidateModelArch(m).message();
  // MLA per layer: W_DQ 7168x1536 + norm 1536 + W_UQ 1536x128x192 + W_DKV/KR 7168x576 + norm 512
  // + W_UKV 512x128x256 + W_O 128x128x7168 = 187,107,328.
  EXPECT_DOUBLE_EQ(m.AttentionParamsPerLayer(), 187107328.0);
  EXPECT_EQ(m.MoeLayers(), 58);
  // 61 x (attention + norms) + 3 dense MLPs 3x7168x18432 + 58 x (257 experts of 3x7168x2048 +
  // router 7168x256) + embeddings 2 x 129280 x 7168 + final norm = 671,026,404,352.
  EXPECT_DOUBLE_EQ(m.Params(), 671026404352.0);  // DeepSeek's 671B (MTP layer not counted)
  // Active: 58 x 248 idle experts x 44,040,192 fewer.
  EXPECT_DOUBLE_EQ(m.ActiveParams(), 37552282624.0);  // DeepSeek's 37B
  // The cache holds the 512 latent and the 64-wide RoPE key per token per layer, for all heads:
  // 576 x 61 layers x 2 bytes = 70,272 bytes per token in BF16 (a GQA cache of 128 heads x 128
  // would hold 2 x 128 x 128 = 32,768 elements per layer, 57x more).
  EXPECT_DOUBLE_EQ(m.KvElementsPerTokenPerLayer(), 576.0);
  EXPECT_DOUBLE_EQ(m.KvCacheElements(1) * 2, 70272.0);
  // Expert parallelism shards the routed experts: 58 x 256 x 44,040,192.
  EXPECT_DOUBLE_EQ(m.RoutedExpertParams(), 653908770816.0);
}

TEST(ModelArchTest, PublishedCountsOverrideTheShape) {
  ModelArch m = DeepSeekV3();
  m.params = 671e9;
  m.active_params = 37e9;
  EXPECT_DOUBLE_EQ(m.Params(), 671e9);
  EXPECT_DOUBLE_EQ(m.ActiveParams(), 37e9);
  ModelArch dense;
  dense.mlp = MlpKind::kSwiglu;
  dense.layers = 2, dense.hidden = 64, dense.heads = 4, dense.kv_heads = 4, dense.ffn = 128;
  dense.vocab = 100;
  EXPECT_DOUBLE_EQ(dense.ActiveParams(), dense.Params());  // every parameter is used
}

TEST(ModelArchTest, SlidingWindowLayersCapTheCache) {
  ModelArch m;
  m.layers = 36, m.hidden = 2880, m.heads = 64, m.kv_heads = 8, m.head_dim = 64, m.ffn = 1;
  m.vocab = 201088;
  m.sliding_window = 128, m.sliding_layers = 18;  // gpt-oss: every other layer
  // 8 KV heads x 64 x 2 = 1024 per layer; 18 full layers x 4096 + 18 x 128.
  EXPECT_DOUBLE_EQ(m.KvCacheElements(4096), 1024.0 * (18 * 4096 + 18 * 128));
  EXPECT_DOUBLE_EQ(m.KvCacheElements(100), 1024.0 * 36 * 100);  // under the window: all
}

TEST(ModelArchTest, ExpectedDistinctExpertsTouched) {
  struct Case {
    const char* name;
    int experts, top_k;
    double tokens, want;
  };
  const Case kCases[] = {
      {"one_token_reads_top_k", 256, 8, 1, 8},
      {"batch_32", 256, 8, 32, 256 * (1 - 0.36205529)},  // 256 (1 - (31/32)^32) = 163.3
      {"large_batch_reads_all", 256, 8, 4096, 256},
      {"mixtral_two_tokens", 8, 2, 2, 8 * (1 - 0.5625)},  // 8 (1 - (6/8)^2) = 3.5
      {"dense", 0, 0, 100, 0},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_NEAR(ExpectedDistinctExperts(c.experts, c.top_k, c.tokens), c.want, 1e-3);
  }
}

TEST(ModelArchTest, ValidationNamesTheField) {
  struct Case {
    const char* name;
    void (*mutate)(ModelArch&);
    const char* want;
  };
  const Case kCases[] = {
      {"top_k_over_experts", [](ModelArch& m) { m.moe.top_k = 300; },
       "field \"top_k\": expected 1 to experts (256), got 300"},
      {"no_expert_width", [](ModelArch& m) { m.moe.expert_ffn = 0; },
       "field \"moe_ffn\": expected a whole number >= 1, got 0"},
      {"mla_without_rank", [](ModelArch& m) { m.mla.kv_lora_rank = 0; },
       "field \"kv_lora_rank\": expected a whole number >= 1 for MLA attention, got 0"},
      {"dense_layers_without_ffn", [](ModelArch& m) { m.ffn = 0; },
       "field \"ffn\": expected a whole number >= 1 (the dense MLP width), got 0"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    ModelArch m = DeepSeekV3();
    c.mutate(m);
    EXPECT_EQ(ValidateModelArch(m).message(), c.want);
  }
}

}  // namespace
}  // namespace gpuplan
