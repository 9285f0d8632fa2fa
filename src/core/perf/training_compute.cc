// Training compute over the operation records: FLOPs per token (what MFU counts and what the
// GPUs execute) and the time of one micro-batch on one pipeline stage.
#include <algorithm>
#include <cmath>

#include "perf/training_shape.h"

namespace gpuplan::perf::internal {
namespace {

constexpr const char* kFullBasis = "6N + 12Lhs attention";
constexpr const char* kLoraBasis =
    "4N + 12Lhs attention + 6 x adapter params (frozen base: no weight gradients)";

// The base GEMMs' passes per step (every weight GEMM record shares them; the last model
// record, the unlisted weights, stands for them all).
double GemmPasses(const OpRecords& r, Rerun rc) { return Passes(r.model[r.model_ops - 1], rc); }

// Passes of the records of `kind` (records of one kind share them).
double KindPasses(const OpRecords& r, OpKind kind, Rerun rc) {
  for (int i = 0; i < r.layer_ops; ++i) {
    if (r.layer[i].kind == kind)
      return Passes(r.layer[i], rc);
  }
  return 0;
}

}  // namespace

// LoRA's adapter records on one stage for one micro-batch of `tokens`, seconds: the adapter
// GEMMs at their roofline (the longer of their arithmetic at the GEMM fraction of peak and
// their bytes at the memory bandwidth: memory-bound at ranks far below the ridge point), the
// casts, dropout, scaling and adds at the memory bandwidth.
double AdapterSeconds(const TrainingShape& t, double tokens, double peak_flops,
                      double gemm_fraction, double bw_bytes) {
  const OpRecords& r = t.ops();
  double per_layer = 0;
  for (int i = 0; i < r.layer_ops; ++i) {
    const OpRecord& op = r.layer[i];
    const double bytes = op.moved * t.e * tokens / t.tp / bw_bytes;
    if (op.kind == OpKind::kAdapter) {
      const double arithmetic = op.flops * tokens / t.tp / (peak_flops * gemm_fraction);
      per_layer += Passes(op, t.rerun) * std::max(arithmetic, bytes);
    } else if (op.kind == OpKind::kAdapterElementwise) {
      per_layer += Passes(op, t.rerun) * bytes;
    }
  }
  return per_layer * t.stage_layers;
}

// Model FLOPs per token: each record's forward FLOPs times its forward and backward passes.
// Full training: 6 per weight (forward 2, backward 4: input and weight gradients) plus attention
// 12 L h s (QK^T and AV over the full square, as Megatron, PaLM (Chowdhery et al. 2022, App. B)
// and llm-foundry count it); embedding lookups are free, the output head counts. MoE: the
// parameters a token uses (top_k routed experts). LoRA: the frozen weights need no weight
// gradient, so backward costs one forward: 2N + 2N (Hu et al. 2021 train only the adapters),
// plus 6 per adapter parameter; attention's backward still computes dQ, dK and dV.
// Recomputation adds forwards (hardware FLOPs only): full recomputation of every record
// (Korthikanti et al. 2022, 5), selective of the attention core.
TrainingFlops FlopsOf(const TrainingShape& t, const ModelArch& arch) {
  TrainingFlops f;
  if (t.transformer) {
    const OpRecords& r = t.ops();
    const double gemm = ForwardFlops(r, OpKind::kGemm);
    const double attention = ForwardFlops(r, OpKind::kAttention);
    const double adapters = ForwardFlops(r, OpKind::kAdapter);
    const double attn_passes = KindPasses(r, OpKind::kAttention, Rerun::kNone);
    f.attention_per_token = attn_passes * attention;
    f.model_per_token = GemmPasses(r, Rerun::kNone) * gemm + f.attention_per_token +
                        KindPasses(r, OpKind::kAdapter, Rerun::kNone) * adapters;
    f.attention_hw_per_token = KindPasses(r, OpKind::kAttention, t.rerun) * attention;
    f.adapter_hw_per_token = KindPasses(r, OpKind::kAdapter, t.rerun) * adapters;
    f.head_hw_per_token = GemmPasses(r, Rerun::kNone) * 2 * t.d.head_params;
    f.hardware_per_token = f.model_per_token;
    if (t.rerun == Rerun::kFull)
      f.hardware_per_token += gemm + attention + adapters;
    if (t.rerun == Rerun::kSelective)
      f.hardware_per_token += attention;
    if (t.rerun == Rerun::kSelectiveMatmuls)
      f.hardware_per_token += r.sums.matmul_policy_rerun_flops;
    f.basis = t.lora ? kLoraBasis : kFullBasis;
    return f;
  }
  // Non-transformer models (CNNs, UNets, zoo DiTs): their forward FLOPs per sample, x3 for
  // training (forward, then the activations' and the weights' gradients), x2 for LoRA (the
  // frozen weights get no gradient; the adapters' work is negligible).
  const double forward = arch.forward_flops_per_sample > 0 ? arch.forward_flops_per_sample
                         : arch.IsDit()                    ? DitNativeForwardFlops(arch)
                                                           : 0;
  if (forward > 0) {
    const double seq = arch.default_seq_len > 0 ? arch.default_seq_len : t.s;
    f.model_per_token = (t.lora ? 2 : 3) * forward / seq;
    f.basis = t.lora ? "2 x forward FLOPs per sample (LoRA: frozen weights)"
                     : "3 x forward FLOPs per sample";
    f.hardware_per_token = f.model_per_token * (t.rc == Recompute::kFull ? 4.0 / 3 : 1);
    return f;
  }
  f.model_per_token = (t.lora ? 4.0 : 6.0) * t.d.active_params;
  f.basis = t.lora ? kLoraBasis : kFullBasis;
  f.hardware_per_token =
      f.model_per_token * (t.lora ? 4.0 / 6 : 1) * (t.rc == Recompute::kFull ? 4.0 / 3 : 1);
  return f;
}

namespace {

// What one micro-batch costs a pipeline stage: the model's GEMM, head and attention FLOPs of the
// micro-batch, the rates they run at, and the stage's memory-bound and host work per layer.
struct StageCost {
  const TrainingShape& t;
  const Workload& w;
  const ModelArch& arch;
  const Calibration& cal;
  double gemm_mb = 0;       // the model's GEMM FLOPs of the micro-batch per GPU (head included)
  double head_mb = 0;       // of them, the output head's
  double attn_mb = 0;       // attention core FLOPs
  double expert_extra = 0;  // MoE: extra seconds of the expert GEMMs, whole model
  double gemm_rate = 0;     // FLOP/s of the GEMMs
  double attention_rate = 0;
  double bw_bytes = 0;         // achieved memory bandwidth, bytes/s
  double passes = 0;           // elementwise passes (MicroBatchCompute::elementwise_passes)
  double nchw_transposes = 0;  // bytes-passes per element of NCHW layout transposes
  double peak_flops = 0;
  double gemm_fraction = 0;
  double modules = 0;  // parameterised submodules per layer, when ZeRO-3 hooks each
  bool zero3_hooks = false;

  // One stage's micro-batch over `layers` of the transformer layers, with the output head or
  // without it.
  double Seconds(double layers, bool head) const {
    const Dims& d = t.d;
    const double e = t.e;
    const double tokens_mb = t.s_local * t.b;
    const double share = t.transformer ? layers / d.layers : 1;
    const double per_layer_share =
        t.transformer && t.stage_layers > 0 ? layers / t.stage_layers : 1;
    double s = ((gemm_mb - head_mb) * share + (head ? head_mb : 0)) / gemm_rate +
               attn_mb * share / attention_rate + expert_extra * share;
    if (t.transformer) {
      s += cal.elementwise_traffic * ElementwiseElementsPerLayer(t.ops()) / t.tp * e * tokens_mb *
           layers * passes / bw_bytes;
      // Fixed per-layer cost of each forward/backward pass (launches, framework hooks); MoE
      // layers run more kernels and wait for the dispatch's token counts (a host sync).
      s += (cal.train_layer_overhead_us + cal.moe_layer_overhead_us * d.moe_layer_share) * 1e-6 *
           layers * (passes - 1);
    }
    // Non-transformer models (CNNs, UNets, zoo DiTs): the same memory-bound layers over every
    // layer's output elements per sample; with tensor cores they outweigh the convolutions
    // (ResNet-50).
    // NCHW activations add cuDNN's layout transposes around each tensor-core convolution call
    // (forward, and backward's data and weight gradients: one call per pass).
    if (!t.transformer) {
      s += (cal.elementwise_traffic + nchw_transposes) * SampleActivationElements(arch) * e * t.b *
           passes / bw_bytes;
    }
    // QLoRA dequantises every NF4 weight to 16 bits before each GEMM: read 0.5 + write 2 + read
    // 2 bytes per weight per pass (forward, backward, and the recompute forward).
    if (w.method == Method::kQlora)
      s += (passes - 1) * t.stage_layer_params * per_layer_share * 4.5 / bw_bytes;
    // The host runs ahead of the GPU, so the micro-batch takes the longer of the two. It
    // dispatches every kernel of a LoRA step (eager PyTorch): the adapters multiply the launches
    // (PEFT adds about 16 per adapted linear layer), so small LoRA micro-batches are
    // launch-bound. DeepSpeed ZeRO-3 runs a fetch and a release hook around every parameterised
    // submodule in each pass (forward, backward, recompute forward), whatever the tokens: small
    // micro-batches wait for them (deepspeedai/DeepSpeed#5047, #6649).
    double host = 0;
    if (t.lora && t.transformer) {
      s += AdapterSeconds(t, tokens_mb, peak_flops, gemm_fraction, bw_bytes) * per_layer_share;
      host += (LayerKernels(t.ops(), t.rerun) * layers + ModelKernels(t.ops())) *
              cal.eager_launch_us * 1e-6;
    }
    if (zero3_hooks)
      host += (passes - 1) * layers * modules * cal.zero3_module_hook_us * 1e-6;
    return std::max(s, host);
  }
};

}  // namespace

MicroBatchCompute MicroBatchSeconds(const TrainingShape& t, const TrainingFlops& f,
                                    const Workload& w, const ModelArch& arch, const Hardware& hw,
                                    const Layout& l, const Calibration& cal, double peak) {
  const Dims& d = t.d;
  const Gpu& gpu = *hw.gpu;
  const ArchEfficiency& eff_row = t.eff();
  MicroBatchCompute mb;
  const double tokens_mb = t.s_local * t.b;
  const double dim = t.transformer ? d.h / t.tp : cal.conv_gemm_dim;
  // A convolution's GEMM has batch x height x width rows: saturated for any real batch.
  const double gemm_rows = t.transformer ? tokens_mb : kSaturatedGemmRows;
  const double gemm_eff = GemmEfficiency(eff_row, cal, gpu, peak, dim, gemm_rows, w.precision, t.e);
  // Fused attention runs causal (skips the masked half of the counted square: Dao 2023) at
  // the fraction of peak of the kernel the layout's framework runs (cuDNN's fused attention
  // under Megatron/NeMo on Hopper, FlashAttention-2 elsewhere); unfused attention materialises
  // the scores and is memory-bound.
  mb.attention_rate = t.flash ? 2 * eff_row.AttentionFraction(AttentionKernelFor(w.frameworks, l))
                              : gemm_eff * cal.unfused_attention_factor;
  // FP8 training casts the GEMMs' inputs to FP8 but runs dot-product attention in BF16:
  // Transformer Engine's recipes default to fp8_dpa = False (FP8 attention is opt-in), so the
  // attention core runs against the BF16 peak, not the FP8 one.
  mb.attention_peak = peak;
  if (w.precision == Precision::kFp8)
    mb.attention_peak = PeakTflops(gpu, Precision::kBf16).value_or(peak);
  StageCost c{.t = t, .w = w, .arch = arch, .cal = cal};
  c.peak_flops = peak * 1e12;
  c.gemm_fraction = eff_row.gemm_fraction;
  c.gemm_rate = c.peak_flops * gemm_eff;
  c.attention_rate = mb.attention_peak * 1e12 * mb.attention_rate;
  c.gemm_mb =
      (f.hardware_per_token - f.attention_hw_per_token - f.adapter_hw_per_token) * tokens_mb / t.tp;
  c.head_mb = t.transformer ? f.head_hw_per_token * tokens_mb / t.tp : 0;
  c.attn_mb = f.attention_hw_per_token * tokens_mb / t.tp;
  // MoE: the expert share of the GEMMs runs at the per-expert token count (the ep ranks' tokens
  // together), and every rank waits for the busiest expert (load imbalance).
  if (arch.IsMoe() && t.transformer) {
    const double active = d.active_params - d.embed_params + d.head_params;
    const double expert_share = d.layers * d.active_expert_layer_params / std::max(1.0, active);
    const double expert_flops = c.gemm_mb * expert_share;
    c.expert_extra = ExpertGemmSeconds(arch, eff_row, cal, gpu, peak, tokens_mb * l.ep,
                                       ExpertTensorSplit(l), w.precision, t.e, expert_flops) -
                     expert_flops / c.gemm_rate;
  }
  // Memory-bound elementwise records (norms, activation functions, residual adds, dropout, MoE
  // permutes): their elements per token, `elementwise_traffic` bytes-passes each; backward moves
  // twice the forward's. Full recomputation and the matmul-keeping policy run them again.
  c.bw_bytes = gpu.memory_bandwidth_gbs * 1e9 * eff_row.memory_bw_fraction;
  mb.elementwise_passes =
      3 + (t.rerun == Rerun::kFull || t.rerun == Rerun::kSelectiveMatmuls ? 1 : 0);
  c.passes = mb.elementwise_passes;
  c.nchw_transposes = NchwTransposeTraffic(w, arch, gpu, false);
  c.zero3_hooks =
      t.transformer && l.zero == 3 && t.runner != nullptr && t.runner->zero3_fetches_modules;
  c.modules = c.zero3_hooks ? ParamModulesPerLayer(d, t.lora, w.lora_targets) : 0;
  if (!t.transformer || t.pp == 1) {
    mb.seconds = mb.bubble_stage = c.Seconds(t.stage_layers, true);
    return mb;
  }
  // Pipeline stages: the layers split as evenly as they go, the last stage (which also runs the
  // output head and the loss: Megatron-Core's post_process stage) taking the smaller share when
  // they do not divide. Every stage waits for the slowest in the steady state of 1F1B, and the
  // fill and drain run through the others (Narayanan et al. 2021, 2.2; Megatron-Core's
  // --decoder-last-pipeline-num-layers and torchtitan's per-stage layer counts set the split).
  const double last_layers =
      std::fmod(d.layers, t.pp) == 0 ? d.layers / t.pp : std::floor(d.layers / t.pp);
  mb.bubble_stage = c.Seconds(t.stage_layers, false);
  mb.seconds = std::max(mb.bubble_stage, c.Seconds(last_layers, true));
  return mb;
}

}  // namespace gpuplan::perf::internal
