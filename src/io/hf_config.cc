#include "io/hf_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "io/diffusers_config.h"
#include "io/file_util.h"
#include "io/json_check.h"

namespace gpuplan::io {
namespace {

using nlohmann::json;

// Families whose transformers config class defaults tie_word_embeddings to true when the key is
// absent (PretrainedConfig's default; Gemma's classes keep it). Llama-derived classes set false.
bool TiesByDefault(std::string_view model_type) {
  return model_type.starts_with("gemma") || model_type.empty();
}

constexpr std::string_view kKnownFamilies[] = {
    "llama",       "mistral",     "mixtral",  "qwen2",  "qwen2_moe",  "qwen3",  "qwen3_moe",
    "deepseek_v2", "deepseek_v3", "kimi_k2",  "gemma",  "gemma2",     "gemma3", "gemma3_text",
    "phi3",        "gpt_oss",     "glm4_moe", "llama4", "llama4_text"};

// Reads fields of one config object (text_config for wrappers, falling back to the top level:
// some wrappers keep tie_word_embeddings or quantization_config there). The first error sticks.
class Fields {
 public:
  Fields(const json& text, const json& root, std::string file, std::string family)
      : text_(text), root_(root), file_(std::move(file)), family_(std::move(family)) {}

  const json* Find(std::string_view key) const {
    for (const json* obj : {&text_, &root_}) {
      if (!obj->is_object())
        continue;
      auto it = obj->find(std::string(key));
      if (it != obj->end() && !it->is_null())
        return &*it;
    }
    return nullptr;
  }
  // The first of `keys` present, as a whole number; nullopt when none is.
  std::optional<int> Int(std::initializer_list<std::string_view> keys, int max = 1 << 24) {
    for (std::string_view k : keys) {
      const json* v = Find(k);
      if (v == nullptr)
        continue;
      if (!v->is_number_integer() &&
          !(v->is_number() && std::floor(v->get<double>()) == v->get<double>())) {
        Fail(k, fmt::format("expected a whole number, got {}", v->dump()));
        return std::nullopt;
      }
      const double d = v->get<double>();
      if (d < 0 || d > max) {
        Fail(k, fmt::format("expected a whole number from 0 to {}, got {}", max, v->dump()));
        return std::nullopt;
      }
      return static_cast<int>(d);
    }
    return std::nullopt;
  }
  int Required(std::initializer_list<std::string_view> keys, int max = 1 << 24) {
    std::optional<int> v = Int(keys, max);
    if (!v && status_.ok()) {
      status_ = Status::InvalidArgument(
                    fmt::format("{}: field \"{}\" is missing (needed for a {} config)", file_,
                                *keys.begin(), family_.empty() ? "Llama-shaped" : family_))
                    .At(file_, 0, 0, std::string(*keys.begin()));
    }
    return v.value_or(0);
  }
  std::optional<bool> Bool(std::string_view key) {
    const json* v = Find(key);
    if (v == nullptr)
      return std::nullopt;
    if (!v->is_boolean()) {
      Fail(key, fmt::format("expected true or false, got {}", v->dump()));
      return std::nullopt;
    }
    return v->get<bool>();
  }
  // A list field's strings (e.g. layer_types); empty when absent or not a list.
  std::vector<std::string> Strings(std::string_view key) const {
    std::vector<std::string> out;
    const json* v = Find(key);
    if (v == nullptr || !v->is_array())
      return out;
    for (const json& e : *v) {
      if (e.is_string())
        out.push_back(e.get<std::string>());
    }
    return out;
  }
  int ListSize(std::string_view key) const {
    const json* v = Find(key);
    return v != nullptr && v->is_array() ? static_cast<int>(v->size()) : 0;
  }
  void Fail(std::string_view key, const std::string& what) {
    if (status_.ok()) {
      status_ = Status::InvalidArgument(fmt::format("{}: field \"{}\": {}", file_, key, what))
                    .At(file_, 0, 0, std::string(key));
    }
  }
  const Status& status() const { return status_; }

 private:
  const json& text_;
  const json& root_;
  std::string file_;
  std::string family_;
  Status status_;
};

// Mixture-of-Experts fields under each family's names.
void ReadMoe(Fields& f, std::string_view family, ModelArch& m, std::vector<std::string>& notes) {
  m.moe.experts =
      f.Int({"n_routed_experts", "num_routed_experts", "num_local_experts", "num_experts"})
          .value_or(0);
  if (m.moe.experts <= 1) {  // a dense model (some dense configs write num_experts: 0 or 1)
    m.moe = MoeShape{};
    return;
  }
  m.moe.top_k = f.Required({"num_experts_per_tok", "experts_per_token", "moe_topk"});
  // Mixtral, gpt-oss and Llama 4 name the expert width intermediate_size.
  const bool expert_is_intermediate =
      family == "mixtral" || family == "gpt_oss" || family.starts_with("llama4");
  m.moe.expert_ffn = expert_is_intermediate ? f.Required({"intermediate_size"})
                                            : f.Required({"moe_intermediate_size"});
  if (std::optional<int> shared_width = f.Int({"shared_expert_intermediate_size"});
      shared_width && *shared_width > 0) {
    m.moe.shared_experts = 1;  // Qwen2-MoE: one shared expert of its own width
    m.moe.shared_ffn = *shared_width;
  } else if (family.starts_with("llama4")) {
    m.moe.shared_experts = 1;  // Llama 4: one shared expert as wide as a routed one
  } else {
    m.moe.shared_experts = f.Int({"n_shared_experts", "num_shared_experts"}).value_or(0);
  }
  m.moe.dense_layers = f.Int({"first_k_dense_replace"}).value_or(0);
  // mlp_only_layers (Qwen) lists dense layers anywhere; counted with the leading ones, which
  // is what parameters and memory need.
  if (const int mlp_only = f.ListSize("mlp_only_layers"); mlp_only > 0) {
    m.moe.dense_layers += mlp_only;
    notes.push_back(fmt::format("mlp_only_layers: {} dense layers counted", mlp_only));
  }
  m.moe.moe_every = std::max(
      1, f.Int({"moe_layer_freq", "decoder_sparse_step", "interleave_moe_layer_step"}).value_or(1));
  if (m.ffn == 0 && m.MoeLayers() < m.layers) {
    m.ffn =
        f.Required({family.starts_with("llama4") ? "intermediate_size_mlp" : "intermediate_size"});
  }
}

// Sliding-window or chunked local attention: how many layers keep a bounded KV cache.
void ReadSlidingWindow(Fields& f, std::string_view family, ModelArch& m,
                       std::vector<std::string>& notes) {
  const std::vector<std::string> types = f.Strings("layer_types");
  if (family.starts_with("llama4")) {
    if (std::optional<int> chunk = f.Int({"attention_chunk_size"}); chunk && *chunk > 0) {
      // no_rope_layers: 1 = RoPE layer with chunked attention, 0 = global NoPE layer.
      const json* list = f.Find("no_rope_layers");
      int chunked = 0;
      if (list != nullptr && list->is_array()) {
        for (const json& e : *list)
          chunked += e.is_number() && e.get<double>() != 0 ? 1 : 0;
      } else {
        chunked = m.layers - m.layers / 4;  // Meta's release: every 4th layer global
      }
      m.sliding_window = *chunk;
      m.sliding_layers = std::min(chunked, m.layers);
    }
    return;
  }
  const std::optional<int> window = f.Int({"sliding_window"});
  if (!window || *window <= 0)
    return;
  if (f.Bool("use_sliding_window") == false)
    return;  // Qwen writes the window but disables it
  int sliding = m.layers;
  if (!types.empty()) {
    sliding = static_cast<int>(std::count(types.begin(), types.end(), "sliding_attention"));
  } else if (std::optional<int> pattern = f.Int({"sliding_window_pattern"});
             pattern && *pattern > 0) {
    sliding = m.layers - m.layers / *pattern;  // Gemma 3: 5 local layers per global one
  } else if (family == "gemma2") {
    sliding = m.layers / 2;  // Gemma 2 alternates local and global layers
  }
  m.sliding_window = *window;
  m.sliding_layers = std::clamp(sliding, 0, m.layers);
  if (sliding > 0) {
    notes.push_back(fmt::format("sliding-window attention ({} tokens) on {} of {} layers", *window,
                                m.sliding_layers, m.layers));
  }
}

// quantization_config: the weight bits of the released checkpoint.
Status ReadQuantization(const json& root, const json& text, const std::string& file,
                        HfWeightFormat& out) {
  const json* q = nullptr;
  for (const json* obj : {&text, &root}) {
    if (obj->is_object() && obj->contains("quantization_config") &&
        (*obj)["quantization_config"].is_object()) {
      q = &(*obj)["quantization_config"];
      break;
    }
  }
  if (q == nullptr)
    return Status::Ok();
  auto bad = [&](const std::string& what) {
    return Status::InvalidArgument(
               fmt::format(
                   "{}: field \"quantization_config\": {}; give --weight-bits or --precision "
                   "instead",
                   file, what))
        .At(file, 0, 0, "quantization_config");
  };
  const std::string method = q->contains("quant_method") && (*q)["quant_method"].is_string()
                                 ? (*q)["quant_method"].get<std::string>()
                                 : "";
  out.method = method;
  auto int_field = [&](const json& obj, const char* key) -> std::optional<int> {
    if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number())
      return std::nullopt;
    return static_cast<int>(obj[key].get<double>());
  };
  if (method == "fp8" || method == "fbgemm_fp8") {
    out.bits = 8;
    out.fp8 = true;
  } else if (method == "mxfp4") {
    // Transformers' MXFP4 integration swaps only the MoE experts' matrices (gpt-oss:
    // modules_to_not_convert lists attention, router, embeddings and head).
    out.bits = 4;
    out.format = WeightFormat::kMxfp4;
    out.layers = QuantizedLayers::kExperts;
  } else if (method == "gptq" || method == "awq") {
    out.bits =
        int_field(*q, method == "awq" && !q->contains("bits") ? "w_bit" : "bits").value_or(4);
  } else if (method == "bitsandbytes") {
    const bool four = q->contains("load_in_4bit") && (*q)["load_in_4bit"].is_boolean() &&
                      (*q)["load_in_4bit"].get<bool>();
    out.bits = four ? 4 : 8;
  } else if (method == "compressed-tensors") {
    // config_groups.<group>.weights.num_bits (Neural Magic / llm-compressor).
    std::optional<int> bits;
    if (q->contains("config_groups") && (*q)["config_groups"].is_object()) {
      for (const auto& [name, group] : (*q)["config_groups"].items()) {
        if (group.is_object() && group.contains("weights")) {
          bits = int_field(group["weights"], "num_bits");
          const json& wt = group["weights"];
          if (wt.contains("type") && wt["type"] == "float" && bits == 8)
            out.fp8 = true;
          if (bits)
            break;
        }
      }
    }
    if (!bits)
      return bad("compressed-tensors without config_groups.*.weights.num_bits");
    out.bits = *bits;
  } else {
    return bad(
        fmt::format("quant_method \"{}\" is not one of fp8, mxfp4, gptq, awq, "
                    "bitsandbytes, compressed-tensors",
                    method));
  }
  if (out.bits != 4 && out.bits != 8) {
    return bad(fmt::format("{} weights of {} bits (expected 4 or 8)", method, out.bits));
  }
  return Status::Ok();
}

}  // namespace

Result<HfModelConfig> ParseHfModelConfig(std::string_view json_text, const std::string& file) {
  const json root = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    // The strict pass names the line and column where the parser stopped (issue 31).
    Status at = CheckStrictJson(
        json_text, file, {.max_depth = 1 << 16, .max_values = std::numeric_limits<size_t>::max()});
    if (!at.ok())
      return Status::InvalidArgument(at.message() + " (expected a Hugging Face config.json)");
  }
  if (root.is_discarded() || !root.is_object()) {
    return Status::InvalidArgument(file +
                                   ": not a JSON object (expected a Hugging Face "
                                   "config.json)");
  }
  // Multimodal wrappers (Gemma 3, Llama 4, Qwen-VL ...) keep the language model in text_config.
  const bool wrapped = root.contains("text_config") && root["text_config"].is_object();
  const json& text = wrapped ? root["text_config"] : root;
  auto type_of = [](const json& obj) {
    return obj.contains("model_type") && obj["model_type"].is_string()
               ? obj["model_type"].get<std::string>()
               : std::string();
  };
  HfModelConfig out;
  out.model_type = type_of(text).empty() ? type_of(root) : type_of(text);
  const std::string& family = out.model_type;
  if (std::find(std::begin(kKnownFamilies), std::end(kKnownFamilies), family) ==
      std::end(kKnownFamilies)) {
    out.notes.push_back(fmt::format(
        "model_type \"{}\" is not a family gpuplan knows; read as a Llama-shaped config "
        "(SwiGLU MLP, grouped-query attention): check the parameter count",
        family.empty() ? "(none)" : family));
  }
  Fields f(text, root, file, family);
  ModelArch& m = out.arch;
  m.kind = ModelKind::kDecoder;
  m.mlp = MlpKind::kSwiglu;  // every family above has a gated MLP (SwiGLU/GeGLU, phi3 gate_up)
  m.name = "config";
  m.source = file;
  m.layers = f.Required({"num_hidden_layers", "n_layer", "num_layers"}, 1000);
  m.hidden = f.Required({"hidden_size", "n_embd", "d_model"});
  m.heads = f.Required({"num_attention_heads", "n_head"}, 4096);
  m.kv_heads = f.Int({"num_key_value_heads", "multi_query_group_num"}, 4096).value_or(m.heads);
  m.vocab = f.Required({"vocab_size"});
  m.head_dim = f.Int({"head_dim"}, 1 << 16).value_or(0);
  if (m.head_dim > 0 && m.heads > 0 && m.head_dim * m.heads == m.hidden)
    m.head_dim = 0;
  m.default_seq_len = f.Int({"max_position_embeddings", "n_positions"}).value_or(0);
  m.tied_embeddings = f.Bool("tie_word_embeddings").value_or(TiesByDefault(family));
  if (f.Find("kv_lora_rank") != nullptr) {
    m.attention = AttentionKind::kMla;
    m.mla.kv_lora_rank = f.Required({"kv_lora_rank"});
    m.mla.q_lora_rank = f.Int({"q_lora_rank"}).value_or(0);
    m.mla.qk_rope_head_dim = f.Required({"qk_rope_head_dim"});
    m.mla.qk_nope_head_dim = f.Required({"qk_nope_head_dim"});
    m.mla.v_head_dim = f.Required({"v_head_dim"});
    m.head_dim = 0;
  }
  ReadMoe(f, family, m, out.notes);
  if (!m.IsMoe())
    m.ffn = f.Required({"intermediate_size", "n_inner", "ffn_dim"});
  ReadSlidingWindow(f, family, m, out.notes);
  if (!f.status().ok())
    return f.status();
  if (Status s = ReadQuantization(root, text, file, out.weights); !s.ok())
    return s;
  if (Status s = ValidateModelArch(m); !s.ok()) {
    return Status::InvalidArgument(file + ": " + s.message());
  }
  return out;
}

double ExpectedCheckpointBytes(const HfModelConfig& c, double dtype_bytes) {
  const ModelArch& m = c.arch;
  const double quantised = m.LayerParams();  // the linear layers (norms are a rounding error)
  const double rest = m.Params() - quantised;
  if (c.weights.method.empty())
    return m.Params() * dtype_bytes;
  // MXFP4 quantises only the experts (gpt-oss); the others quantise every linear layer.
  const double q_params = c.weights.method == "mxfp4" ? m.RoutedExpertParams() : quantised;
  // Group scales: ~16 bits per 128 weights for GPTQ/AWQ, 8 per 32 for MXFP4; FP8 block scales
  // (one fp32 per 128x128) are negligible.
  const double scale_bits = c.weights.fp8 ? 0 : c.weights.method == "mxfp4" ? 8.0 / 32 : 16.0 / 128;
  return q_params * (c.weights.bits + scale_bits) / 8 + (rest + quantised - q_params) * dtype_bytes;
}

Result<HfModelConfig> LoadHfModelConfig(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path file = path;
  // A diffusers pipeline: its model_index.json names the components' folders.
  const fs::path pipeline = fs::is_directory(file, ec) ? file / "model_index.json" : fs::path(path);
  if (pipeline.filename() == "model_index.json" && fs::exists(pipeline, ec)) {
    Result<std::string> text = ReadFile(pipeline.string());
    if (!text.ok())
      return Status::NotFound(fmt::format("--model-config {}: {}", path, text.status().message()));
    const fs::path folder = pipeline.parent_path();
    return ParseDiffusersPipeline(*text, pipeline.string(), [&](const std::string& relative) {
      return ReadFile((folder / relative).string());
    });
  }
  if (fs::is_directory(file, ec))
    file /= "config.json";
  Result<std::string> text = ReadFile(file.string());
  if (!text.ok()) {
    return Status::NotFound(fmt::format(
        "--model-config {}: {} (expected a Hugging Face config.json or a folder holding one)", path,
        text.status().message()));
  }
  Result<HfModelConfig> c = ParseHfModelConfig(*text, file.string());
  if (!c.ok())
    return c;
  // The checkpoint's own size, when its shard index is at hand.
  const fs::path index = file.parent_path() / "model.safetensors.index.json";
  if (fs::exists(index, ec)) {
    Result<std::string> idx = ReadFile(index.string());
    const json j = idx.ok() ? json::parse(*idx, nullptr, false) : json();
    const json* total = nullptr;
    if (j.is_object() && j.contains("metadata") && j["metadata"].is_object() &&
        j["metadata"].contains("total_size") && j["metadata"]["total_size"].is_number()) {
      total = &j["metadata"]["total_size"];
    }
    if (total == nullptr) {
      c->notes.push_back(index.string() +
                         ": no metadata.total_size; parameter bytes not "
                         "cross-checked");
    } else {
      const double actual = total->get<double>();
      const double expected = ExpectedCheckpointBytes(*c, 2);
      const double ratio = expected > 0 ? actual / expected : 0;
      c->notes.push_back(fmt::format(
          "{}: total_size {:.1f} GB; the shape gives {:.1f} GB ({:+.1f} %){}", index.string(),
          actual / 1e9, expected / 1e9, (ratio - 1) * 100,
          std::abs(ratio - 1) > 0.15
              ? ": they disagree by more than 15 %; check the config (extra layers such as "
                "MTP or a vision tower, or a different weight format)"
              : ""));
    }
  }
  return c;
}

void ApplyWeightFormat(const HfWeightFormat& f, bool precision_given, bool bits_given,
                       Workload& w) {
  if (f.method.empty())
    return;
  if (f.fp8) {
    if (!precision_given && !w.IsTraining())
      w.precision = Precision::kFp8;
    return;
  }
  if (!bits_given && !w.IsTraining()) {
    w.weight_bits = f.bits;
    w.weight_format = f.format;
    w.quantized_layers = f.layers;
  }
}

}  // namespace gpuplan::io
