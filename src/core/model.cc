#include "gpuplan/model.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/strings.h"

namespace gpuplan {
namespace {

// Lowercase, '_' and ' ' as '-', and only the part after the last '/' (Hugging Face repo ids).
std::string NormalizeName(std::string_view name) {
  const size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  std::string s = strings::Lower(name);
  std::replace(s.begin(), s.end(), '_', '-');
  std::replace(s.begin(), s.end(), ' ', '-');
  return s;
}

}  // namespace

std::string_view ModelKindName(ModelKind k) {
  switch (k) {
    case ModelKind::kDecoder: return "decoder";
    case ModelKind::kEncoder: return "encoder";
    case ModelKind::kOther: return "other";
  }
  return "other";
}

double ModelArch::LayerParams() const {
  if (!IsTransformer()) return 0;
  const double h = hidden;
  const double kv = static_cast<double>(kv_heads > 0 ? kv_heads : heads) * HeadDim();
  // Attention: Q and output projections h x h, K and V h x kv (grouped-query attention).
  const double attention = 2 * h * h + 2 * h * kv;
  // MLP: GELU has up and down projections, SwiGLU adds the gate (Shazeer 2020).
  const double mlp_params = (mlp == MlpKind::kSwiglu ? 3.0 : 2.0) * h * ffn;
  const double norms = 2 * h;  // two norm weight vectors per layer
  return static_cast<double>(layers) * (attention + mlp_params + norms);
}

double ModelArch::EmbeddingParams() const {
  if (!IsTransformer()) return 0;
  const double table = static_cast<double>(vocab) * hidden;
  return tied_embeddings ? table : 2 * table;
}

double ModelArch::Params() const {
  if (params > 0) return params;
  // Final norm: one vector of size hidden.
  return LayerParams() + EmbeddingParams() + hidden;
}

Status ValidateModelArch(const ModelArch& m) {
  auto bad = [](std::string_view field, const std::string& expected, const std::string& got) {
    return Status::InvalidArgument("field \"" + std::string(field) + "\": expected " + expected +
                                   ", got " + got);
  };
  if (m.kind == ModelKind::kOther) {
    if (m.params <= 0) return bad("params", "a positive parameter count", strings::Num(m.params));
    return Status::Ok();
  }
  if (m.layers < 1) return bad("layers", "a whole number >= 1", std::to_string(m.layers));
  if (m.hidden < 1) return bad("hidden", "a whole number >= 1", std::to_string(m.hidden));
  if (m.heads < 1) return bad("heads", "a whole number >= 1", std::to_string(m.heads));
  if (m.hidden % m.heads != 0) {
    return bad("heads", "a divisor of hidden (" + std::to_string(m.hidden) + ")",
               std::to_string(m.heads));
  }
  if (m.kv_heads < 1 || m.heads % m.kv_heads != 0) {
    return bad("kv_heads", "a divisor of heads (" + std::to_string(m.heads) + ")",
               std::to_string(m.kv_heads));
  }
  if (m.ffn < 1) return bad("ffn", "a whole number >= 1", std::to_string(m.ffn));
  if (m.vocab < 1) return bad("vocab", "a whole number >= 1", std::to_string(m.vocab));
  return Status::Ok();
}

const ModelArch* ModelZoo::Find(std::string_view name) const {
  const std::string want = NormalizeName(name);
  for (const ModelArch& m : models) {
    if (m.name == want) return &m;
  }
  return nullptr;
}

std::vector<std::string> ModelZoo::Suggest(std::string_view name, int limit) const {
  const std::string want = NormalizeName(name);
  std::vector<std::pair<int, std::string>> scored;
  for (const ModelArch& m : models) {
    int d = strings::EditDistance(want, m.name);
    // A shared prefix ("llama-2" for "llama-2-7") is a strong hint.
    if (m.name.rfind(want, 0) == 0) d = std::min(d, 1);
    scored.emplace_back(d, m.name);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [d, n] : scored) {
    if (static_cast<int>(out.size()) >= limit) break;
    if (d <= std::max<int>(3, static_cast<int>(want.size()) / 2)) out.push_back(n);
  }
  return out;
}

}  // namespace gpuplan
