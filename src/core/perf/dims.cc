// Model sizes the formulas share: bytes per element, quantised bits, per-layer dimensions and
// LoRA adapter sizes.
#include <array>
#include <cmath>

#include "perf/internal.h"

namespace gpuplan::perf::internal {

// Bytes per element of weights and activations at a compute precision. FP8 training (NVIDIA
// Transformer Engine) keeps BF16 weights and activations and casts per GEMM.
double ElementBytes(Precision p) {
  switch (p) {
    case Precision::kFp64:
      return 8;
    case Precision::kFp32:
    case Precision::kTf32:
      return 4;
    case Precision::kInt8:
    case Precision::kFp8:
    case Precision::kBf16:
    case Precision::kFp16:
      return 2;
  }
  return 2;
}

// Bits per parameter of a quantised base. QLoRA NF4: 4 bits + double-quantised constants
// (8-bit absmax per 64 weights + fp32 per 256 blocks = 0.127 bits; Dettmers et al. 2023, 2.2).
// GPTQ/AWQ int4/int8 with group size 128: fp16 scale + packed zero point per group
// (16 + bits)/128 bits (Frantar et al. 2022; AutoGPTQ default group_size=128). MXFP4: 4-bit
// e2m1 elements and one 8-bit e8m0 scale per block of 32 (OCP Microscaling spec v1.0, 5.2).
double QuantBits(int bits, WeightFormat format, bool nf4) {
  if (nf4)
    return 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0);
  if (format == WeightFormat::kMxfp4)
    return 4.0 + 8.0 / 32.0;
  return bits + (16.0 + bits) / 128.0;
}

Dims DimsOf(const ModelArch& m) {
  Dims d;
  d.layers = m.layers;
  d.h = m.hidden;
  d.heads = m.heads;
  d.kvd = static_cast<double>(m.kv_heads > 0 ? m.kv_heads : m.heads) * m.HeadDim();
  d.ffn = m.ffn;
  d.vocab = m.vocab;
  d.mlp_mats = m.mlp == MlpKind::kSwiglu ? 3 : 2;
  d.params = m.Params();
  d.active_params = m.ActiveParams();
  d.attn_dim =
      m.attention == AttentionKind::kMla
          ? m.heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim + m.mla.v_head_dim) / 2.0
          : m.QueryDim();
  // MLA decompresses K per head (nope + rope): the activations hold that width.
  if (m.attention == AttentionKind::kMla)
    d.kvd = m.QueryDim();
  if (m.IsMoe() && m.layers > 0)
    ApplyMoeDims(m, d);
  if (m.IsTransformer()) {
    d.layer_params = m.LayerParams() / m.layers;
    d.embed_params = m.EmbeddingParams();
    d.head_params = m.kind == ModelKind::kDecoder ? d.vocab * d.h : 0;
    // A published total overrides the shape (biases, position tables); scale the layers so the
    // total matches while keeping the embedding exact.
    const double shape_total = m.LayerParams() + d.embed_params + d.h;
    if (m.params > 0 && shape_total > 0 && m.params > d.embed_params) {
      const double scale = (m.params - d.embed_params) / (shape_total - d.embed_params);
      d.layer_params *= scale;
      d.expert_layer_params *= scale;
      d.active_expert_layer_params *= scale;
    }
  }
  return d;
}

// The linear layers LoRA adapts in one layer, as (inputs, outputs) per token: q and o h x h
// (the query width as the adapters of today's estimate count it), k and v h x kvd, the MLP's
// gate and up h x ffn and down ffn x h (GELU: up and down). Returns how many it wrote to `out`.
int AdaptedLinears(const Dims& d, LoraTargets targets, std::array<AdaptedLinear, 7>& out) {
  int n = 0;
  out[n++] = {d.h, d.h};  // q
  if (targets != LoraTargets::kQv)
    out[n++] = {d.h, d.kvd};  // k
  out[n++] = {d.h, d.kvd};    // v
  if (targets == LoraTargets::kQv)
    return n;
  out[n++] = {d.h, d.h};  // o
  if (targets == LoraTargets::kAttention)
    return n;
  for (int i = 0; i < d.mlp_mats - 1; ++i)
    out[n++] = {d.h, d.ffn};  // gate (SwiGLU) and up
  out[n++] = {d.ffn, d.h};    // down
  return n;
}

double ParamModulesPerLayer(const Dims& d, bool lora, LoraTargets targets) {
  std::array<AdaptedLinear, 7> linears;
  const int all = AdaptedLinears(d, LoraTargets::kAll, linears);
  return all + 2 + (lora ? 2 * AdaptedLinears(d, targets, linears) : 0);
}

// LoRA adapter parameters per layer (Hu et al. 2021): r x (in + out) per adapted matrix; every
// linear layer by default (QLoRA paper, 4: "LoRA on all linear transformer block layers").
double AdapterParamsPerLayer(const Dims& d, double rank, LoraTargets targets) {
  if (targets == LoraTargets::kAll) {
    const double attention = rank * ((d.h + d.h) + 2 * (d.h + d.kvd) + (d.h + d.h));
    const double mlp = d.mlp_mats * rank * (d.h + d.ffn);
    return attention + mlp;
  }
  std::array<AdaptedLinear, 7> linears;
  const int n = AdaptedLinears(d, targets, linears);
  double params = 0;
  for (int i = 0; i < n; ++i)
    params += rank * (linears[i].in + linears[i].out);
  return params;
}

}  // namespace gpuplan::perf::internal
