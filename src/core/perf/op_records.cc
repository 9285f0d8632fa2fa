// The operation records of a model (op_records.h) and the sums the estimates take over them.
#include "perf/op_records.h"

namespace gpuplan::perf::internal {
namespace {

// The share of `op`'s forward that recomputation rc runs again in backward.
double Recomputed(const OpRecord& op, Rerun rc) {
  switch (rc) {
    case Rerun::kNone:
      return 0;
    case Rerun::kSelective:
      return op.selective ? 1 : 0;
    case Rerun::kFull:
      return 1;
    case Rerun::kSelectiveMatmuls:
      return op.matmul_policy_rerun;
  }
  return 0;
}

// What the matmul-keeping policy keeps of a record: the same as without recomputation (the
// records it does not change: MoE's, LoRA's, collectives), or only `kept` bytes per token with
// `rerun` of its forward run again.
void KeepUnderMatmulPolicy(OpRecord& op) { op.matmul_policy_saved = op.saved_bytes; }
void KeepUnderMatmulPolicy(OpRecord& op, double kept, double rerun) {
  op.matmul_policy_saved = kept;
  op.matmul_policy_rerun = rerun;
}

class Builder {
 public:
  // `frozen`: the base weights of LoRA compute input gradients only (backward = one forward).
  Builder(OpRecords& r, bool frozen) : r_(r), gemm_backward_(frozen ? 1 : 2) {}
  OpRecord& Layer(std::string_view name, OpKind kind) {
    OpRecord& op = r_.layer[r_.layer_ops++];
    op = OpRecord::Make(name, kind);
    return op;
  }
  OpRecord& Model(std::string_view name, OpKind kind) {
    OpRecord& op = r_.model[r_.model_ops++];
    op = OpRecord::Make(name, kind);
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
  // torchtitan's op-level policy keeps the output of every other matmul in forward order (the
  // 1st, 3rd, ...: _apply_op_sac's mm counter); returns `width` if it keeps this one, else 0.
  double KeptMatmulOutput(double width) { return ++matmuls_ % 2 == 1 ? width : 0; }

 private:
  OpRecords& r_;
  double gemm_backward_;
  int matmuls_ = 0;
};

// The share of a GEMM's forward the matmul-keeping policy runs again: the matmuls (of one input
// width) whose outputs it did not keep, by output width.
double RerunShare(double kept_width, double total_width) {
  return total_width > 0 ? 1 - kept_width / total_width : 0;
}

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
  // HF LlamaRMSNorm: fp32 cast, pow, mean, add eps, rsqrt, mul, cast back, weight mul (8 each).
  norms.kernels = 2 * 8 + 2;
  norms.backward_kernels = 2 * norms.kernels;
  // The matmul-keeping policy keeps the layer's input (the checkpointed block's argument) and
  // recomputes the norms, adds and masks.
  KeepUnderMatmulPolicy(norms, e * h, 1);

  const double out_params =
      (arch.attention == AttentionKind::kMla ? arch.heads * static_cast<double>(arch.mla.v_head_dim)
                                             : arch.QueryDim()) *
      h;
  OpRecord& qkv = b.Gemm("qkv projection", arch.AttentionParamsPerLayer() - out_params);
  qkv.saved_bytes = e * h;  // its input (the norm's output)
  qkv.tensor_sharded = false;
  qkv.kernels = 3;  // q, k and v projections
  qkv.backward_kernels = 3 * qkv.backward;
  const double q_dim = arch.QueryDim();
  const double kept_qkv =
      b.KeptMatmulOutput(q_dim) + b.KeptMatmulOutput(d.kvd) + b.KeptMatmulOutput(d.kvd);
  KeepUnderMatmulPolicy(qkv, 0, RerunShare(kept_qkv, q_dim + 2 * d.kvd));
  OpRecord& core = b.Layer("attention core", OpKind::kAttention);
  core.flops = 4 * d.attn_dim * c.seq;
  core.selective = true;
  const double scores = (e + drop * (1 + e)) * d.heads * c.seq_local;
  core.saved_bytes = e * (h + 2 * d.kvd) + (c.flash ? 4 * d.heads : scores);
  core.selective_bytes = c.flash ? 0 : scores;
  // The policy keeps the fused kernel's output and log-sum-exp (SDPA's flash and efficient ops
  // are on its save list) and the projections it kept; unfused attention as without it.
  if (c.flash)
    KeepUnderMatmulPolicy(core, e * (kept_qkv + d.attn_dim) + 4 * d.heads, 0);
  else
    KeepUnderMatmulPolicy(core);
  // Rotary embedding of q and k (mul, rotate_half's neg and cat, mul, add: 5 each), the
  // attention kernel and the copy of its output back to tokens x heads.
  core.kernels = 12;
  core.backward_kernels = 2 * core.kernels;
  OpRecord& out = b.Gemm("output projection", out_params);
  out.saved_bytes = e * h;  // its input
  out.kernels = 1;
  out.backward_kernels = out.backward;
  const double kept_out = b.KeptMatmulOutput(h);
  KeepUnderMatmulPolicy(out, 0, RerunShare(kept_out, h));
  // A row-parallel projection's kept output is an h-wide stream (the reduce-scatter's output
  // under sequence parallelism, also on the save list): counted on the collective after it.
  OpRecord& reduce = b.Collective("tp all-reduce after attention", OpGroup::kTensor, h);
  reduce.tensor_sharded = false;
  KeepUnderMatmulPolicy(reduce, e * kept_out, 0);
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
  up.kernels = mats - 1;
  up.backward_kernels = up.kernels * up.backward;
  double kept_up = 0;  // gate then up (SwiGLU's w1, w3), or the one up projection
  for (int i = 1; i < mats; ++i)
    kept_up += b.KeptMatmulOutput(d.ffn);
  KeepUnderMatmulPolicy(up, 0, RerunShare(kept_up, (mats - 1) * d.ffn));
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
  act.kernels = mats - 1;  // SiLU and the product, or GELU
  act.backward_kernels = 2 * act.kernels;
  KeepUnderMatmulPolicy(act, (1 - share) * e * kept_up, 1);  // the kept gate (f wide)
  OpRecord& down = b.Gemm("mlp down", dense_mlp / mats);
  down.kernels = 1;
  down.backward_kernels = down.backward;
  const double kept_down = b.KeptMatmulOutput(h);
  KeepUnderMatmulPolicy(down, 0, RerunShare(kept_down, h));
  if (arch.IsMoe()) {
    // The dispatched (permuted) copies of each token and the experts' outputs before the
    // weighted combine, top_k of each (Megatron's token dispatcher saves both for backward).
    OpRecord& permute = b.Layer("token permute and combine", OpKind::kElementwise);
    permute.moved = h * d.routed_copies;
    permute.saved_bytes = 2 * e * h * d.routed_copies;
    KeepUnderMatmulPolicy(permute);  // torchtitan's MoE path is not modelled: as without
    b.Collective("ep dispatch", OpGroup::kExpert, h * d.routed_copies);
    b.Collective("ep combine", OpGroup::kExpert, h * d.routed_copies);
  }
  OpRecord& reduce = b.Collective("tp all-reduce after mlp", OpGroup::kTensor, h);
  reduce.tensor_sharded = false;
  KeepUnderMatmulPolicy(reduce, (1 - share) * e * kept_down, 0);
}

// Around the layers: the embedding lookup (no FLOPs), the final norm and the output head, and
// the weights the model's N (published, or the shape's) holds beyond the listed GEMMs: norm
// vectors, biases, position tables, the published figure's rounding. The FLOPs count those as
// GEMM weights, as 6N does.
void AddModelOps(Builder& b, OpRecords& r, const Dims& d) {
  OpRecord& embedding = b.Model("embedding", OpKind::kElementwise);
  embedding.weight_params = d.vocab * d.h;
  embedding.kernels = embedding.backward_kernels = 1;
  OpRecord& final_norm = b.Model("final norm", OpKind::kElementwise);
  final_norm.weight_params = d.h;
  final_norm.kernels = 8;
  final_norm.backward_kernels = 16;
  OpRecord& logits = b.Model("logits", OpKind::kGemm);
  logits.weight_params = d.head_params;
  logits.kernels = 5;  // the head GEMM, and the loss: fp32 cast, log-softmax, NLL, mean
  logits.backward_kernels = 10;
  logits.flops = 2 * d.head_params;
  logits.backward = b.gemm_backward();
  OpRecord& unlisted = b.Model("unlisted weights", OpKind::kGemm);
  unlisted.backward = b.gemm_backward();
  const double n = d.active_params - (d.embed_params - d.head_params);
  unlisted.weight_params = n - ListedGemmParams(r);
  unlisted.flops = 2 * unlisted.weight_params;
}

// LoRA (Hu et al. 2021) as PEFT runs it: beside each adapted linear layer (in -> out), its
// rank-r A and B GEMMs, trained, with the frozen base computing input gradients only. The
// adapters are skinny GEMMs (2r FLOPs per element they read: far below the ridge point), so
// they run at their roofline, memory-bound. Around them PEFT adds elementwise work the base
// layer has not: the adapter input cast to the adapters' fp32 and autocast's cast back for the
// GEMM (peft/tuners/lora/layer.py _cast_input_dtype; PEFT keeps adapters in fp32), dropout on
// that input when lora_dropout > 0, the scaling and the add to the base output, and in
// backward the adds of the adapter's input gradient to the base's. Each is a kernel launch.
void AddAdapters(Builder& b, const Dims& d, const OpContext& c) {
  std::array<AdaptedLinear, 7> linears;
  const int n = AdaptedLinears(d, c.lora_targets, linears);
  const double e = c.element_bytes;
  const double a = c.fp32_adapters ? 4 : e;        // bytes per adapter element
  const double cast = a > e ? 2 * (e + a) : 0;     // to fp32 and back, per input element
  const double casts = a > e ? 3 : 0;              // launches: A, B and the input
  const double drop = c.lora_dropout > 0 ? 1 : 0;  // dropout (on the adapter's copy) + mask
  double ins = 0, outs = 0;
  for (int i = 0; i < n; ++i) {
    ins += linears[i].in;
    outs += linears[i].out;
  }
  OpRecord& gemm = b.Gemm("lora adapters", AdapterParamsPerLayer(d, c.lora_rank, c.lora_targets),
                          OpKind::kAdapter);
  // x A reads the input and writes r, (x A) B reads r and writes the output; backward moves
  // twice that (dA, dB, d(xA) and the input gradient). Kept for backward: x A (for dB), the
  // dropout mask and, with fp32 adapters, a 16-bit copy of each distinct adapter input (q, k
  // and v share the norm's output, gate and up the MLP's input) for dA: the repo's H200 run
  // grows by 2 h x 2 bytes per token per layer more than the base with q, k, v, o adapted.
  const double distinct_inputs = c.lora_targets == LoraTargets::kQv          ? d.h
                                 : c.lora_targets == LoraTargets::kAttention ? 2 * d.h
                                                                             : 3 * d.h + d.ffn;
  gemm.moved = ins + outs + 2 * n * c.lora_rank;
  gemm.saved_bytes = e * (n * c.lora_rank + (cast > 0 ? distinct_inputs : 0)) + drop * ins;
  KeepUnderMatmulPolicy(gemm);
  gemm.kernels = 2 * n;
  gemm.backward_kernels = 4 * n;
  OpRecord& glue = b.Layer("lora casts, dropout, scaling and add", OpKind::kAdapterElementwise);
  const double forward = cast * ins + drop * (2 * a + 1) * ins + 5 * e * outs;
  const double backward = cast * ins + drop * (2 * a + 1) * ins + 2 * e * outs + 3 * e * ins;
  glue.moved = forward / e;
  glue.backward = backward / forward;
  // Forward: (casts of A and B to 16 bits and the input cast,) (dropout,) scaling, add;
  // backward: the scaling's, (the fp32 gradient casts of A and B and the input gradient's,)
  // (dropout,) the add of the input gradients.
  glue.kernels = n * (2 + casts + drop);
  glue.backward_kernels = n * (2 + casts + drop);
}

// The per-recomputation sums of op_records.h's Sums: the estimates ask for them on every call.
void SumPasses(OpRecords& r) {
  OpRecords::Sums& s = r.sums;
  for (Rerun rc : {Rerun::kNone, Rerun::kSelective, Rerun::kFull, Rerun::kSelectiveMatmuls}) {
    const auto i = static_cast<size_t>(rc);
    for (int k = 0; k < r.layer_ops; ++k) {
      const OpRecord& op = r.layer[k];
      s.layer_kernels[i] += op.kernels + op.backward_kernels + Recomputed(op, rc) * op.kernels;
      if (op.kind == OpKind::kCollective)
        s.collective_passes[i][static_cast<size_t>(op.group)] += Passes(op, rc);
      const double kept = rc == Rerun::kSelective          ? op.saved_bytes - op.selective_bytes
                          : rc == Rerun::kSelectiveMatmuls ? op.matmul_policy_saved
                                                           : op.saved_bytes;
      (op.tensor_sharded ? s.saved_sharded[i] : s.saved_replicated[i]) += kept;
    }
  }
  for (int k = 0; k < r.layer_ops; ++k)
    s.matmul_policy_rerun_flops += r.layers * r.layer[k].matmul_policy_rerun * r.layer[k].flops;
  for (int k = 0; k < r.layer_ops; ++k) {
    if (r.layer[k].kind == OpKind::kCollective)
      s.collective_forward_passes[static_cast<size_t>(r.layer[k].group)] += r.layer[k].forward;
  }
  for (int k = 0; k < r.model_ops; ++k)
    s.model_kernels += r.model[k].kernels + r.model[k].backward_kernels;
}

}  // namespace

// The records of one transformer layer, following the saved-activation accounting of
// Korthikanti et al. 2022, 4.1 (generalised to grouped-query attention, SwiGLU, fused attention
// and MoE; see LayerActivationBytes) and the 2-FLOPs-per-weight GEMM count of Kaplan et al.
// 2020 (2.1), with attention's QK^T and AV over the full s x s square (4 h s per token forward,
// as Megatron and PaLM count it).
void BuildOpRecords(const ModelArch& arch, const Dims& d, const OpContext& c, OpRecords& r) {
  if (!arch.IsTransformer())
    return;
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
  if (c.lora)
    AddAdapters(b, d, c);
  AddModelOps(b, r, d);
  // The sums, once. GEMM weights: the listed weights plus the unlisted remainder, exactly the
  // model's N (the remainder is the difference of two close numbers, computed without rounding).
  r.sums.gemm_weight_params = ListedGemmParams(r) + r.model[r.model_ops - 1].weight_params;
  double attention = 0, adapters = 0;
  for (int i = 0; i < r.layer_ops; ++i) {
    const OpRecord& op = r.layer[i];
    if (op.kind == OpKind::kAttention)
      attention += op.flops;
    if (op.kind == OpKind::kAdapter)
      adapters += op.flops;
    if (op.kind == OpKind::kElementwise)
      r.sums.elementwise_elements += op.moved;
  }
  r.sums.attention_flops = r.layers * attention;
  r.sums.adapter_flops = r.layers * adapters;
  SumPasses(r);
}

double LayerParamScale(const ModelArch& arch, const Dims& d) {
  const double shape_layer = arch.layers > 0 ? arch.LayerParams() / arch.layers : 0;
  return shape_layer > 0 ? d.layer_params / shape_layer : 1;
}

double GemmWeightParams(const OpRecords& r) { return r.sums.gemm_weight_params; }

double ForwardFlops(const OpRecords& r, OpKind kind) {
  switch (kind) {
    case OpKind::kGemm:
      return 2 * r.sums.gemm_weight_params;
    case OpKind::kAttention:
      return r.sums.attention_flops;
    case OpKind::kAdapter:
      return r.sums.adapter_flops;
    default:
      return 0;
  }
}

double ElementwiseElementsPerLayer(const OpRecords& r) { return r.sums.elementwise_elements; }

// Korthikanti et al. 2022, 4.1: for GELU, f = 4h, kvd = h, e = 2 and dropout the records sum to
// sbh(34 + 5as/h) (their eq. 1); with tensor parallel t the ops inside the TP region divide by
// t, the rest too under sequence parallelism (eqs. 2-4); selective recomputation drops the s^2
// terms; full recomputation keeps only the layer input.
double LayerActivationBytes(const OpRecords& r, double tokens, int tp, bool sp, Rerun rc) {
  const double t = tp;
  if (rc == Rerun::kFull)
    return r.layer_input_bytes * tokens / (sp ? t : 1);
  const auto i = static_cast<size_t>(rc);
  return r.sums.saved_replicated[i] * tokens / (sp ? t : 1) + r.sums.saved_sharded[i] * tokens / t;
}

double Passes(const OpRecord& op, Rerun rc) {
  return op.forward + op.backward + Recomputed(op, rc) * op.forward;
}

double CollectivePasses(const OpRecords& r, OpGroup group, Rerun rc) {
  return r.sums.collective_passes[static_cast<size_t>(rc)][static_cast<size_t>(group)];
}

double LayerKernels(const OpRecords& r, Rerun rc) {
  return r.sums.layer_kernels[static_cast<size_t>(rc)];
}

double ModelKernels(const OpRecords& r) { return r.sums.model_kernels; }

double CollectiveForwardPasses(const OpRecords& r, OpGroup group) {
  return r.sums.collective_forward_passes[static_cast<size_t>(group)];
}

}  // namespace gpuplan::perf::internal
