// The performance model. Every formula names its source; every fitted number comes from the
// Calibration (data/calibration.csv), never from a literal here.
#include "gpuplan/estimate.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

namespace gpuplan::perf {
namespace {

constexpr double kGiB = 1073741824.0;  // 2^30 bytes

// Bytes per element of weights and activations at a compute precision. FP8 training (NVIDIA
// Transformer Engine) keeps BF16 weights and activations and casts per GEMM.
double ElementBytes(Precision p) {
  switch (p) {
    case Precision::kFp64: return 8;
    case Precision::kFp32: case Precision::kTf32: return 4;
    case Precision::kInt8: case Precision::kFp8: case Precision::kBf16: case Precision::kFp16:
      return 2;
  }
  return 2;
}

// Bits per parameter of a quantised base. QLoRA NF4: 4 bits + double-quantised constants
// (8-bit absmax per 64 weights + fp32 per 256 blocks = 0.127 bits; Dettmers et al. 2023, 2.2).
// GPTQ/AWQ int4/int8 with group size 128: fp16 scale + packed zero point per group
// (16 + bits)/128 bits (Frantar et al. 2022; AutoGPTQ default group_size=128).
double QuantBits(int bits, bool nf4) {
  if (nf4) return 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0);
  return bits + (16.0 + bits) / 128.0;
}

// The model's per-layer sizes in elements, shared by the memory and time formulas.
struct Dims {
  double layers = 0, h = 0, heads = 0, kvd = 0, ffn = 0, vocab = 0;
  double mlp_mats = 2;        // weight matrices in the MLP (GELU 2, SwiGLU 3)
  double layer_params = 0;    // one layer's parameters
  double embed_params = 0;    // embedding (+ untied head)
  double head_params = 0;     // the output projection's parameters (computed, tied or not)
  double params = 0;          // total
  double active_params = 0;   // used per token (= params for dense models)
  // Width of the attention core (QK^T and AV): heads x head_dim; MLA the mean of its QK
  // (nope + rope) and V widths. hidden for classic models.
  double attn_dim = 0;
  // Mixture of Experts, averaged over the layers (0 for dense models): the routed experts'
  // parameters (sharded by expert parallelism), those one token uses, and the routed copies of
  // each token (top_k on MoE layers) that dispatch, expert GEMMs and combine move.
  double expert_layer_params = 0;
  double active_expert_layer_params = 0;
  double routed_copies = 0;
  double moe_layer_share = 0;  // fraction of layers that are MoE
};

// The MoE parts of Dims: routed experts per layer, the token's MLP width (dense layers' ffn,
// MoE layers' top_k experts plus the shared ones) and its routed copies.
void ApplyMoeDims(const ModelArch& m, Dims& d) {
  const double layers = m.layers;
  const double moe_layers = m.MoeLayers();
  d.moe_layer_share = moe_layers / layers;
  d.expert_layer_params = m.RoutedExpertParams() / layers;
  d.active_expert_layer_params = d.expert_layer_params * m.moe.top_k / m.moe.experts;
  const double shared_width =
      m.moe.shared_experts * (m.moe.shared_ffn > 0 ? m.moe.shared_ffn : m.moe.expert_ffn);
  d.ffn = ((layers - moe_layers) * m.ffn +
           moe_layers * (m.moe.top_k * static_cast<double>(m.moe.expert_ffn) + shared_width)) /
          layers;
  d.routed_copies = m.moe.top_k * d.moe_layer_share;
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
  d.attn_dim = m.attention == AttentionKind::kMla
                   ? m.heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim +
                                m.mla.v_head_dim) / 2.0
                   : m.QueryDim();
  // MLA decompresses K per head (nope + rope): the activations hold that width.
  if (m.attention == AttentionKind::kMla) d.kvd = m.QueryDim();
  if (m.IsMoe() && m.layers > 0) ApplyMoeDims(m, d);
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

// LoRA adapter parameters per layer when every linear layer is adapted (QLoRA paper, 4: "LoRA
// on all linear transformer block layers"): r x (in + out) per matrix.
double AdapterParamsPerLayer(const Dims& d, double rank) {
  const double attention = rank * ((d.h + d.h) + 2 * (d.h + d.kvd) + (d.h + d.h));
  const double mlp = d.mlp_mats * rank * (d.h + d.ffn);
  return attention + mlp;
}

// Saved activations of one transformer layer for one micro-batch, bytes. Korthikanti et al.
// 2022, 4.1, generalised to grouped-query attention, SwiGLU and fused attention:
//   norm inputs 2 e sbh; attention: QKV input e sbh, Q e sbh, K and V e sb kvd each, projection
//   input e sbh; unfused attention adds softmax output e a s^2 b (+ dropout mask a s^2 b and
//   output e a s^2 b); flash attention keeps only the fp32 log-sum-exp 4 a s b.
//   MLP: input e sbh; GELU input and output e sbf each; SwiGLU gate, up, SiLU output and product
//   e sbf each. Dropout masks (1 byte) after attention and MLP.
// For GELU, f = 4h, kvd = h, e = 2 and dropout this is sbh(34 + 5as/h) (their eq. 1); with
// tensor parallel t the parts inside the TP region divide by t, the rest too under sequence
// parallelism (eqs. 2-4); selective recompute drops the s^2 terms; full recompute keeps only
// the layer input.
double LayerActivationBytes(const Dims& d, double s, double b, double e, int tp, bool sp,
                            bool flash, Recompute rc, bool dropout) {
  const double t = tp;
  const double sbh = s * b * d.h;
  if (rc == Recompute::kFull) return e * sbh / (sp ? t : 1);
  const double drop = dropout ? 1 : 0;
  // Outside the TP region: norm inputs, QKV input, MLP input, two dropout masks.
  const double replicated = (2 * e + e + e + 2 * drop) * sbh;
  // Inside the TP region.
  double sharded = e * (sbh + 2 * s * b * d.kvd + sbh);                // Q, K, V, proj input
  sharded += (d.mlp_mats == 3 ? 4 : 2) * e * s * b * d.ffn;           // MLP internals
  // MoE: the dispatched (permuted) copies of each token and the experts' outputs before the
  // weighted combine, top_k of each (Megatron's token dispatcher saves both for backward).
  sharded += 2 * e * sbh * d.routed_copies;
  if (flash) {
    sharded += 4 * d.heads * s * b;  // fp32 log-sum-exp per head and position
  } else if (rc != Recompute::kSelective) {
    sharded += (e + drop * (1 + e)) * d.heads * s * s * b;  // softmax (+ dropout) scores
  }
  return replicated / (sp ? t : 1) + sharded / t;
}

// Ring collective time (NCCL): an all-reduce moves 2(n-1)/n of the buffer over the slowest
// link, an all-gather or reduce-scatter (n-1)/n; plus a latency per ring step (Thakur et al.
// 2005; NCCL docs "busbw").
double RingTime(double bytes, int n, double factor, double bw_bytes_s, double latency_s) {
  if (n <= 1 || bytes <= 0) return 0;
  const double nn = n;
  return factor * (nn - 1) / nn * bytes / bw_bytes_s + factor * (nn - 1) * latency_s;
}

// Effective bandwidth (bytes/s) of a collective over `n` GPUs placed `per_node` to a node: over
// the intra-node link inside a node; across nodes the ring crosses each node's NICs once per
// channel, so the node's total network bandwidth is the bottleneck (NCCL multi-rail rings).
double GroupBandwidth(const Hardware& hw, const Calibration& cal, int n, int span_per_node) {
  const double intra_eff = hw.intra_link == LinkKind::kPcie ? cal.pcie_efficiency
                                                            : cal.nvlink_efficiency;
  const double intra = hw.intra_gbs * 1e9 * intra_eff;
  if (n <= span_per_node || hw.nodes <= 1) return intra > 0 ? intra : 1e9;
  const double inter = hw.inter_node_gbps / 8 * 1e9 *
                       (hw.rdma ? cal.rdma_efficiency : cal.tcp_efficiency);
  if (inter <= 0) return 1e9;
  return intra > 0 ? std::min(intra, inter) : inter;
}

// Achieved fraction of the peak for GEMMs with per-GPU inner size `dim` over `tokens` rows whose
// weights are stored in `weight_bytes` per element: saturating in the inner size (tensor-core
// tiles) and in the rows. The rows' half point is a multiple of the ridge point, the rows at
// which streaming the weights takes as long as the arithmetic (Williams et al. 2009 roofline),
// so few-row GEMMs become bandwidth-bound GEMVs on every GPU and precision. FP32 runs on the
// CUDA cores (no tile penalty in the inner size).
double GemmEfficiency(const ArchEfficiency& arch, const Calibration& cal, const Gpu& gpu,
                      double peak_tflops, double dim, double tokens, Precision p,
                      double weight_bytes) {
  const bool simt = p == Precision::kFp32;
  double fraction = simt ? arch.simt_fraction : arch.gemm_fraction;
  if (p == Precision::kFp8) fraction *= cal.fp8_gemm_factor;
  if (!simt) fraction *= dim / (dim + cal.gemm_half_dim);
  const double bandwidth = gpu.memory_bandwidth_gbs * 1e9 * arch.memory_bw_fraction;
  const double ridge_tokens =
      bandwidth > 0 ? peak_tflops * 1e12 * fraction * weight_bytes / (2 * bandwidth) : 0;
  return fraction * tokens / (tokens + cal.gemm_weight_read_factor * ridge_tokens);
}

// The dense peak used for GEMMs at precision p. FP32 training runs FP32 math (PyTorch leaves
// TF32 off for matmul by default since 1.12); INT8 inference weights are dequantised to FP16.
std::optional<double> PeakTflops(const Gpu& g, Precision p) {
  if (p == Precision::kInt8) return g.Tflops(Precision::kFp16);
  return g.Tflops(p);
}

// --- Mixture of Experts.

// GPUs one expert's weights are spread over: ep ranks, each holding whole experts, times the
// tensor-parallel split while ep x tp fits in a pipeline stage's tp x dp GPUs (Megatron's MoE
// parallel folding gives experts their own tp = 1 once ep spans the data-parallel ranks).
double ExpertShards(const Layout& l) {
  return std::min(static_cast<double>(l.ep) * l.tp, static_cast<double>(l.tp) * l.dp);
}

// Token dispatch (or combine) of `tokens` on this GPU in one MoE layer over an ep group of
// `ep` ranks, `top_k` copies of `token_bytes` each, routed uniformly. Inside a node the copies
// go over NVLink/PCIe; across nodes a token is sent once per remote node its experts live on and
// forwarded inside that node (DeepEP / Megatron's hierarchical dispatch; DeepSeek-V3, 3.2.2):
// n (1 - (1 - 1/n)^k) (n - 1)/n remote copies for n nodes. The slower link bounds it.
double DispatchSeconds(double tokens, double top_k, double token_bytes, int ep,
                       const Hardware& hw, const Calibration& cal) {
  if (ep <= 1 || tokens <= 0) return 0;
  const int local = std::max(1, std::min(ep, hw.gpus_per_node));
  const double n = static_cast<double>(ep) / local;  // nodes the group spans
  const double intra_eff = hw.intra_link == LinkKind::kPcie ? cal.pcie_efficiency
                                                            : cal.nvlink_efficiency;
  const double intra = std::max(1e9, hw.intra_gbs * 1e9 * intra_eff);
  const double inter = std::max(1e8, hw.inter_node_gbps / 8 * 1e9 *
                                         (hw.rdma ? cal.rdma_efficiency : cal.tcp_efficiency) /
                                         std::max(1, hw.gpus_per_node));
  // Copies to this node's other GPUs, plus the copies that arrive from remote nodes and are
  // forwarded to their GPU (on average as many as are sent away).
  const double remote_share = (ep - local) / static_cast<double>(ep);
  const double intra_copies = top_k * (local - 1.0) / ep + top_k * remote_share;
  const double remote_nodes = n > 1 ? n * (1 - std::pow(1 - 1 / n, top_k)) * (n - 1) / n : 0;
  const double t_intra = tokens * token_bytes * intra_copies / intra;
  const double t_inter = tokens * token_bytes * remote_nodes / inter;
  return std::max(t_intra, t_inter) + 2 * cal.collective_latency_us * 1e-6;
}

// Token dispatch and combine of one micro-batch's `tokens` on this GPU over all its MoE layers
// (`moe_layers`), `passes` all-to-alls per layer (forward dispatch + combine = 2, backward 2
// more, a full-recompute forward 2 more): top_k copies of each token's hidden state.
double MoeAllToAllSeconds(const Dims& d, const Layout& l, const Hardware& hw,
                          const Calibration& cal, double tokens, double moe_layers,
                          double passes, double act_bytes) {
  if (l.ep <= 1 || d.routed_copies <= 0) return 0;
  const double top_k = d.routed_copies / d.moe_layer_share;
  return moe_layers * passes * DispatchSeconds(tokens, top_k, d.h * act_bytes, l.ep, hw, cal) *
         (1 - cal.moe_a2a_overlap);
}

// Achieved GEMM efficiency of the expert GEMMs: each expert multiplies only the tokens routed
// to it, `tokens` x top_k / experts rows (the ep ranks' tokens together), through its
// expert_ffn-wide matrices, so small batches run as weight-bound GEMVs.
double ExpertGemmEfficiency(const ModelArch& arch, const ArchEfficiency& eff,
                            const Calibration& cal, const Gpu& gpu, double peak, double tokens,
                            Precision p, double weight_bytes) {
  const double rows = tokens * arch.moe.top_k / arch.moe.experts;
  return GemmEfficiency(eff, cal, gpu, peak, arch.moe.expert_ffn, std::max(1e-3, rows), p,
                        weight_bytes);
}

Status CheckMoeLayout(const ModelArch& arch, const Layout& l, bool training) {
  auto bad = [](const std::string& msg) { return Status::InvalidArgument(msg); };
  if (l.ep < 1 || l.vp < 1) return bad("layout: ep and vp must be >= 1");
  if (l.ep > 1) {
    if (!arch.IsMoe()) return bad("layout: ep " + std::to_string(l.ep) + " needs a MoE model");
    if ((static_cast<long long>(l.tp) * l.dp) % l.ep != 0) {
      return bad("layout: ep " + std::to_string(l.ep) + " does not divide tp*dp = " +
                 std::to_string(l.tp * l.dp) + " (experts are sharded inside a stage)");
    }
    // Training shards whole experts evenly (Megatron); serving engines may place redundant
    // copies (SGLang's EPLB), so there ep only needs to be at most the expert count.
    if (training ? arch.moe.experts % l.ep != 0 : l.ep > arch.moe.experts) {
      return bad("layout: ep " + std::to_string(l.ep) + (training ? " does not divide" : " exceeds") +
                 " the " + std::to_string(arch.moe.experts) + " experts");
    }
  }
  if (l.vp > 1 && (l.pp < 2 || static_cast<long long>(l.pp) * l.vp > arch.layers)) {
    return bad("layout: vp " + std::to_string(l.vp) + " needs pp > 1 and pp*vp <= layers");
  }
  return Status::Ok();
}

Status CheckLayout(const Workload& w, const ModelArch& arch, const Hardware& hw,
                   const Layout& l) {
  auto bad = [](const std::string& msg) { return Status::InvalidArgument(msg); };
  if (hw.gpu == nullptr) return bad("hardware has no GPU");
  if (l.tp < 1 || l.pp < 1 || l.dp < 1) return bad("layout: tp, pp and dp must be >= 1");
  const long long degrees = static_cast<long long>(l.tp) * l.pp * l.dp;  // no int overflow
  if (degrees != hw.Gpus()) {
    return bad("layout: tp*pp*dp = " + std::to_string(degrees) + " but the hardware has " +
               std::to_string(hw.Gpus()) + " GPUs");
  }
  if (l.zero < 0 || l.zero > 3) return bad("layout: zero must be 0, 1, 2 or 3");
  if (l.micro_batch < 1) return bad("layout: micro_batch must be >= 1");
  if (arch.IsTransformer()) {
    if (arch.heads % l.tp != 0) {
      return bad("layout: tp " + std::to_string(l.tp) + " does not divide the " +
                 std::to_string(arch.heads) + " attention heads");
    }
    if (l.pp > arch.layers) {
      return bad("layout: pp " + std::to_string(l.pp) + " exceeds the " +
                 std::to_string(arch.layers) + " layers");
    }
  } else if (l.tp > 1 || l.pp > 1) {
    return bad("layout: tensor and pipeline parallelism need a transformer architecture");
  }
  if (Status s = CheckMoeLayout(arch, l, w.IsTraining()); !s.ok()) return s;
  if (w.IsTraining() && static_cast<long long>(l.micro_batch) * l.dp > w.global_batch) {
    return bad("layout: micro_batch " + std::to_string(l.micro_batch) + " x dp " +
               std::to_string(l.dp) + " exceeds global_batch " + std::to_string(w.global_batch));
  }
  return Status::Ok();
}

// Memory common to training and inference: overhead on top of what tensors hold.
void FinishMemory(Estimate& e, const Hardware& hw, const Calibration& cal) {
  MemoryBreakdown& m = e.memory.breakdown;
  const double allocated = m.weights + m.gradients + m.optimizer + m.adapters + m.activations +
                           m.kv_cache + m.transient;
  e.memory.allocated_gib = allocated;
  e.memory.reserved_gib = allocated * (1 + cal.allocator_fragmentation);
  m.overhead = e.memory.reserved_gib - allocated + cal.cuda_context_gib;
  e.memory.per_gpu_gib = allocated + m.overhead;
  e.memory.capacity_gib = hw.gpu_memory_gib > 0 ? hw.gpu_memory_gib
                                                : hw.gpu->EffectiveMemoryGib();
  e.memory.fits = e.memory.per_gpu_gib <= e.memory.capacity_gib;
}

Result<Estimate> EstimateTraining(const Workload& w, const ModelArch& arch, const Hardware& hw,
                                  const Layout& l, const Calibration& cal, double peak) {
  Estimate est;
  const Gpu& gpu = *hw.gpu;
  const ArchEfficiency eff_row = cal.For(gpu);
  const Dims d = DimsOf(arch);
  const double s = w.seq_len;
  const double b = l.micro_batch;
  const double e = ElementBytes(w.precision);
  const bool transformer = arch.IsTransformer();
  const bool lora = w.method == Method::kLora || w.method == Method::kQlora;
  const double tp = l.tp, pp = l.pp, dp = l.dp;

  // --- Micro-batches per step (global = micro x dp x accumulation).
  const int m = std::max(1, static_cast<int>(std::ceil(static_cast<double>(w.global_batch) /
                                                       (l.micro_batch * l.dp))));
  est.grad_accum = m;

  // --- Parameters held by the busiest pipeline stage (the first: its layers plus the
  // embedding; Megatron gives the last stage the head, so with pp > 1 each end holds one
  // vocab x h table).
  const double stage_layers = transformer ? std::ceil(d.layers / pp) : 0;
  const double stage_embed = !transformer ? 0 : (l.pp > 1 ? d.vocab * d.h : d.embed_params);
  // Routed experts are sharded over ExpertShards (ep x tp) instead of tp.
  const double stage_experts = stage_layers * d.expert_layer_params / ExpertShards(l);
  const double stage_params =
      transformer ? (stage_layers * (d.layer_params - d.expert_layer_params) + stage_embed) / tp +
                        stage_experts
                  : d.params;
  const double stage_layer_params =
      stage_layers * (d.layer_params - d.expert_layer_params) / tp + stage_experts;
  // ZeRO shards the experts over their own data-parallel replicas (tp x dp / ExpertShards):
  // `dp_share` of the sharded states of a parameter mix held on this GPU.
  const double expert_frac = stage_params > 0 ? stage_experts / stage_params : 0;
  const double expert_dp = std::max(1.0, tp * dp / ExpertShards(l));
  auto zero_divisor = [&](bool sharded) {
    if (!sharded) return 1.0;
    return 1.0 / ((1 - expert_frac) / dp + expert_frac / expert_dp);
  };

  // --- Memory: model states (ZeRO, Rajbhandari et al. 2020, 3: mixed-precision AdamW keeps
  // 2-byte weights and gradients plus 12 bytes of fp32 master weights, momentum and variance
  // = 16 bytes/param; K = 12 for Adam).
  const bool half = e == 2;
  // Mixed precision keeps an fp32 master copy and fp32 states; pure 16-bit training keeps
  // neither (states in the compute precision).
  const bool mixed = half && w.master_weights;
  const double master = mixed ? 4 : 0;
  const double state_e = half && !w.master_weights ? e : 4;  // bytes per optimizer state
  double state_bytes = 0;                                     // per trainable parameter
  switch (w.optimizer) {
    case Optimizer::kAdamw: state_bytes = 2 * state_e; break;  // m and v
    case Optimizer::kAdamw8bit: state_bytes = 2; break;  // 8-bit m and v (Dettmers et al. 2022)
    case Optimizer::kSgd: state_bytes = state_e; break;  // momentum
    // Factored second moment, O(rows + cols) per matrix (Shazeer & Stern 2018): ~0 per param.
    case Optimizer::kAdafactor: state_bytes = 0; break;
  }
  MemoryBreakdown& mem = est.memory.breakdown;
  const double zero_opt = zero_divisor(l.zero >= 1);
  const double zero_grad = zero_divisor(l.zero >= 2);
  const double zero_w = zero_divisor(l.zero >= 3);
  double trainable_local = 0;  // trainable parameters on this GPU before ZeRO sharding
  if (!lora) {
    mem.weights = stage_params * e / zero_w;
    mem.gradients = stage_params * e / zero_grad;
    mem.optimizer = stage_params * (master + state_bytes) / zero_opt;
    // ZeRO's mixed-precision optimizer (DeepSpeed stages 1-3) also keeps the fp32 gradient
    // of its partition for accumulation and clipping: 4 bytes per parameter / dp.
    if (l.zero >= 1 && mixed) mem.optimizer += stage_params * 4 / zero_opt;
    trainable_local = stage_params;
  } else {
    // Frozen base. QLoRA quantises the transformer layers' linear weights to NF4 and keeps
    // embeddings, head and norms in 16 bits (Dettmers et al. 2023).
    const bool nf4 = w.method == Method::kQlora || w.weight_bits == 4;
    const double layer_bytes = (w.method == Method::kQlora || w.weight_bits > 0)
                                   ? QuantBits(w.weight_bits > 0 ? w.weight_bits : 4, nf4) / 8
                                   : e;
    mem.weights = (stage_layer_params * layer_bytes + (stage_params - stage_layer_params) * e) /
                  zero_w;
    // Adapters train in fp32 (PEFT casts adapter weights to fp32 by default): weight 4 +
    // gradient 4 + AdamW states 8 bytes per parameter.
    const double adapter_params = stage_layers * AdapterParamsPerLayer(d, w.lora_rank) / tp;
    mem.adapters = adapter_params * (4 + 4 + state_bytes) / zero_opt;
    trainable_local = adapter_params;
    if (w.train_embeddings) {
      // PEFT modules_to_save: a trainable copy of the embedding and head (16-bit weight and
      // gradient) with AdamW states in fp32.
      const double emb = stage_embed / tp;
      mem.adapters += emb * (e + e + state_bytes) / zero_opt;
      trainable_local += emb;
    }
  }

  // --- Memory: activations. With 1F1B pipelining the first stage holds min(pp, m) micro-batches
  // of its layers (Narayanan et al. 2021, 2.2.1; Korthikanti et al. 2022, 4.2).
  const Recompute rc = l.recompute;
  const bool flash = l.flash_attention && w.flash_attention;
  const double layer_act =
      transformer ? LayerActivationBytes(d, s, b, e, l.tp, l.sequence_parallel, flash, rc,
                                         arch.dropout)
                  : 0;
  const double in_flight = l.pp > 1 ? std::min<double>(pp, m) : 1;
  mem.activations = layer_act * stage_layers * in_flight / kGiB;
  // Transients at the peak: the logits of the last stage in 16-bit plus their fp32 copy for
  // the loss (Megatron/HF upcast), one layer's full activations when it is recomputed in
  // backward, and with ZeRO-3 the gathered parameters of the layer in use and the prefetched
  // next (PyTorch FSDP forward/backward prefetch).
  double transient = 0;
  if (transformer) {
    transient += cal.transient_factor * s * b * d.vocab / tp * (e + 4);
    if (rc != Recompute::kNone) {
      transient += LayerActivationBytes(d, s, b, e, l.tp, l.sequence_parallel, flash,
                                        Recompute::kNone, arch.dropout);
    }
    if (l.zero >= 3 && dp > 1) transient += 2 * d.layer_params / tp * e;
  }
  mem.transient = transient / kGiB;
  mem.weights /= kGiB;
  mem.gradients /= kGiB;
  mem.optimizer /= kGiB;
  mem.adapters /= kGiB;
  FinishMemory(est, hw, cal);

  // --- FLOPs. Model FLOPs per token: 6 per weight (forward 2, backward 4) plus attention
  // 12 L h s (QK^T and AV, forward 4 L h s, counted over the full square as Megatron, PaLM
  // (Chowdhery et al. 2022, App. B) and llm-foundry do). Embedding lookups are free; the
  // output head counts (it is in the params).
  // MoE: FLOPs of the parameters a token uses (top_k routed experts), not all of them.
  const double weight_flops_tok =
      6 * (d.active_params - (transformer ? d.embed_params - d.head_params : 0));
  const double attn_flops_tok = transformer ? 12 * d.layers * d.attn_dim * s : 0;
  double model_flops_tok = weight_flops_tok + attn_flops_tok;
  if (!transformer && arch.forward_flops_per_sample > 0) {
    const double seq = arch.default_seq_len > 0 ? arch.default_seq_len : s;
    model_flops_tok = 3 * arch.forward_flops_per_sample / seq;
  }
  // LoRA: the frozen weights need no weight gradient, so backward costs one forward (input
  // gradients only): 4 per weight instead of 6 (Hu et al. 2021 train only adapters).
  const double lora_scale = lora ? 4.0 / 6.0 : 1.0;
  // Recomputation adds a forward: full recompute repeats all of it (8N + 16Lhs: Korthikanti
  // et al. 2022, 5), selective only the attention core (their "selective" recomputes QK^T,
  // softmax and AV).
  const double fwd_w = weight_flops_tok / 3, fwd_a = attn_flops_tok / 3;
  double hw_flops_tok = weight_flops_tok * lora_scale + attn_flops_tok;
  if (rc == Recompute::kFull) hw_flops_tok += fwd_w + fwd_a;
  if (rc == Recompute::kSelective) hw_flops_tok += fwd_a;
  if (!transformer) hw_flops_tok = model_flops_tok * lora_scale * (rc == Recompute::kFull ? 4.0 / 3 : 1);
  est.flops_per_token = model_flops_tok;

  // --- Compute time of one micro-batch on one stage.
  const double tokens_mb = s * b;
  const double dim = transformer ? d.h / tp : 4096;
  // A convolution's GEMM has batch x height x width rows: saturated for any real batch.
  const double gemm_rows = transformer ? tokens_mb : 1e12;
  const double gemm_eff = GemmEfficiency(eff_row, cal, gpu, peak, dim, gemm_rows, w.precision, e);
  // Fused attention runs causal (skips the masked half of the counted square: Dao 2023) at
  // the architecture's attention fraction of peak; unfused attention materialises the scores
  // and is memory-bound.
  const double attn_rate = flash ? 2 * eff_row.attention_fraction
                                 : gemm_eff * cal.unfused_attention_factor;
  const double stage_share = transformer ? stage_layers / d.layers : 1;
  const double gemm_flops_mb =
      (hw_flops_tok - (attn_flops_tok + (rc != Recompute::kNone ? fwd_a : 0))) * tokens_mb *
      stage_share / tp;
  const double attn_flops_mb =
      (attn_flops_tok + (rc != Recompute::kNone ? fwd_a : 0)) * tokens_mb * stage_share / tp;
  const double peak_flops = peak * 1e12;
  double t_mb = gemm_flops_mb / (peak_flops * gemm_eff) +
                attn_flops_mb / (peak_flops * attn_rate);
  // MoE: the expert share of the GEMMs runs at the per-expert token count, and every rank
  // waits for the busiest expert (load imbalance).
  if (arch.IsMoe() && transformer) {
    const double expert_share = d.layers * d.active_expert_layer_params /
                                std::max(1.0, weight_flops_tok / 6);
    const double eff_expert = ExpertGemmEfficiency(arch, eff_row, cal, gpu, peak,
                                                   tokens_mb * l.ep, w.precision, e);
    t_mb += gemm_flops_mb * expert_share *
            (cal.moe_load_imbalance / (peak_flops * eff_expert) - 1 / (peak_flops * gemm_eff));
  }
  // Memory-bound elementwise kernels (norms, activation functions, residual adds, dropout):
  // bytes per token per layer proportional to (h + ffn); backward moves twice the forward's.
  const double bw_bytes = gpu.memory_bandwidth_gbs * 1e9 * eff_row.memory_bw_fraction;
  const double passes = 3 + (rc == Recompute::kFull ? 1 : 0);
  if (transformer) {
    // MoE: the permute/unpermute of top_k copies of each token is an h-wide stream per copy.
    t_mb += cal.elementwise_traffic * (d.h * (1 + d.routed_copies) + d.ffn) / tp * e * tokens_mb *
            stage_layers * passes / bw_bytes;
    // MoE layers run more kernels and wait for the dispatch's token counts (a host sync).
    t_mb += cal.moe_layer_overhead_us * 1e-6 * stage_layers * d.moe_layer_share * (passes - 1);
    // Fixed per-layer cost of each forward/backward pass (launches, framework hooks).
    t_mb += cal.train_layer_overhead_us * 1e-6 * stage_layers * (passes - 1);
  }
  // Non-transformer models (CNNs): the same memory-bound layers over every layer's output
  // elements per sample; with tensor cores they outweigh the convolutions (ResNet-50).
  if (!transformer && arch.activation_elements_per_sample > 0) {
    t_mb += cal.elementwise_traffic * arch.activation_elements_per_sample * e * b * passes /
            bw_bytes;
  }
  // QLoRA dequantises every NF4 weight to 16 bits before each GEMM: read 0.5 + write 2 + read
  // 2 bytes per weight per pass (forward, backward, and the recompute forward).
  if (w.method == Method::kQlora) {
    t_mb += (passes - 1) * stage_layer_params * 4.5 / bw_bytes;
  }

  TimeBreakdown& tb = est.time.breakdown;
  tb.compute = t_mb * m;
  // Pipeline bubble: (pp - 1) micro-batch times per step, i.e. a fraction (pp-1)/(m+pp-1)
  // of the step (GPipe/1F1B; Narayanan et al. 2021, eq. 1).
  // Interleaved 1F1B with vp virtual stages per rank divides it by vp (Narayanan et al. 2021,
  // 2.2.2).
  tb.pp_bubble = (pp - 1) * t_mb / l.vp;

  // --- Tensor-parallel communication: 2 all-reduces of s b h activations per layer forward and
  // 2 backward (Megatron-LM, Shoeybi et al. 2019, Fig. 4), +2 for a full-recompute forward;
  // sequence parallel replaces each by a reduce-scatter + all-gather of the same volume.
  const double latency = cal.collective_latency_us * 1e-6;
  if (l.tp > 1 && transformer) {
    const double bw = GroupBandwidth(hw, cal, l.tp, hw.gpus_per_node);
    const double per_layer = 4 + (rc == Recompute::kFull ? 2 : 0);
    tb.tp_comm = m * stage_layers * per_layer * RingTime(s * b * d.h * e, l.tp, 2, bw, latency);
  }
  // Pipeline point-to-point: each micro-batch sends s b h activations forward and their
  // gradient back at each stage boundary; the slowest boundary crosses nodes when stages do.
  if (l.pp > 1 && transformer) {
    const int stage_span = l.tp * l.dp;
    const double bw = GroupBandwidth(hw, cal, stage_span * 2, hw.gpus_per_node);
    tb.pp_comm = 2 * m * s * b * d.h / tp * e / bw * l.vp;  // vp x the stage boundaries
  }
  // --- MoE token dispatch and combine over the ep group: 2 all-to-alls per MoE layer forward,
  // 2 backward (+2 for a full-recompute forward), not overlapped beyond moe_a2a_overlap.
  if (transformer) {
    const double a2a_passes = 4 + (rc == Recompute::kFull ? 2 : 0);
    tb.ep_comm = m * MoeAllToAllSeconds(d, l, hw, cal, tokens_mb / (l.sequence_parallel ? tp : 1),
                                        stage_layers * d.moe_layer_share, a2a_passes, e);
  }
  // --- Data-parallel gradient synchronisation, overlapped with backward compute.
  if (l.dp > 1) {
    const int span = l.tp * l.pp * l.dp;  // dp groups are strided over the whole job
    const double bw = GroupBandwidth(hw, cal, span, hw.gpus_per_node);
    const double grad_bytes = trainable_local * (half ? 2 : 4);
    double comm = 0;
    double overlap = cal.dp_overlap;
    if (l.zero >= 3) {
      // FSDP FULL_SHARD per micro-batch: all-gather parameters for forward and backward, and
      // reduce-scatter gradients (Zhao et al. 2023, PyTorch FSDP, 3.2).
      comm = m * (2 * RingTime(stage_params * e, l.dp, 1, bw, latency) +
                  RingTime(grad_bytes, l.dp, 1, bw, latency));
      overlap = cal.zero3_overlap;
    } else if (l.zero == 2) {
      comm = m * RingTime(grad_bytes, l.dp, 1, bw, latency) +
             RingTime(trainable_local * e, l.dp, 1, bw, latency);
    } else {
      comm = RingTime(grad_bytes, l.dp, 2, bw, latency);
    }
    // Hidden behind compute: at most `overlap` of the communication, and at most the backward
    // (2/3 of compute) for gradient traffic.
    const double window = l.zero >= 3 ? tb.compute : tb.compute * 2 / 3;
    const double hidden = std::min(comm * overlap, window);
    tb.dp_comm = comm - hidden;
  }
  // --- Optimizer step: memory-bound elementwise update. AdamW mixed precision reads gradient,
  // master, m, v and writes master, m, v and the 16-bit weight: (2+4+4+4) + (4+4+4+2) = 28
  // bytes per parameter (Adam-style kernels, e.g. apex FusedAdam).
  {
    const double grad_b = half ? 2 : 4;
    const double per_param = grad_b + 2 * (master + state_bytes) + (mixed ? 2 : 0) +
                             (lora ? 8 : 0);
    const double params_local = trainable_local / zero_opt;
    tb.optimizer = params_local * per_param /
                   (gpu.memory_bandwidth_gbs * 1e9 * eff_row.memory_bw_fraction);
  }
  // Offloaded optimizer (ZeRO-Offload, Ren et al. 2021): gradients to host and updated 16-bit
  // weights back over PCIe each step.
  if (l.offload == Offload::kCpu) {
    const double params_local = trainable_local / zero_opt;
    tb.offload = params_local * (e + e) / (gpu.PcieGbs() * 1e9 * cal.pcie_efficiency);
    mem.optimizer = 0;
    FinishMemory(est, hw, cal);
  }

  est.time.step_s = tb.compute + tb.pp_bubble + tb.tp_comm + tb.pp_comm + tb.dp_comm +
                    tb.ep_comm + tb.optimizer + tb.offload + tb.data;
  const double tokens_step_gpu = static_cast<double>(m) * l.micro_batch * l.dp * s / hw.Gpus();
  est.throughput.tokens_per_s_per_gpu = tokens_step_gpu / est.time.step_s;
  est.throughput.samples_per_s_per_gpu = est.throughput.tokens_per_s_per_gpu / s;
  est.throughput.tflops_per_gpu = est.throughput.tokens_per_s_per_gpu * model_flops_tok / 1e12;
  est.throughput.hardware_tflops_per_gpu = est.throughput.tokens_per_s_per_gpu * hw_flops_tok /
                                           1e12;
  est.throughput.mfu = est.throughput.tflops_per_gpu / peak;
  return est;
}

Result<Estimate> EstimateInference(const Workload& w, const ModelArch& arch, const Hardware& hw,
                                   const Layout& l, const Calibration& cal, double peak) {
  if (arch.kind == ModelKind::kOther) {
    return Status::Unsupported("inference of non-transformer models (" + arch.name +
                               ") is not modelled");
  }
  Estimate est;
  const Gpu& gpu = *hw.gpu;
  const ArchEfficiency eff_row = cal.For(gpu);
  const Dims d = DimsOf(arch);
  // FP8 inference (TensorRT-LLM, vLLM) stores weights and the KV cache in FP8: 1 byte.
  const double e = w.precision == Precision::kFp8 ? 1 : ElementBytes(w.precision);
  const double tp = l.tp, pp = l.pp;
  const InferenceSpec& inf = w.inference;
  const double batch = inf.batch ? *inf.batch : l.micro_batch;
  const double prompt = inf.prompt_tokens;
  const double out = arch.kind == ModelKind::kEncoder ? 0 : inf.output_tokens;
  const double stage_layers = std::ceil(d.layers / pp);

  // --- Memory: weights of this GPU's share; quantised layers at their bit width, embeddings
  // and head in 16 bits (GPTQ/AWQ/bitsandbytes leave them unquantised).
  const double layer_bytes = w.weight_bits > 0 ? QuantBits(w.weight_bits, false) / 8 : e;
  const double stage_embed = l.pp > 1 ? d.vocab * d.h : d.embed_params;
  // Routed experts are spread over ExpertShards (tp without expert parallelism, ep with it).
  const double expert_bytes = stage_layers * d.expert_layer_params / ExpertShards(l) * layer_bytes;
  const double weight_bytes = stage_layers * (d.layer_params - d.expert_layer_params) / tp *
                                  layer_bytes +
                              expert_bytes + stage_embed / tp * e;
  MemoryBreakdown& mem = est.memory.breakdown;
  mem.weights = weight_bytes / kGiB;
  // KV cache: K and V of kv_heads x head_dim per layer per token (Pope et al. 2022, 3.1),
  // split over at most kv_heads tensor-parallel ranks (engines replicate a KV head over the
  // ranks that share it). MLA caches one latent per token for all heads, replicated on every
  // tensor-parallel rank (vLLM/SGLang without attention data parallelism); sliding-window
  // layers keep only their window.
  const double ctx = prompt + out;
  const double kv_shards = arch.attention == AttentionKind::kMla
                               ? 1
                               : std::min<double>(tp, arch.kv_heads > 0 ? arch.kv_heads : tp);
  auto kv_sequence_bytes = [&](double tokens) {
    return arch.KvCacheElements(tokens) * stage_layers / d.layers / kv_shards * e;
  };
  mem.kv_cache = kv_sequence_bytes(ctx) * batch / kGiB;
  // Prefill transients: the widest MLP intermediate of one layer and the logits of the last
  // position only (generate() keeps one position: HF num_logits_to_keep, vLLM, TRT-LLM),
  // upcast to fp32 for sampling.
  const double mlp_tmp = (d.mlp_mats == 3 ? 3 : 2) * prompt * batch * d.ffn / tp * e;
  const double logits = cal.transient_factor * batch * d.vocab / tp * (e + 4);
  mem.transient = std::max(mlp_tmp, arch.kind == ModelKind::kDecoder ? logits : 0) / kGiB;
  FinishMemory(est, hw, cal);

  const double bw = gpu.memory_bandwidth_gbs * 1e9 * eff_row.memory_bw_fraction;
  // --- Prefill: compute-bound GEMMs over batch x prompt tokens, plus causal attention
  // (4 L h s^2 per sequence forward, halved by causal masking for decoders).
  const double peak_flops = peak * 1e12;
  // Host launch time runs ahead of the GPU (overlaps); per-pass serial work adds.
  const double launch_s = (cal.LayerOverheadUs(inf.engine) +
                           (w.weight_bits > 0 && inf.engine == Engine::kHf
                                ? cal.hf_quant_layer_overhead_us
                                : 0)) *
                          1e-6 * d.layers;
  const double step_s = cal.StepOverheadUs(inf.engine) * 1e-6;
  // GEMM weights a token passes through (MoE: top_k routed experts; expert_weights of them).
  const double gemm_weights = d.active_params - d.embed_params + d.head_params;
  const double expert_weights = d.layers * d.active_expert_layer_params;
  const double attn_per_sequence = 4 * d.layers * d.attn_dim * prompt * prompt *
                                   (arch.kind == ModelKind::kDecoder ? 0.5 : 1.0);
  // Attention core: fused kernels (flash attention; FasterTransformer/TensorRT-LLM's fused
  // multi-head attention, FP16/BF16/FP8 only) run at the architecture's attention fraction of
  // peak. Unfused attention runs QK^T and AV as batched GEMMs and moves the materialised
  // heads x s x s scores through memory several times (write, scale, mask, softmax, read).
  const bool fused_attention =
      (w.flash_attention && l.flash_attention) ||
      (inf.engine == Engine::kTrtllm && w.precision != Precision::kFp32);
  // Elementwise kernels: eager PyTorch (TorchScript, HF transformers) launches a kernel per
  // operation where the inference engines fuse them, so it moves more bytes per token.
  const bool eager = inf.engine == Engine::kTorch || inf.engine == Engine::kHf;
  const double elementwise = eager ? cal.eager_elementwise_traffic : cal.elementwise_traffic;
  // Pipeline stages run one after another for one batch (no micro-batching in HF
  // device_map=auto), so latency sums over stages: count all weights once.
  const double prefill_mem = weight_bytes * pp / bw;
  // Tensor parallel: two all-reduces of the activations per layer (Megatron), which FP8
  // engines still reduce in 16 bits.
  const double act_bytes = w.precision == Precision::kFp8 ? 2 : e;
  const double tp_bw = l.tp > 1 ? GroupBandwidth(hw, cal, l.tp, hw.gpus_per_node) : 1;
  const double tp_latency = cal.collective_latency_us * 1e-6;
  // The prefill of `n` prompts together: GEMMs, attention and elementwise work (or one read of
  // the weights, or the host's launches, whichever is longest), then the tensor-parallel
  // all-reduces.
  auto prefill_seconds = [&](double n) {
    const double tokens = prompt * n;
    const double eff =
        GemmEfficiency(eff_row, cal, gpu, peak, d.h / tp, tokens, w.precision, layer_bytes);
    const double attention =
        fused_attention
            ? attn_per_sequence * n / (tp * pp) / (peak_flops * eff_row.attention_fraction)
            : attn_per_sequence * n / (tp * pp) / (peak_flops * eff) +
                  cal.unfused_score_passes * d.heads / tp * prompt * prompt * n * e * d.layers /
                      pp / bw;
    // Expert GEMMs run at the rows each expert receives, waiting for the busiest expert.
    const double eff_expert = arch.IsMoe() ? ExpertGemmEfficiency(arch, eff_row, cal, gpu, peak,
                                                                  tokens * l.ep, w.precision,
                                                                  layer_bytes)
                                           : eff;
    const double compute = 2 * (gemm_weights - expert_weights) * tokens / (tp * pp) /
                               (peak_flops * eff) +
                           2 * expert_weights * tokens / (tp * pp) * cal.moe_load_imbalance /
                               (peak_flops * eff_expert) +
                           attention +
                           elementwise * (d.h * (1 + d.routed_copies) + d.ffn) / tp * e * tokens *
                               d.layers / pp / bw;
    const double tp_comm =
        l.tp > 1 ? d.layers * 2 * RingTime(tokens * d.h * act_bytes, l.tp, 2, tp_bw, tp_latency)
                 : 0;
    const double ep_comm = MoeAllToAllSeconds(d, l, hw, cal, tokens, d.layers * d.moe_layer_share,
                                              2, act_bytes);
    return std::max({compute * pp, prefill_mem, launch_s}) + step_s + tp_comm + ep_comm;
  };
  const double prefill_tokens = prompt * batch;
  const double attn_prefill = attn_per_sequence * batch;
  const double tp_comm_layer =
      l.tp > 1 ? 2 * RingTime(batch * d.h * act_bytes, l.tp, 2, tp_bw, tp_latency) : 0;
  InferenceTimes it;
  it.batch = static_cast<int>(batch);
  it.prefill_s = prefill_seconds(batch);
  it.ttft_ms = it.prefill_s * 1e3;

  // --- Decode: each token reads all weights and the KV cache so far (memory-bound at small
  // batch; compute-bound once 2 N batch FLOPs outweigh the bytes: Pope et al. 2022).
  if (out > 0) {
    const double mid_ctx = prompt + out / 2;  // cache grows linearly: average length
    // Each step runs the GEMMs over `batch` rows (bandwidth-bound GEMVs at small batch,
    // compute-bound at large: Pope et al. 2022) and then the attention kernels, which read the
    // KV cache so far: separate kernels, so their times add.
    double kv_bytes = kv_sequence_bytes(mid_ctx) * pp * batch;
    // Eager HF attention with grouped-query attention expands K and V to every query head
    // (repeat_kv) and concatenates the cache each step: extra passes over an all-heads-sized
    // copy of the cache.
    if (inf.engine == Engine::kHf) {
      kv_bytes += cal.hf_kv_expand_passes * 2 * d.layers * d.h / tp * e * mid_ctx * batch;
    }
    // GEMMs: the larger of their arithmetic (at the full-rows efficiency) and one read of the
    // weights (the embedding table too).
    const double eff_dec =
        GemmEfficiency(eff_row, cal, gpu, peak, d.h / tp, 1e12, w.precision, layer_bytes);
    const double t_arithmetic = 2 * gemm_weights * batch / tp / (peak_flops * eff_dec) * pp;
    // MoE: a step reads only the experts its tokens route to (the ep group's tokens together).
    const double touched =
        arch.IsMoe() ? ExpectedDistinctExperts(arch.moe.experts, arch.moe.top_k, batch * l.ep) /
                           arch.moe.experts
                     : 1;
    const double t_weights = (weight_bytes - expert_bytes * (1 - touched)) * pp / bw;
    const double t_ep = MoeAllToAllSeconds(d, l, hw, cal, batch, d.layers * d.moe_layer_share, 2,
                                           act_bytes);
    const double t_kv = kv_bytes / bw;
    it.decode_memory_bound = t_weights + t_kv >= t_arithmetic;
    const double t_token = std::max(std::max(t_arithmetic, t_weights) + t_kv, launch_s) + step_s +
                           d.layers * tp_comm_layer + t_ep;
    it.tpot_ms = t_token * 1e3;
    it.decode_s = t_token * (out - 1 > 0 ? out - 1 : 0);
    // Continuous batching (Orca, Yu et al. 2022; vLLM, Kwon et al. 2023): a new request's
    // prompt is prefilled on its own while the others decode, so its first token waits for
    // that prefill and the running step, not for the whole batch's prefill; the batch's
    // prefill work is interleaved with the decode steps, so each token also carries its share.
    // The GPU time per batch of requests (request_s), hence throughput, is the same.
    if (inf.ContinuousBatching() && batch > 1) {
      it.ttft_ms = (prefill_seconds(1) + t_token) * 1e3;
      it.tpot_ms = (t_token + it.prefill_s / out) * 1e3;
    }
  }
  it.request_s = it.prefill_s + it.decode_s;
  // Data-parallel replicas (dp) serve independent batches.
  it.tokens_per_s_per_gpu = out > 0 ? batch * out / it.request_s / (tp * pp) : 0;
  it.prefill_tokens_per_s_per_gpu = prefill_tokens / it.prefill_s / (tp * pp);
  it.requests_per_s = batch / it.request_s * l.dp;
  est.time.step_s = it.request_s;
  est.time.breakdown.compute = it.request_s;
  est.throughput.tokens_per_s_per_gpu = it.tokens_per_s_per_gpu;
  est.throughput.samples_per_s_per_gpu = batch / it.request_s / (tp * pp);
  const double flops_req = 2 * gemm_weights * (prefill_tokens + batch * out) + attn_prefill;
  est.throughput.tflops_per_gpu = flops_req / it.request_s / (tp * pp) / 1e12;
  est.throughput.hardware_tflops_per_gpu = est.throughput.tflops_per_gpu;
  est.throughput.mfu = est.throughput.tflops_per_gpu / peak;
  est.flops_per_token = 2 * gemm_weights;
  est.inference = it;
  return est;
}

}  // namespace

std::string_view LinkKindName(LinkKind k) {
  switch (k) {
    case LinkKind::kNone: return "none";
    case LinkKind::kPcie: return "pcie";
    case LinkKind::kNvlink: return "nvlink";
    case LinkKind::kNvswitch: return "nvswitch";
  }
  return "none";
}

std::array<std::pair<std::string_view, double>, MemoryBreakdown::kParts> MemoryBreakdown::Named()
    const {
  return {{{"weights", weights},
           {"gradients", gradients},
           {"optimizer", optimizer},
           {"adapters", adapters},
           {"activations", activations},
           {"kv_cache", kv_cache},
           {"transient", transient},
           {"overhead", overhead}}};
}

std::array<std::pair<std::string_view, double>, TimeBreakdown::kParts> TimeBreakdown::Named()
    const {
  return {{{"compute", compute},
           {"tp_comm", tp_comm},
           {"pp_bubble", pp_bubble},
           {"pp_comm", pp_comm},
           {"dp_comm", dp_comm},
           {"ep_comm", ep_comm},
           {"optimizer", optimizer},
           {"offload", offload},
           {"data", data}}};
}

Hardware HardwareFor(const Gpu& gpu, int gpus, int gpus_per_node) {
  Hardware hw;
  hw.gpu = &gpu;
  hw.gpus_per_node = std::max(1, std::min(gpus, gpus_per_node));
  hw.nodes = std::max(1, static_cast<int>((static_cast<long long>(gpus) + hw.gpus_per_node - 1) /
                                           hw.gpus_per_node));
  if (hw.gpus_per_node > 1) {
    // NVLink bandwidth in the catalog is bidirectional per GPU; a ring uses one direction.
    if (gpu.nvlink_gbs > 0) {
      hw.intra_link = LinkKind::kNvlink;
      hw.intra_gbs = gpu.nvlink_gbs / 2;
    } else {
      hw.intra_link = LinkKind::kPcie;
      hw.intra_gbs = gpu.PcieGbs();
    }
  }
  if (hw.nodes > 1) {
    // Default cross-node fabric when the caller knows nothing: NVIDIA's DGX/HGX reference
    // designs give each GPU its own RDMA NIC: 400 Gbit/s ConnectX-7 for Hopper (DGX H100),
    // 200 Gbit/s ConnectX-6 for Ampere (DGX A100), 100 Gbit/s for older generations.
    const double per_gpu = gpu.architecture == "Hopper" ? 400
                           : gpu.architecture == "Ampere" ? 200 : 100;
    hw.inter_node_gbps = per_gpu * hw.gpus_per_node;
    hw.rdma = true;
  }
  hw.gpu_memory_gib = gpu.EffectiveMemoryGib();
  return hw;
}

Result<Hardware> HardwareFor(const Catalog& catalog, const InstanceType& type, int nodes) {
  if (nodes < 1) return Status::InvalidArgument("nodes must be >= 1");
  const Gpu* gpu = catalog.FindGpu(type.gpu);
  if (gpu == nullptr) {
    return Status::NotFound("instance type " + type.name + ": unknown GPU \"" + type.gpu + "\"");
  }
  if (type.vgpu()) {
    return Status::Unsupported("instance type " + type.name +
                               " is a vGPU slice; training and serving estimates need whole GPUs");
  }
  Hardware hw;
  hw.gpu = gpu;
  hw.gpus_per_node = type.whole_gpus();
  hw.nodes = nodes;
  switch (type.interconnect) {
    case Interconnect::kNvswitch:
      hw.intra_link = LinkKind::kNvswitch;
      hw.intra_gbs = gpu->nvlink_gbs / 2;
      break;
    case Interconnect::kNvlink:
      hw.intra_link = LinkKind::kNvlink;
      hw.intra_gbs = gpu->nvlink_gbs / 2;
      break;
    case Interconnect::kPcie:
      hw.intra_link = LinkKind::kPcie;
      hw.intra_gbs = gpu->PcieGbs();
      break;
  }
  if (hw.gpus_per_node <= 1) {
    hw.intra_link = LinkKind::kNone;
    hw.intra_gbs = 0;
  }
  if (nodes > 1) {
    hw.rdma = type.rdma;
    hw.inter_node_gbps = type.rdma && type.rdma_gbps ? *type.rdma_gbps : type.network_gbps;
  }
  // A GPU slice of an instance may expose less memory than the full GPU.
  hw.gpu_memory_gib = std::min(gpu->EffectiveMemoryGib(), type.gpu_memory_gib > 0
                                                              ? type.gpu_memory_gib
                                                              : gpu->EffectiveMemoryGib());
  return hw;
}

Result<Estimate> EstimateRun(const Workload& w, const ModelArch& arch, const Hardware& hw,
                             const Layout& layout, const Calibration& cal) {
  if (Status s = CheckLayout(w, arch, hw, layout); !s.ok()) return s;
  if (w.task == Task::kRendering || w.task == Task::kHpc) {
    return Status::Unsupported("task " + std::string(TaskName(w.task)) +
                               " has no performance model (only memory and GPU capability checks)");
  }
  const std::optional<double> peak = PeakTflops(*hw.gpu, w.precision);
  if (!peak || *peak <= 0) {
    return Status::InvalidArgument(hw.gpu->name + " has no " +
                                   std::string(PrecisionName(w.precision)) + " support");
  }
  Result<Estimate> est = w.IsTraining() ? EstimateTraining(w, arch, hw, layout, cal, *peak)
                                        : EstimateInference(w, arch, hw, layout, cal, *peak);
  if (!est.ok()) return est;
  est->peak_tflops = *peak;
  if (w.IsTraining()) {
    if (std::optional<double> total = w.TotalTokens()) {
      const double tokens_per_step = static_cast<double>(w.global_batch) * w.seq_len;
      est->job.steps = std::ceil(*total / tokens_per_step);
      est->job.hours = est->job.steps * est->time.step_s / 3600;
      est->job.gpu_hours = est->job.hours * hw.Gpus();
    }
  } else if (w.inference.requests_per_s && est->inference) {
    // Hours per million requests at the sustained rate is not a job; leave job empty.
  }
  return est;
}

namespace {

// The largest n in [1, limit] with fits(n), or 0 when not even 1 fits. Memory grows
// monotonically with micro-batch and sequence length, so doubling then bisecting finds it in
// O(log limit) estimates.
template <typename Fits>
int LargestFitting(int limit, Fits fits) {
  if (!fits(1)) return 0;
  int lo = 1, hi = 2;
  while (hi <= limit && fits(hi)) {
    lo = hi;
    if (hi > limit / 2) {  // doubling would pass the limit (and could overflow int)
      hi = limit + 1;
      break;
    }
    hi *= 2;
  }
  hi = std::min(hi, limit == INT_MAX ? limit : limit + 1);
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

int MaxMicroBatch(const Workload& w, const ModelArch& arch, const Hardware& hw,
                  const Layout& layout, const Calibration& cal, int limit) {
  Workload wl = w;
  Layout l = layout;
  auto fits = [&](int mb) {
    l.micro_batch = mb;
    if (w.IsTraining()) {
      wl.global_batch = std::max(w.global_batch, mb * l.dp);
    } else {
      wl.inference.batch = mb;
    }
    Result<Estimate> e = EstimateRun(wl, arch, hw, l, cal);
    return e.ok() && e->memory.fits;
  };
  return LargestFitting(limit, fits);
}

int MaxSeqLen(const Workload& w, const ModelArch& arch, const Hardware& hw, const Layout& layout,
              const Calibration& cal, int limit) {
  Workload wl = w;
  auto fits = [&](int s) {
    wl.seq_len = s;
    wl.inference.prompt_tokens = s;
    Result<Estimate> e = EstimateRun(wl, arch, hw, layout, cal);
    return e.ok() && e->memory.fits;
  };
  return LargestFitting(limit, fits);
}

int LargestDivisorAtMost(int n, int limit) {
  for (int d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

Layout DefaultLayout(const Workload& w, const ModelArch& arch, const Hardware& hw,
                     const Calibration& cal) {
  const int gpus = hw.Gpus();
  Layout best;
  best.dp = gpus;
  best.flash_attention = w.flash_attention;
  double best_time = 0;
  bool best_fits = false;
  double best_mem = 0;
  // Candidates: tp over divisors of the node size (and heads), zero 0..3, recompute none or
  // full; micro-batch the largest that fits (capped by what global_batch allows). Keep the
  // fastest that fits, else the one with the least memory.
  const int heads = arch.IsTransformer() ? arch.heads : 1;
  for (int tp = 1; tp <= hw.gpus_per_node; tp *= 2) {
    if (gpus % tp != 0 || heads % tp != 0 || hw.gpus_per_node % tp != 0) continue;
    if (tp > 1 && !arch.IsTransformer()) break;
    for (int zero : {0, 1, 2, 3}) {
      if (zero > 0 && (gpus / tp == 1 || !w.IsTraining())) continue;
      for (Recompute rc : {Recompute::kNone, Recompute::kFull}) {
        if (w.recompute && rc != *w.recompute) continue;
        if (!w.recompute && rc == Recompute::kFull && !w.IsTraining()) continue;
        // MoE training: experts over ep = 1, 2, 4 ... dividing the experts and tp x dp.
        for (int ep = 1; ep <= gpus; ep *= 2) {
        if (ep > 1 && (!arch.IsMoe() || !w.IsTraining() || arch.moe.experts % ep != 0 ||
                       gpus % ep != 0)) {
          break;
        }
        Layout l;
        l.tp = tp;
        l.dp = gpus / tp;
        l.ep = ep;
        l.zero = zero;
        l.recompute = w.recompute ? *w.recompute : rc;
        l.flash_attention = w.flash_attention;
        l.sequence_parallel = tp > 1;
        int cap = w.IsTraining() ? std::max(1, w.global_batch / l.dp) : 1;
        if (w.micro_batch) {
          l.micro_batch = std::min(*w.micro_batch, cap);
        } else if (w.IsTraining()) {
          // The largest micro-batch that fits and divides the per-replica batch, so a step
          // processes exactly global_batch sequences.
          const int fit = std::max(1, MaxMicroBatch(w, arch, hw, l, cal, std::min(cap, 64)));
          l.micro_batch = LargestDivisorAtMost(cap, fit);
        } else {
          l.micro_batch = w.inference.batch ? *w.inference.batch : 1;
        }
        if (w.IsTraining() && l.micro_batch * l.dp > w.global_batch) continue;
        Result<Estimate> e = EstimateRun(w, arch, hw, l, cal);
        if (!e.ok()) continue;
        const bool fits = e->memory.fits;
        const double t = w.IsTraining() ? 1 / e->throughput.tokens_per_s_per_gpu
                                        : e->time.step_s;
        const bool better = (fits && (!best_fits || t < best_time)) ||
                            (!fits && !best_fits &&
                             (best_mem == 0 || e->memory.per_gpu_gib < best_mem));
        if (better) {
          best = l;
          best_time = t;
          best_fits = fits;
          best_mem = e->memory.per_gpu_gib;
        }
        }
      }
    }
  }
  return best;
}

}  // namespace gpuplan::perf
