// The operation records of a model (op_records.h) and the sums the estimates take over them.
#include "core/perf/op_records.h"

namespace gpuplan::perf::internal {
namespace {

class Builder {
 public:
  // `frozen`: the base weights of LoRA compute input gradients only (backward = one forward).
  Builder(OpRecords& r, bool frozen) : r_(r), gemm_backward_(frozen ? 1 : 2) {}
  OpRecord& Layer(std::string_view name, OpKind kind) {
    OpRecord& op = r_.layer[r_.layer_ops++];
    op = OpRecord{};
    op.name = name;
    op.kind = kind;
    return op;
  }
  OpRecord& Model(std::string_view name, OpKind kind) {
    OpRecord& op = r_.model[r_.model_ops++];
    op = OpRecord{};
    op.name = name;
    op.kind = kind;
    return op;
  }
  // A GEMM of `params` weights: 2 FLOPs per weight per token (multiply and add).
  OpRecord& Gemm(std::string_view name, double params, OpKind kind = OpKind::kGemm) {
    OpRecord& op = Layer(name, kind);
    op.weight_params = params;
    op.flops = 2 * params;
    op.backward = kind == OpKind::kAdapter ? 2 : gemm_backward_;
    return op;
  }
  OpRecord& Collective(std::string_view name, OpGroup group, double moved) {
    OpRecord& op = Layer(name, OpKind::kCollective);
    op.group = group;
    op.moved = moved;
    op.backward = 1;  // the gradient of an all-reduce (or all-to-all) is one more
    return op;
  }
  double gemm_backward() const { return gemm_backward_; }

 private:
  OpRecords& r_;
  double gemm_backward_;
};

bool IsWeightGemm(const OpRecord& op) {
  return op.kind == OpKind::kGemm || op.kind == OpKind::kExpertGemm;
}

// The weights the GEMMs list: every layer's (averaged) GEMMs over the layers, and the head.
double ListedGemmParams(const OpRecords& r) {
  double per_layer = 0;
  for (int i = 0; i < r.layer_ops; ++i) {
    if (IsWeightGemm(r.layer[i]))
      per_layer += r.layer[i].weight_params;
  }
  double listed = per_layer * r.layers;
  for (int i = 0; i < r.model_ops; ++i) {
    if (IsWeightGemm(r.model[i]) && r.model[i].name != "unlisted weights")
      listed += r.model[i].weight_params;
  }
  return listed;
}

// Norms, attention and the tensor-parallel all-reduce after it. Q, K and V are kept for
// backward; unfused attention also keeps the softmax output (+ dropout mask and its output) over
// the s x s scores, which selective recomputation drops; flash attention keeps only the fp32
// log-sum-exp per head and position (Dao 2023).
void AddAttention(Builder& b, const ModelArch& arch, const Dims& d, const OpContext& c) {
  const double e = c.element_bytes;
  const double h = d.h;
  const double drop = arch.dropout ? 1 : 0;  // dropout masks: 1 byte per element
  // Two norms (their inputs: the residual stream before attention and before the MLP), the
  // residual adds and the dropout masks after attention and the MLP: an h-wide stream.
  OpRecord& norms = b.Layer("norms, residual adds, dropout", OpKind::kElementwise);
  norms.weight_params = 2 * h;
  norms.moved = h;
  norms.saved_bytes = (2 * e + 2 * drop) * h;
  norms.tensor_sharded = false;

  const double out_params =
      (arch.attention == AttentionKind::kMla ? arch.heads * static_cast<double>(arch.mla.v_head_dim)
                                             : arch.QueryDim()) *
      h;
  OpRecord& qkv = b.Gemm("qkv projection", arch.AttentionParamsPerLayer() - out_params);
  qkv.saved_bytes = e * h;  // its input (the norm's output)
  qkv.tensor_sharded = false;
  OpRecord& core = b.Layer("attention core", OpKind::kAttention);
  core.flops = 4 * d.attn_dim * c.seq;
  core.selective = true;
  const double scores = (e + drop * (1 + e)) * d.heads * c.seq_local;
  core.saved_bytes = e * (h + 2 * d.kvd) + (c.flash ? 4 * d.heads : scores);
  core.selective_bytes = c.flash ? 0 : scores;
  b.Gemm("output projection", out_params).saved_bytes = e * h;  // its input
  b.Collective("tp all-reduce after attention", OpGroup::kTensor, h);
}

// The MLP: dense layers' up (and gate) and down projections, MoE layers' router, shared and
// top_k routed experts, averaged over the layers; the all-reduce after it.
void AddMlp(Builder& b, const ModelArch& arch, const Dims& d, const OpContext& c) {
  const double e = c.element_bytes;
  const double h = d.h;
  const double share = d.moe_layer_share;
  const double mats = d.mlp_mats;
  const double dense_mlp = (1 - share) * arch.DenseMlpParamsPerLayer();
  OpRecord& up = b.Gemm("mlp up and gate", dense_mlp * (mats - 1) / mats);
  up.saved_bytes = e * h;  // the MLP input
  up.tensor_sharded = false;
  if (arch.IsMoe()) {
    b.Gemm("router", share * h * arch.moe.experts);
    const double shared = arch.MoeAlwaysOnParamsPerLayer() - h * arch.moe.experts;
    if (shared > 0)
      b.Gemm("shared experts", share * shared);
    b.Gemm("routed experts", share * arch.moe.top_k * arch.ExpertParams(), OpKind::kExpertGemm);
  }
  // GELU keeps its input and output, SwiGLU the gate, up, SiLU output and product (f wide).
  OpRecord& act = b.Layer("activation function", OpKind::kElementwise);
  act.moved = d.ffn;
  act.saved_bytes = (mats == 3 ? 4 : 2) * e * d.ffn;
  b.Gemm("mlp down", dense_mlp / mats);
  if (arch.IsMoe()) {
    // The dispatched (permuted) copies of each token and the experts' outputs before the
    // weighted combine, top_k of each (Megatron's token dispatcher saves both for backward).
    OpRecord& permute = b.Layer("token permute and combine", OpKind::kElementwise);
    permute.moved = h * d.routed_copies;
    permute.saved_bytes = 2 * e * h * d.routed_copies;
    b.Collective("ep dispatch", OpGroup::kExpert, h * d.routed_copies);
    b.Collective("ep combine", OpGroup::kExpert, h * d.routed_copies);
  }
  b.Collective("tp all-reduce after mlp", OpGroup::kTensor, h);
}

// Around the layers: the embedding lookup (no FLOPs), the final norm and the output head, and
// the weights the model's N (published, or the shape's) holds beyond the listed GEMMs: norm
// vectors, biases, position tables, the published figure's rounding. The FLOPs count those as
// GEMM weights, as 6N does.
void AddModelOps(Builder& b, OpRecords& r, const Dims& d) {
  b.Model("embedding", OpKind::kElementwise).weight_params = d.vocab * d.h;
  b.Model("final norm", OpKind::kElementwise).weight_params = d.h;
  OpRecord& logits = b.Model("logits", OpKind::kGemm);
  logits.weight_params = d.head_params;
  logits.flops = 2 * d.head_params;
  logits.backward = b.gemm_backward();
  OpRecord& unlisted = b.Model("unlisted weights", OpKind::kGemm);
  unlisted.backward = b.gemm_backward();
  const double n = d.active_params - (d.embed_params - d.head_params);
  unlisted.weight_params = n - ListedGemmParams(r);
  unlisted.flops = 2 * unlisted.weight_params;
}

}  // namespace

// The records of one transformer layer, following the saved-activation accounting of
// Korthikanti et al. 2022, 4.1 (generalised to grouped-query attention, SwiGLU, fused attention
// and MoE; see LayerActivationBytes) and the 2-FLOPs-per-weight GEMM count of Kaplan et al.
// 2020 (2.1), with attention's QK^T and AV over the full s x s square (4 h s per token forward,
// as Megatron and PaLM count it).
OpRecords BuildOpRecords(const ModelArch& arch, const Dims& d, const OpContext& c) {
  OpRecords r;
  if (!arch.IsTransformer())
    return r;
  Builder b(r, c.lora);
  r.layers = d.layers;
  r.layer_input_bytes = c.element_bytes * d.h;
  AddAttention(b, arch, d, c);
  AddMlp(b, arch, d, c);
  // Ring attention passes each rank's K and V blocks around the context-parallel group;
  // backward passes them again with their gradients (twice the bytes).
  OpRecord& ring = b.Collective("cp key/value ring", OpGroup::kContext, 2 * d.kvd);
  ring.backward = 2;
  ring.selective = true;
  if (c.lora) {
    // Hu et al. 2021: rank-r A and B matrices beside every adapted linear layer, trained.
    b.Gemm("lora adapters", AdapterParamsPerLayer(d, c.lora_rank), OpKind::kAdapter);
  }
  AddModelOps(b, r, d);
  // Memory scales every layer's weights to a published total (DimsOf).
  const double shape_layer = arch.LayerParams() / arch.layers;
  r.param_scale = shape_layer > 0 ? d.layer_params / shape_layer : 1;
  return r;
}

double GemmWeightParams(const OpRecords& r) {
  if (r.model_ops == 0)
    return 0;
  // The listed weights plus the unlisted remainder: exactly the model's N (the remainder is
  // the difference of two close numbers, computed without rounding).
  return ListedGemmParams(r) + r.model[r.model_ops - 1].weight_params;
}

double ForwardFlops(const OpRecords& r, OpKind kind) {
  if (kind == OpKind::kGemm)
    return 2 * GemmWeightParams(r);
  double per_layer = 0;
  for (int i = 0; i < r.layer_ops; ++i) {
    if (r.layer[i].kind == kind)
      per_layer += r.layer[i].flops;
  }
  return r.layers * per_layer;
}

double ElementwiseElementsPerLayer(const OpRecords& r) {
  double elements = 0;
  for (int i = 0; i < r.layer_ops; ++i) {
    if (r.layer[i].kind == OpKind::kElementwise)
      elements += r.layer[i].moved;
  }
  return elements;
}

// Korthikanti et al. 2022, 4.1: for GELU, f = 4h, kvd = h, e = 2 and dropout the records sum to
// sbh(34 + 5as/h) (their eq. 1); with tensor parallel t the ops inside the TP region divide by
// t, the rest too under sequence parallelism (eqs. 2-4); selective recomputation drops the s^2
// terms; full recomputation keeps only the layer input.
double LayerActivationBytes(const OpRecords& r, double tokens, int tp, bool sp, Recompute rc) {
  const double t = tp;
  if (rc == Recompute::kFull)
    return r.layer_input_bytes * tokens / (sp ? t : 1);
  double replicated = 0, sharded = 0;
  for (int i = 0; i < r.layer_ops; ++i) {
    const OpRecord& op = r.layer[i];
    const double kept = op.saved_bytes - (rc == Recompute::kSelective ? op.selective_bytes : 0);
    (op.tensor_sharded ? sharded : replicated) += kept;
  }
  return replicated * tokens / (sp ? t : 1) + sharded * tokens / t;
}

double Passes(const OpRecord& op, Recompute rc) {
  const bool recomputed = rc == Recompute::kFull || (rc == Recompute::kSelective && op.selective);
  return op.forward + op.backward + (recomputed ? op.forward : 0);
}

double CollectivePasses(const OpRecords& r, OpGroup group, Recompute rc) {
  double passes = 0;
  for (int i = 0; i < r.layer_ops; ++i) {
    if (r.layer[i].kind == OpKind::kCollective && r.layer[i].group == group)
      passes += Passes(r.layer[i], rc);
  }
  return passes;
}

double CollectiveForwardPasses(const OpRecords& r, OpGroup group) {
  double passes = 0;
  for (int i = 0; i < r.layer_ops; ++i) {
    if (r.layer[i].kind == OpKind::kCollective && r.layer[i].group == group)
      passes += r.layer[i].forward;
  }
  return passes;
}

}  // namespace gpuplan::perf::internal
