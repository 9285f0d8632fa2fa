// Reads a Hugging Face config.json into a ModelArch: the path for models that are not in the zoo.
//
// Families: llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek_v2,
// deepseek_v3 (and kimi_k2), gemma2, gemma3 (`text_config` of multimodal wrappers), phi3,
// gpt_oss, glm4_moe, llama4, and any other config with a Llama-shaped set of fields.
// `quantization_config` gives the weight format (FP8 blocks, GPTQ/AWQ, MXFP4, bitsandbytes,
// compressed-tensors). Nothing is downloaded: the user points at a file or a folder.
//
//   Result<io::HfModelConfig> c = io::LoadHfModelConfig("models/DeepSeek-R1");
//   if (c.ok()) Use(c->arch.Params(), c->arch.ActiveParams(), c->weights.bits);
#ifndef GPUPLAN_SRC_IO_HF_CONFIG_H_
#define GPUPLAN_SRC_IO_HF_CONFIG_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/model.h"
#include "gpuplan/status.h"
#include "gpuplan/workload.h"

namespace gpuplan::io {

// The released checkpoint's weight format, from quantization_config (absent = 16-bit).
struct HfWeightFormat {
  std::string method;  // quant_method as written ("fp8", "gptq", "awq", "mxfp4", ...); "" = none
  int bits = 16;       // bits per weight of the quantised matrices
  bool fp8 = false;    // FP8 (e4m3) weights: served at FP8 precision
  WeightFormat format = WeightFormat::kInt;
  QuantizedLayers layers = QuantizedLayers::kAll;
};

struct HfModelConfig {
  ModelArch arch;
  HfWeightFormat weights;
  std::string model_type;          // as written (text_config's for wrappers)
  std::vector<std::string> notes;  // what was assumed or cross-checked, for the user
};

// Parses config.json text; `file` names it in errors ("config.json: field \"hidden_size\" is
// missing (needed for a qwen3_moe config)"). The architecture is validated.
Result<HfModelConfig> ParseHfModelConfig(std::string_view json_text, const std::string& file);

// Reads `path` (a config.json, or a folder holding one). When model.safetensors.index.json lies
// beside it, its metadata.total_size is compared with the parameter bytes the shape implies; a
// disagreement over 15 % is reported in `notes`.
Result<HfModelConfig> LoadHfModelConfig(const std::string& path);

// Bytes of weights the shape implies at the release's format: quantised matrices at their bits
// (FP8 1 byte), embeddings and norms at `dtype_bytes`. Used for the index cross-check.
double ExpectedCheckpointBytes(const HfModelConfig& c, double dtype_bytes);

// Sets the workload's weight format from the release unless the user chose one: FP8 weights
// serve at FP8 precision (when `precision_given` is false), 4/8-bit weights set weight_bits
// (when `bits_given` is false).
void ApplyWeightFormat(const HfWeightFormat& f, bool precision_given, bool bits_given, Workload& w);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_HF_CONFIG_H_
