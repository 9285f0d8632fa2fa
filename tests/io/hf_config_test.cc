// The Hugging Face config.json reader over published configs (tests/testdata/hf_configs).
#include "io/hf_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace gpuplan::io {
namespace {

std::string Config(const std::string& name) {
  return std::string(GPUPLAN_SOURCE_DIR) + "/tests/testdata/hf_configs/" + name;
}

TEST(HfConfigTest, PublishedConfigsGiveTheirPublishedCounts) {
  struct Case {
    const char* dir;
    double total_b, active_b;  // published
    double tolerance;          // fraction
    int experts, top_k;
    HfWeightFormat weights;
  };
  const Case kCases[] = {
      {"qwen3-30b-a3b", 30.5, 3.3, 0.02, 128, 8, {}},
      {"deepseek-v3", 671, 37, 0.02, 256, 8, {.method = "fp8", .bits = 8, .fp8 = true}},
      {"mixtral-8x7b", 46.7, 12.9, 0.02, 8, 2, {}},
      // OpenAI's 5.1B active leaves out the embeddings; the shape counts them once.
      {"gpt-oss-120b",
       116.8,
       5.7,
       0.03,
       128,
       4,
       {.method = "mxfp4",
        .bits = 4,
        .fp8 = false,
        .format = WeightFormat::kMxfp4,
        .layers = QuantizedLayers::kExperts}},
      // Meta's 109B includes the vision tower the text_config does not describe.
      {"llama-4-scout", 109, 17, 0.03, 16, 1, {}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.dir);
    Result<HfModelConfig> r = LoadHfModelConfig(Config(c.dir));  // a folder holding config.json
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_NEAR(r->arch.Params() / 1e9, c.total_b, c.tolerance * c.total_b);
    EXPECT_NEAR(r->arch.ActiveParams() / 1e9, c.active_b, 0.05 * c.active_b);
    EXPECT_EQ(r->arch.moe.experts, c.experts);
    EXPECT_EQ(r->arch.moe.top_k, c.top_k);
    EXPECT_EQ(r->weights.method, c.weights.method);
    EXPECT_EQ(r->weights.bits, c.weights.bits);
    EXPECT_EQ(r->weights.fp8, c.weights.fp8);
    EXPECT_EQ(r->weights.format, c.weights.format);
    EXPECT_EQ(r->weights.layers, c.weights.layers);
  }
}

TEST(HfConfigTest, FamilyFieldsLandWhereTheyBelong) {
  Result<HfModelConfig> ds = LoadHfModelConfig(Config("deepseek-v3/config.json"));
  ASSERT_TRUE(ds.ok()) << ds.status().message();
  EXPECT_EQ(ds->arch.attention, AttentionKind::kMla);
  EXPECT_EQ(ds->arch.mla.kv_lora_rank, 512);
  EXPECT_EQ(ds->arch.moe.dense_layers, 3);
  EXPECT_EQ(ds->arch.moe.shared_experts, 1);
  EXPECT_EQ(ds->arch.ffn, 18432);

  Result<HfModelConfig> qwen = LoadHfModelConfig(Config("qwen3-30b-a3b"));
  ASSERT_TRUE(qwen.ok());
  EXPECT_EQ(qwen->arch.HeadDim(), 128);     // set apart: 2048 / 32 would be 64
  EXPECT_EQ(qwen->arch.sliding_layers, 0);  // sliding_window null, use_sliding_window false

  Result<HfModelConfig> oss = LoadHfModelConfig(Config("gpt-oss-120b"));
  ASSERT_TRUE(oss.ok());
  EXPECT_EQ(oss->arch.sliding_window, 128);
  EXPECT_EQ(oss->arch.sliding_layers, 18);  // layer_types: every other layer

  Result<HfModelConfig> scout = LoadHfModelConfig(Config("llama-4-scout"));
  ASSERT_TRUE(scout.ok());
  EXPECT_EQ(scout->model_type, "llama4_text");  // from text_config
  EXPECT_EQ(scout->arch.moe.shared_experts, 1);
  EXPECT_EQ(scout->arch.sliding_layers, 36);  // chunked attention on the RoPE layers
}

TEST(HfConfigTest, BadConfigsNameTheField) {
  struct Case {
    const char* name;
    const char* json;
    const char* want;
  };
  const Case kCases[] = {
      {"not_json", "{",
       "c.json:1:2: malformed JSON: syntax error while parsing object key - unexpected end of "
       "input; expected string literal (expected a Hugging Face config.json)"},
      {"not_an_object", "[1]", "c.json: not a JSON object (expected a Hugging Face config.json)"},
      {"missing_hidden",
       R"({"model_type":"qwen3","num_hidden_layers":2,"num_attention_heads":4,"vocab_size":10,
           "intermediate_size":8})",
       "c.json: field \"hidden_size\" is missing (needed for a qwen3 config)"},
      {"missing_expert_width",
       R"({"model_type":"qwen3_moe","num_hidden_layers":2,"hidden_size":64,
           "num_attention_heads":4,"vocab_size":10,"num_experts":8,"num_experts_per_tok":2})",
       "c.json: field \"moe_intermediate_size\" is missing (needed for a qwen3_moe config)"},
      {"string_for_number",
       R"({"model_type":"llama","num_hidden_layers":"two","hidden_size":64,
           "num_attention_heads":4,"vocab_size":10,"intermediate_size":8})",
       "c.json: field \"num_hidden_layers\": expected a whole number, got \"two\""},
      {"unknown_quantization",
       R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,
           "vocab_size":10,"intermediate_size":8,"quantization_config":{"quant_method":"hqq"}})",
       "c.json: field \"quantization_config\": quant_method \"hqq\" is not one of fp8, mxfp4, "
       "gptq, awq, bitsandbytes, compressed-tensors; give --weight-bits or --precision instead"},
      {"bad_shape",
       R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":5,
           "vocab_size":10,"intermediate_size":8})",
       "c.json: field \"heads\": expected a divisor of hidden (64) or a head_dim, got 5"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<HfModelConfig> r = ParseHfModelConfig(c.json, "c.json");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), c.want);
  }
}

TEST(HfConfigTest, QuantizationSetsWeightBits) {
  const std::string base =
      R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,
          "vocab_size":10,"intermediate_size":8,"quantization_config":)";
  struct Case {
    const char* name;
    const char* quant;
    int bits;
  };
  const Case kCases[] = {
      {"gptq", R"({"quant_method":"gptq","bits":4,"group_size":128})", 4},
      {"awq", R"({"quant_method":"awq","bits":4})", 4},
      {"bnb_8bit", R"({"quant_method":"bitsandbytes","load_in_8bit":true})", 8},
      {"compressed_tensors",
       R"({"quant_method":"compressed-tensors","config_groups":{"g":{"weights":{"num_bits":4}}}})",
       4},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<HfModelConfig> r = ParseHfModelConfig(base + c.quant + "}", "c.json");
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->weights.bits, c.bits);
    Workload w;
    w.task = Task::kInference;
    ApplyWeightFormat(r->weights, false, false, w);
    EXPECT_EQ(w.weight_bits, c.bits);
    Workload given = w;
    given.weight_bits = 8;
    ApplyWeightFormat(r->weights, false, /*bits_given=*/true, given);
    EXPECT_EQ(given.weight_bits, 8);  // the user's choice stands
  }
}

TEST(HfConfigTest, SafetensorsIndexCrossChecksTheBytes) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gpuplan_hf_index_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(Config("qwen3-30b-a3b/config.json"), dir / "config.json",
                             std::filesystem::copy_options::overwrite_existing);
  // 30,532,110,336 parameters in BF16 = 61.06 GB: an index that agrees, then one from a
  // different model (a 7B checkpoint).
  const std::pair<double, bool> kIndexes[] = {{61.1e9, false}, {15.2e9, true}};
  for (const auto& [bytes, disagree] : kIndexes) {
    std::ofstream(dir / "model.safetensors.index.json")
        << R"({"metadata":{"total_size":)" << static_cast<long long>(bytes)
        << R"(},"weight_map":{}})";
    Result<HfModelConfig> r = LoadHfModelConfig(dir.string());
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_FALSE(r->notes.empty());
    const std::string& note = r->notes.back();
    EXPECT_NE(note.find("the shape gives 61.1 GB"), std::string::npos) << note;
    EXPECT_EQ(note.find("disagree") != std::string::npos, disagree) << note;
  }
  std::filesystem::remove_all(dir);
}

TEST(HfConfigTest, MissingFileSaysWhatIsExpected) {
  Result<HfModelConfig> r = LoadHfModelConfig("/nonexistent/model");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("expected a Hugging Face config.json or a folder"),
            std::string::npos);
}

}  // namespace
}  // namespace gpuplan::io
