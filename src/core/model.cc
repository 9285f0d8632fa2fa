#include "gpuplan/model.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "gpuplan/enum_names.h"
#include "gpuplan/strings.h"

namespace gpuplan {
namespace {

// Lowercase, '_' and ' ' as '-', and only the part after the last '/' (Hugging Face repo ids).
std::string NormalizeName(std::string_view name) {
  const size_t slash = name.rfind('/');
  if (slash != std::string_view::npos)
    name.remove_prefix(slash + 1);
  std::string s = strings::Lower(name);
  std::replace(s.begin(), s.end(), '_', '-');
  std::replace(s.begin(), s.end(), ' ', '-');
  return s;
}

// The largest model a plan takes: 1e13 parameters (10T). The largest published models have
// about 1.6-1.75T: Switch-C (Fedus et al. 2021, "Switch Transformers", Table 4: 1.571T), Wu Dao
// 2.0 (BAAI, 2021-06: 1.75T), Kimi K2 (Moonshot AI model card, 2025-07: 1.04T). Beyond five
// times that, a shape is a typo (a hidden of 100000 for 10000), and planning it would only say
// which limit of the hardware it passes.
constexpr double kMaxModelParams = 1e13;

}  // namespace

constexpr EnumNames<ModelKind, 3> kModelKindNames = {{{ModelKind::kDecoder, "decoder"},
                                                      {ModelKind::kEncoder, "encoder"},
                                                      {ModelKind::kOther, "other"}}};
std::string_view ModelKindName(ModelKind k) { return NameOf(kModelKindNames, k); }

constexpr EnumNames<Modality, 4> kModalityNames = {{{Modality::kNone, "", NameKind::kUnlisted},
                                                    {Modality::kImage, "image"},
                                                    {Modality::kDiffusion, "diffusion"},
                                                    {Modality::kSpeech, "speech"}}};
std::string_view ModalityName(Modality m) { return NameOf(kModalityNames, m); }
std::optional<Modality> ParseModality(std::string_view name) {
  return ParseName(kModalityNames, name, NameCase::kIgnore);
}

std::string_view AttentionKindName(AttentionKind k, int heads, int kv_heads) {
  if (k == AttentionKind::kMla)
    return "mla";
  return kv_heads > 0 && kv_heads < heads ? "gqa" : "mha";
}

double ModelArch::QueryDim() const {
  if (attention == AttentionKind::kMla) {
    return static_cast<double>(heads) * (mla.qk_nope_head_dim + mla.qk_rope_head_dim);
  }
  return static_cast<double>(heads) * HeadDim();
}

double ModelArch::AttentionParamsPerLayer() const {
  if (!IsTransformer())
    return 0;
  const double h = hidden;
  const double n = heads;
  if (attention == AttentionKind::kMla) {
    // DeepSeek-V2 2.1.2-2.1.3: W^DQ (h x d_c'), its norm, W^UQ/W^QR (d_c' x n(d_nope+d_rope));
    // W^DKV plus the shared RoPE key W^KR (h x (d_c + d_rope)), its norm, W^UK/W^UV
    // (d_c x n(d_nope + d_v)); output n d_v x h.
    const double qk = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
    const double q = mla.q_lora_rank > 0
                         ? h * mla.q_lora_rank + mla.q_lora_rank + mla.q_lora_rank * n * qk
                         : h * n * qk;
    const double kv = h * (mla.kv_lora_rank + mla.qk_rope_head_dim) + mla.kv_lora_rank +
                      mla.kv_lora_rank * n * (mla.qk_nope_head_dim + mla.v_head_dim);
    return q + kv + n * mla.v_head_dim * h;
  }
  // Q and output n x head_dim wide, K and V kv_heads x head_dim (grouped-query attention).
  const double q = n * HeadDim();
  const double kv = static_cast<double>(kv_heads > 0 ? kv_heads : heads) * HeadDim();
  return 2 * h * q + 2 * h * kv;
}

double ModelArch::DenseMlpParamsPerLayer() const {
  // GELU has up and down projections, SwiGLU adds the gate (Shazeer 2020).
  return (mlp == MlpKind::kSwiglu ? 3.0 : 2.0) * hidden * ffn;
}

double ModelArch::ExpertParams() const {
  return (mlp == MlpKind::kSwiglu ? 3.0 : 2.0) * hidden * moe.expert_ffn;
}

double ModelArch::MoeAlwaysOnParamsPerLayer() const {
  if (!IsMoe())
    return 0;
  const double shared_width = moe.shared_ffn > 0 ? moe.shared_ffn : moe.expert_ffn;
  const double shared =
      (mlp == MlpKind::kSwiglu ? 3.0 : 2.0) * hidden * shared_width * moe.shared_experts;
  return shared + static_cast<double>(hidden) * moe.experts;  // + router
}

int ModelArch::MoeLayers() const {
  if (!IsMoe() || layers <= moe.dense_layers)
    return 0;
  return (layers - moe.dense_layers) / std::max(1, moe.moe_every);
}

double ModelArch::RoutedExpertParams() const {
  return static_cast<double>(MoeLayers()) * moe.experts * ExpertParams();
}

double ModelArch::KvElementsPerTokenPerLayer() const {
  if (!IsTransformer())
    return 0;
  if (attention == AttentionKind::kMla)
    return mla.kv_lora_rank + mla.qk_rope_head_dim;
  return 2.0 * (kv_heads > 0 ? kv_heads : heads) * HeadDim();
}

double ModelArch::KvCacheElements(double context_tokens) const {
  const int sliding = sliding_window > 0 ? std::clamp(sliding_layers, 0, layers) : 0;
  const double windowed = sliding > 0 ? std::min<double>(context_tokens, sliding_window) : 0;
  return KvElementsPerTokenPerLayer() * ((layers - sliding) * context_tokens + sliding * windowed);
}

double ModelArch::LayerParams() const {
  if (!IsTransformer())
    return 0;
  const double norms = 2.0 * hidden;  // two norm weight vectors per layer
  const int moe_layers = MoeLayers();
  return static_cast<double>(layers) * (AttentionParamsPerLayer() + norms) +
         static_cast<double>(layers - moe_layers) * DenseMlpParamsPerLayer() +
         moe_layers * MoeAlwaysOnParamsPerLayer() + RoutedExpertParams();
}

double ModelArch::EmbeddingParams() const {
  if (!IsTransformer())
    return 0;
  const double table = static_cast<double>(vocab) * hidden;
  return tied_embeddings ? table : 2 * table;
}

double ModelArch::Params() const {
  if (params > 0)
    return params;
  // Final norm: one vector of size hidden.
  return LayerParams() + EmbeddingParams() + hidden;
}

double ModelArch::ActiveParams() const {
  if (active_params > 0)
    return active_params;
  if (!IsMoe())
    return Params();
  const double idle_experts =
      static_cast<double>(MoeLayers()) * (moe.experts - moe.top_k) * ExpertParams();
  // A published total scales the shape; the idle experts are taken from the shape.
  return std::max(0.0, Params() - idle_experts);
}

double ExpectedDistinctExperts(int experts, int top_k, double tokens) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0)
    return 0;
  const double k = std::min(top_k, experts);
  // One token misses a given expert with probability 1 - k/E; T tokens route independently.
  return experts * (1 - std::pow(1 - k / experts, tokens));
}

Status ValidateModelArch(const ModelArch& m) {
  auto bad = [](std::string_view field, const std::string& expected, const std::string& got) {
    return Status::InvalidArgument("field \"" + std::string(field) + "\": expected " + expected +
                                   ", got " + got)
        .AtField(std::string(field));
  };
  auto too_large = [&](double params) {
    return bad("params",
               "a model of at most 1e13 parameters (10T; the largest published, Wu Dao 2.0, has "
               "1.75T)",
               strings::Num(params / 1e12) + "T" +
                   (m.kind == ModelKind::kOther ? std::string()
                                                : " from this shape: check layers, hidden, ffn, "
                                                  "experts and vocab"));
  };
  if (m.kind == ModelKind::kOther) {
    if (m.params <= 0)
      return bad("params", "a positive parameter count", strings::Num(m.params));
    if (m.params > kMaxModelParams)
      return too_large(m.params);
    const GenerationShape& g = m.gen;
    if (g.modality == Modality::kDiffusion) {
      if (g.steps < 1)
        return bad("steps", "a diffusion model's sampling steps, >= 1", std::to_string(g.steps));
      if (g.native_width < 8 || g.native_height < 8)
        return bad("native_size", "the output size its FLOPs are given at, >= 8x8",
                   std::to_string(g.native_width) + "x" + std::to_string(g.native_height));
    }
    if (g.modality == Modality::kSpeech && (g.steps < 1 || g.decoder_params <= 0)) {
      return bad("decoder_params", "a speech model's decoder parameters and tokens per window",
                 strings::Num(g.decoder_params));
    }
    if (g.frames < 0 || g.once_flops < 0 || g.aux_params < 0 || g.peak_bytes < 0)
      return bad("frames", "non-negative generation fields", std::to_string(g.frames));
    return Status::Ok();
  }
  if (m.layers < 1)
    return bad("layers", "a whole number >= 1", std::to_string(m.layers));
  if (m.hidden < 1)
    return bad("hidden", "a whole number >= 1", std::to_string(m.hidden));
  if (m.heads < 1)
    return bad("heads", "a whole number >= 1", std::to_string(m.heads));
  if (m.head_dim < 0)
    return bad("head_dim", "a whole number >= 1", std::to_string(m.head_dim));
  if (m.head_dim == 0 && m.attention != AttentionKind::kMla && m.hidden % m.heads != 0) {
    return bad("heads", "a divisor of hidden (" + std::to_string(m.hidden) + ") or a head_dim",
               std::to_string(m.heads));
  }
  if (m.kv_heads < 1 || m.heads % m.kv_heads != 0) {
    return bad("kv_heads", "a divisor of heads (" + std::to_string(m.heads) + ")",
               std::to_string(m.kv_heads));
  }
  if (m.attention == AttentionKind::kMla) {
    const MlaShape& a = m.mla;
    if (a.q_lora_rank < 0)
      return bad("q_lora_rank", "0 or more", std::to_string(a.q_lora_rank));
    const std::pair<std::string_view, int> ranks[] = {{"kv_lora_rank", a.kv_lora_rank},
                                                      {"qk_rope_head_dim", a.qk_rope_head_dim},
                                                      {"qk_nope_head_dim", a.qk_nope_head_dim},
                                                      {"v_head_dim", a.v_head_dim}};
    for (const auto& [field, v] : ranks) {
      if (v < 1)
        return bad(field, "a whole number >= 1 for MLA attention", std::to_string(v));
    }
  }
  const MoeShape& e = m.moe;
  if (e.experts < 0)
    return bad("experts", "0 (dense) or more", std::to_string(e.experts));
  if (e.experts > 0) {
    if (e.top_k < 1 || e.top_k > e.experts) {
      return bad("top_k", "1 to experts (" + std::to_string(e.experts) + ")",
                 std::to_string(e.top_k));
    }
    if (e.expert_ffn < 1)
      return bad("moe_ffn", "a whole number >= 1", std::to_string(e.expert_ffn));
    if (e.shared_experts < 0) {
      return bad("shared_experts", "0 or more", std::to_string(e.shared_experts));
    }
    if (e.dense_layers < 0 || e.dense_layers >= m.layers) {
      return bad("dense_layers", "0 to layers - 1 (" + std::to_string(m.layers - 1) + ")",
                 std::to_string(e.dense_layers));
    }
    if (e.moe_every < 1)
      return bad("moe_every", "a whole number >= 1", std::to_string(e.moe_every));
  }
  // A dense MLP width is needed where any layer is dense.
  if (m.ffn < 1 && (!m.IsMoe() || m.MoeLayers() < m.layers)) {
    return bad("ffn", "a whole number >= 1 (the dense MLP width)", std::to_string(m.ffn));
  }
  if (m.sliding_window < 0 || m.sliding_layers < 0 || m.sliding_layers > m.layers) {
    return bad("sliding_layers", "0 to layers (" + std::to_string(m.layers) + ")",
               std::to_string(m.sliding_layers));
  }
  if (m.vocab < 1)
    return bad("vocab", "a whole number >= 1", std::to_string(m.vocab));
  if (m.Params() > kMaxModelParams)
    return too_large(m.Params());
  return Status::Ok();
}

const ModelArch* ModelZoo::Find(std::string_view name) const {
  const std::string want = NormalizeName(name);
  for (const ModelArch& m : models) {
    if (m.name == want)
      return &m;
  }
  // A Hugging Face id names its row exactly (case-insensitive), whatever the row's name.
  const std::string id = strings::Lower(name);
  for (const ModelArch& m : models) {
    if (!m.hf_id.empty() && strings::Lower(m.hf_id) == id)
      return &m;
  }
  return nullptr;
}

std::vector<std::string> ModelZoo::Suggest(std::string_view name, int limit) const {
  const std::string want = NormalizeName(name);
  std::vector<std::pair<int, std::string>> scored;
  for (const ModelArch& m : models) {
    int d = strings::EditDistance(want, m.name);
    // A shared prefix ("llama-2" for "llama-2-7") is a strong hint.
    if (m.name.rfind(want, 0) == 0)
      d = std::min(d, 1);
    scored.emplace_back(d, m.name);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [d, n] : scored) {
    if (static_cast<int>(out.size()) >= limit)
      break;
    if (d <= std::max<int>(3, static_cast<int>(want.size()) / 2))
      out.push_back(n);
  }
  return out;
}

}  // namespace gpuplan
