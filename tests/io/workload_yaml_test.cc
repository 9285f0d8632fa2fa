#include "io/workload_yaml.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace gpuplan::io {
namespace {

// The contract workload of /work/shared/checks/contracts.py (issue 4's keys as written).
constexpr char kContractWorkload[] = R"(task: finetune
method: lora
model: {layers: 32, hidden: 4096, heads: 32, kv_heads: 32, ffn: 11008, vocab: 32000}
precision: bf16
seq_len: 2048
global_batch: 32
tokens: 10M
constraints:
  max_gpus: 8
  billing: [payg]
objective: cost
)";

TEST(WorkloadYamlTest, ContractWorkloadParses) {
  Result<Workload> w = ParseWorkloadYaml(kContractWorkload, "w.yaml");
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->task, Task::kFinetune);
  EXPECT_EQ(w->method, Method::kLora);
  ASSERT_TRUE(w->inline_arch.has_value());
  EXPECT_EQ(w->inline_arch->ffn, 11008);
  EXPECT_EQ(w->inline_arch->mlp, MlpKind::kSwiglu);  // ffn != 4h: Llama-style
  EXPECT_EQ(w->seq_len, 2048);
  EXPECT_EQ(w->global_batch, 32);
  ASSERT_TRUE(w->tokens.has_value());
  EXPECT_DOUBLE_EQ(*w->tokens, 1e7);
  EXPECT_EQ(w->constraints.max_gpus, 8);
  ASSERT_EQ(w->constraints.billing.size(), 1u);
  EXPECT_EQ(w->constraints.billing[0], Billing::kPayg);
  EXPECT_EQ(w->objective, Objective::kCost);
}

TEST(WorkloadYamlTest, EveryDocumentedKeyParses) {
  const char* text = R"(name: chat service
task: inference
model: qwen2.5-7b
precision: fp16
weight_bits: 4
seq_len: 4096
inference: {requests_per_s: 20, prompt_tokens: 1000, output_tokens: 300, ttft_ms: 500,
            tpot_ms: 50, batch: 16, engine: vllm, latency: batch}
dataset: {size_gb: 10, sample_kb: 4, location: oss}
constraints:
  regions: [cn-hangzhou, cn-beijing]
  max_gpus: 4
  max_nodes: 1
  deadline_hours: 12.5
  budget: {amount: 5000, currency: CNY}
  billing: [payg, spot, subscription]
  include_families: [gn7i]
  exclude_families: [gn6i]
  need_fp64: false
  need_graphics: no
  no_spot: false
  long_running: true
objective: time
)";
  Result<Workload> w = ParseWorkloadYaml(text, "s.yaml");
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->name, "chat service");
  EXPECT_EQ(w->method, Method::kFull);  // not a fine-tune
  EXPECT_EQ(w->weight_bits, 4);
  EXPECT_EQ(w->inference.engine, Engine::kVllm);
  EXPECT_EQ(w->inference.batch, 16);
  EXPECT_EQ(w->inference.latency, LatencyMode::kBatch);
  EXPECT_EQ(w->dataset.location, DataLocation::kOss);
  EXPECT_EQ(w->constraints.billing.size(), 3u);
  EXPECT_EQ(w->constraints.billing[2], Billing::kSubscriptionMonth);
  EXPECT_EQ(w->constraints.budget->amount, 5000);
  EXPECT_TRUE(w->constraints.long_running);
  EXPECT_DOUBLE_EQ(*w->constraints.deadline_hours, 12.5);
}

// tp_comm_overlap (Megatron-Core --tp-comm-overlap): off unless the workload says so, for training
// only, a boolean.
TEST(WorkloadYamlTest, TensorParallelCommOverlapIsOffUnlessAsked) {
  struct Case {
    const char* name;
    const char* line;
    bool want;
  };
  const Case kCases[] = {{"unset", "", false},
                         {"on", "tp_comm_overlap: true\n", true},
                         {"off", "tp_comm_overlap: false\n", false}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Workload> w = ParseWorkloadYaml(
        std::string("task: pretrain\nmodel: llama-3-70b\ntokens: 1B\n") + c.line, "m.yaml");
    ASSERT_TRUE(w.ok()) << w.status().message();
    EXPECT_EQ(w->tp_comm_overlap, c.want);
  }
  Result<Workload> serving = ParseWorkloadYaml(
      "task: inference\nmodel: llama-3-70b\ninference: {requests_per_s: 1}\n"
      "tp_comm_overlap: true\n",
      "m.yaml");
  ASSERT_FALSE(serving.ok());
  EXPECT_NE(serving.status().message().find("field \"tp_comm_overlap\": expected false unless"),
            std::string::npos)
      << serving.status().message();
  Result<Workload> bad =
      ParseWorkloadYaml("task: pretrain\nmodel: llama-3-70b\ntp_comm_overlap: yes-ish\n", "m.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("tp_comm_overlap"), std::string::npos)
      << bad.status().message();
}

TEST(WorkloadYamlTest, MoeAllToAllOverlapIsOffUnlessAsked) {
  struct Case {
    const char* name;
    const char* line;
    bool want;
  };
  const Case kCases[] = {{"unset", "", false},
                         {"on", "moe_a2a_overlap: true\n", true},
                         {"off", "moe_a2a_overlap: false\n", false}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Workload> w = ParseWorkloadYaml(
        std::string("task: pretrain\nmodel: qwen3-30b-a3b\ntokens: 1B\n") + c.line, "m.yaml");
    ASSERT_TRUE(w.ok()) << w.status().message();
    EXPECT_EQ(w->moe_a2a_overlap, c.want);
  }
  // Serving engines run the same schedule on two halves of a batch (SGLang's two-batch
  // overlap, vLLM's dual-batch overlap): kept, as training's is.
  Result<Workload> serving = ParseWorkloadYaml(
      "task: inference\nmodel: qwen3-30b-a3b\ninference: {requests_per_s: 1}\n"
      "moe_a2a_overlap: true\n",
      "m.yaml");
  ASSERT_TRUE(serving.ok()) << serving.status().message();
  EXPECT_TRUE(serving->moe_a2a_overlap);
  Result<Workload> bad =
      ParseWorkloadYaml("task: pretrain\nmodel: qwen3-30b-a3b\nmoe_a2a_overlap: often\n", "m.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("moe_a2a_overlap"), std::string::npos)
      << bad.status().message();
}

TEST(WorkloadYamlTest, QuantisedWeightFormatAndLayers) {
  struct Case {
    const char* name;
    const char* lines;
    WeightFormat format;
    QuantizedLayers layers;
  };
  const Case kCases[] = {
      {"unset_is_int_on_all_layers", "weight_bits: 4\n", WeightFormat::kInt, QuantizedLayers::kAll},
      {"gpt_oss_as_released", "weight_bits: 4\nweight_format: mxfp4\nquantized_layers: experts\n",
       WeightFormat::kMxfp4, QuantizedLayers::kExperts},
      {"int8_experts_only", "weight_bits: 8\nquantized_layers: experts\n", WeightFormat::kInt,
       QuantizedLayers::kExperts},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Workload> w = ParseWorkloadYaml(
        std::string("task: inference\nmodel: gpt-oss-120b\n") + c.lines, "q.yaml");
    ASSERT_TRUE(w.ok()) << w.status().message();
    EXPECT_EQ(w->weight_format, c.format);
    EXPECT_EQ(w->quantized_layers, c.layers);
  }
  // What cannot be served that way is named, with what is expected.
  struct Bad {
    const char* name;
    const char* yaml;
    const char* want;
  };
  const Bad kBad[] = {
      {"mxfp4_is_4_bit",
       "task: inference\nmodel: gpt-oss-120b\nweight_bits: 8\nweight_format: mxfp4\n",
       "field \"weight_format\": expected int unless the task is inference with weight_bits 4"},
      {"experts_need_quantised_weights",
       "task: inference\nmodel: gpt-oss-120b\nquantized_layers: experts\n",
       "field \"quantized_layers\": expected all unless the task is inference with weight_bits"},
      {"training_dequantises",
       "task: finetune\nmethod: lora\nmodel: gpt-oss-20b\nweight_bits: 4\nweight_format: mxfp4\n",
       "field \"weight_format\": expected int unless"},
      {"unknown_format",
       "task: inference\nmodel: gpt-oss-120b\nweight_bits: 4\nweight_format: nf4\n",
       "field \"weight_format\": expected int or mxfp4, got \"nf4\""},
  };
  for (const Bad& b : kBad) {
    SCOPED_TRACE(b.name);
    Result<Workload> w = ParseWorkloadYaml(b.yaml, "q.yaml");
    ASSERT_FALSE(w.ok());
    EXPECT_NE(w.status().message().find(b.want), std::string::npos) << w.status().message();
  }
}

// inference.kv_cache_dtype: unset (the engine's default), auto or fp8; a training job has no
// cache to set.
TEST(WorkloadYamlTest, KvCacheDtypeIsReadAndBelongsToServing) {
  struct Case {
    const char* name;
    const char* yaml;
    std::optional<KvCacheDtype> want;
    const char* error;  // "" = parses
  };
  const Case kCases[] = {
      {"unset", "task: inference\nmodel: llama-3-8b\n", std::nullopt, ""},
      {"fp8", "task: inference\nmodel: llama-3-8b\ninference: {kv_cache_dtype: fp8}\n",
       KvCacheDtype::kFp8, ""},
      {"auto", "task: inference\nmodel: llama-3-8b\ninference: {kv_cache_dtype: AUTO}\n",
       KvCacheDtype::kAuto, ""},
      {"unknown", "task: inference\nmodel: llama-3-8b\ninference: {kv_cache_dtype: int4}\n",
       std::nullopt, "field \"inference.kv_cache_dtype\": expected auto or fp8, got \"int4\""},
      {"training",
       "task: finetune\nmethod: lora\nmodel: llama-3-8b\ninference: {kv_cache_dtype: fp8}\n",
       std::nullopt,
       "field \"inference.kv_cache_dtype\": expected unset unless the task is inference, got fp8"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Workload> w = ParseWorkloadYaml(c.yaml, "k.yaml");
    if (std::string(c.error).empty()) {
      ASSERT_TRUE(w.ok()) << w.status().message();
      EXPECT_EQ(w->inference.kv_cache_dtype, c.want);
    } else {
      ASSERT_FALSE(w.ok());
      EXPECT_NE(w.status().message().find(c.error), std::string::npos) << w.status().message();
    }
  }
}

// memory_format: unset (channels last is assumed), nhwc or nchw; other names are errors.
TEST(WorkloadYamlTest, MemoryFormatIsRead) {
  struct Case {
    const char* name;
    const char* yaml;
    std::optional<MemoryFormat> want;
    const char* error;  // "" = parses
  };
  const Case kCases[] = {
      {"unset", "task: pretrain\nmodel: resnet-50\n", std::nullopt, ""},
      {"nchw", "task: pretrain\nmodel: resnet-50\nmemory_format: NCHW\n", MemoryFormat::kNchw, ""},
      {"nhwc", "task: inference\nmodel: resnet-50\nmemory_format: nhwc\n", MemoryFormat::kNhwc, ""},
      {"unknown", "task: pretrain\nmodel: resnet-50\nmemory_format: channels_first\n", std::nullopt,
       "field \"memory_format\": expected nhwc or nchw, got \"channels_first\""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Workload> w = ParseWorkloadYaml(c.yaml, "m.yaml");
    if (std::string(c.error).empty()) {
      ASSERT_TRUE(w.ok()) << w.status().message();
      EXPECT_EQ(w->memory_format, c.want);
    } else {
      ASSERT_FALSE(w.ok());
      EXPECT_NE(w.status().message().find(c.error), std::string::npos) << w.status().message();
    }
  }
}

TEST(WorkloadYamlTest, AmountsTakeSuffixes) {
  struct Case {
    const char* text;
    double want;
  };
  const Case kCases[] = {{"100M", 1e8}, {"1.5B", 1.5e9}, {"2T", 2e12},
                         {"50K", 5e4},  {"123", 123},    {"3e9", 3e9}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.text);
    Result<Workload> w = ParseWorkloadYaml(
        std::string("task: pretrain\nmodel: llama-2-7b\ntokens: ") + c.text + "\n", "a.yaml");
    ASSERT_TRUE(w.ok()) << w.status().message();
    EXPECT_DOUBLE_EQ(*w->tokens, c.want);
  }
}

TEST(WorkloadYamlTest, ErrorsNameLineColumnFieldAndExpectedForm) {
  struct Case {
    const char* name;
    const char* text;
    const char* want;
  };
  const Case kCases[] = {
      {"unknown_key_did_you_mean", "task: finetune\nmodel: llama-2-7b\noptimiser: adamw\n",
       "b.yaml:3:1: field \"optimiser\": unknown key \"optimiser\"; did you mean \"optimizer\"?"},
      {"unknown_nested_key", "task: finetune\nmodel: x\nconstraints:\n  max_gpu: 8\n",
       "b.yaml:4:3: field \"constraints.max_gpu\": unknown key \"max_gpu\"; did you mean "
       "\"max_gpus\"?"},
      {"bad_integer", "task: finetune\nmodel: x\nseq_len: long\n",
       "b.yaml:3:10: field \"seq_len\": expected a whole number from 1 to 16777216, got \"long\""},
      {"bad_enum", "task: train\nmodel: x\n",
       "b.yaml:1:7: field \"task\": expected pretrain, finetune, inference, rendering or hpc, got "
       "\"train\""},
      {"bad_amount", "task: pretrain\nmodel: x\ntokens: lots\n",
       "b.yaml:3:9: field \"tokens\": expected a positive amount like 100M, 2B or 1.5T (suffix K "
       "M B T), got \"lots\""},
      {"bad_billing", "task: pretrain\nmodel: x\nconstraints: {billing: [payg, monthly]}\n",
       "b.yaml:3:31: field \"constraints.billing\": expected payg, spot, subscription_month (or "
       "subscription), subscription_year, reserved_no_upfront, reserved_partial_upfront or "
       "savings_plan, got \"monthly\""},
      {"inline_model_missing_field", "task: pretrain\nmodel: {layers: 2, hidden: 64}\n",
       "b.yaml:2:8: field \"model.heads\": expected it in an inline architecture {layers, hidden, "
       "heads, kv_heads, ffn, vocab}, got nothing"},
      {"inline_model_inconsistent",
       "task: pretrain\nmodel: {layers: 2, hidden: 64, heads: 5, ffn: 256, vocab: 100}\n",
       "b.yaml:2:8: field \"model\": field \"heads\": expected a divisor of hidden (64) or a "
       "head_dim, got 5"},
      {"lora_outside_finetune", "task: pretrain\nmethod: lora\nmodel: x\n",
       "b.yaml:2:9: field \"method\": expected full unless task is finetune (lora and qlora are "
       "fine-tuning methods), got lora"},
      {"missing_task", "model: x\n",
       "b.yaml:1:1: field \"task\": expected pretrain, finetune, inference, rendering or hpc, got "
       "nothing"},
      {"not_a_mapping", "- a\n- b\n",
       "b.yaml:1:1: field \"(document)\": expected a mapping of keys, got a list"},
      {"malformed_yaml", "task: [finetune\n",
       "b.yaml:2:1: malformed YAML: end of sequence flow not found"},
      {"empty", "", "b.yaml:1:1: empty workload: expected a mapping with at least task and model"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Workload> w = ParseWorkloadYaml(c.text, "b.yaml");
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.status().message(), c.want);
  }
}

}  // namespace
}  // namespace gpuplan::io
