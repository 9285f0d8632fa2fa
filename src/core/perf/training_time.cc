// Training step time: FLOPs per token, compute of one micro-batch on one stage, and each
// communication part (tensor, context, pipeline, data parallel, offload) with what of it is
// hidden behind compute.
#include <algorithm>
#include <cmath>

#include "perf/training_shape.h"

namespace gpuplan::perf::internal {

TrainingFlops FlopsOf(const TrainingShape& t, const Workload& w, const ModelArch& arch) {
  const Dims& d = t.d;
  TrainingFlops f;
  // Model FLOPs per token: 6 per weight (forward 2, backward 4: input and weight gradients)
  // plus attention 12 L h s (QK^T and AV, forward 4 L h s, counted over the full square as
  // Megatron, PaLM (Chowdhery et al. 2022, App. B) and llm-foundry do). Embedding lookups are
  // free; the output head counts (it is in the params).
  // MoE: the parameters a token uses (top_k routed experts), not all of them.
  const double weights = d.active_params - (t.transformer ? d.embed_params - d.head_params : 0);
  const double attention = t.transformer ? 12 * d.layers * d.attn_dim * t.s : 0;
  // LoRA: the frozen weights need no weight gradient, so backward costs one forward (input
  // gradients only): 2N forward + 2N backward (Hu et al. 2021 train only the adapters), plus
  // 6 per adapter parameter. Attention's backward still computes dQ, dK and dV.
  const double adapters =
      t.lora && t.transformer ? 6 * d.layers * AdapterParamsPerLayer(d, w.lora_rank) : 0;
  const double weight_flops = (t.lora ? 4.0 : 6.0) * weights;
  f.model_per_token = weight_flops + attention + adapters;
  f.attention_per_token = attention;
  f.basis = t.lora ? "4N + 12Lhs attention + 6 x adapter params (frozen base: no weight gradients)"
                   : "6N + 12Lhs attention";
  // Recomputation adds a forward: full recompute repeats all of it (Korthikanti et al. 2022,
  // 5), selective only the attention core (their "selective" recomputes QK^T, softmax, AV).
  const double fwd_w = 2 * weights, fwd_a = attention / 3;
  f.hardware_per_token = f.model_per_token;
  f.attention_hw_per_token = attention;
  if (t.rc == Recompute::kFull)
    f.hardware_per_token += fwd_w + fwd_a;
  if (t.rc != Recompute::kNone) {
    f.hardware_per_token += t.rc == Recompute::kSelective ? fwd_a : 0;
    f.attention_hw_per_token += fwd_a;
  }
  if (!t.transformer && arch.forward_flops_per_sample > 0) {
    const double seq = arch.default_seq_len > 0 ? arch.default_seq_len : t.s;
    f.model_per_token = 3 * arch.forward_flops_per_sample / seq;
    f.basis = "3 x forward FLOPs per sample";
  }
  if (!t.transformer) {
    f.hardware_per_token =
        f.model_per_token * (t.lora ? 4.0 / 6 : 1) * (t.rc == Recompute::kFull ? 4.0 / 3 : 1);
    f.attention_hw_per_token = 0;
  }
  return f;
}

namespace {

// The fraction of one micro-batch's time spent in backward (and the recompute forward that
// runs inside it): what a gradient collective started during backward can hide behind.
double BackwardShare(const TrainingFlops& f, const TrainingShape& t) {
  if (f.hardware_per_token <= 0)
    return 2.0 / 3;
  const double forward =
      f.model_per_token -
      (t.lora ? 2.0 / 4 : 4.0 / 6) * (f.model_per_token - f.attention_per_token) -
      f.attention_per_token * 2 / 3;
  return std::clamp(1 - forward / f.hardware_per_token, 0.0, 1.0);
}

}  // namespace

void TrainingTime(const TrainingShape& t, const TrainingFlops& f, const Workload& w,
                  const ModelArch& arch, const Hardware& hw, const Layout& l,
                  const Calibration& cal, double peak, Estimate& est) {
  const Dims& d = t.d;
  const Gpu& gpu = *hw.gpu;
  const ArchEfficiency eff_row = cal.For(gpu);
  const double e = t.e;
  // --- Compute time of one micro-batch on one stage.
  const double tokens_mb = t.s_local * t.b;
  const double dim = t.transformer ? d.h / t.tp : cal.conv_gemm_dim;
  // A convolution's GEMM has batch x height x width rows: saturated for any real batch.
  const double gemm_rows = t.transformer ? tokens_mb : kSaturatedGemmRows;
  const double gemm_eff = GemmEfficiency(eff_row, cal, gpu, peak, dim, gemm_rows, w.precision, e);
  // Fused attention runs causal (skips the masked half of the counted square: Dao 2023) at
  // the architecture's attention fraction of peak; unfused attention materialises the scores
  // and is memory-bound.
  const double attn_rate =
      t.flash ? 2 * eff_row.attention_fraction : gemm_eff * cal.unfused_attention_factor;
  const double stage_share = t.transformer ? t.stage_layers / d.layers : 1;
  const double gemm_flops_mb =
      (f.hardware_per_token - f.attention_hw_per_token) * tokens_mb * stage_share / t.tp;
  const double attn_flops_mb = f.attention_hw_per_token * tokens_mb * stage_share / t.tp;
  const double peak_flops = peak * 1e12;
  double t_mb = gemm_flops_mb / (peak_flops * gemm_eff) + attn_flops_mb / (peak_flops * attn_rate);
  // MoE: the expert share of the GEMMs runs at the per-expert token count (the ep ranks' tokens
  // together), and every rank waits for the busiest expert (load imbalance).
  if (arch.IsMoe() && t.transformer) {
    const double active = d.active_params - d.embed_params + d.head_params;
    const double expert_share = d.layers * d.active_expert_layer_params / std::max(1.0, active);
    const double eff_expert = ExpertGemmEfficiency(arch, eff_row, cal, gpu, peak,
                                                   tokens_mb * l.ep, w.precision, e);
    t_mb += gemm_flops_mb * expert_share *
            (cal.moe_load_imbalance / (peak_flops * eff_expert) - 1 / (peak_flops * gemm_eff));
  }
  // Memory-bound elementwise kernels (norms, activation functions, residual adds, dropout):
  // bytes per token per layer proportional to (h + ffn); backward moves twice the forward's.
  const double bw_bytes = gpu.memory_bandwidth_gbs * 1e9 * eff_row.memory_bw_fraction;
  const double passes = 3 + (t.rc == Recompute::kFull ? 1 : 0);
  if (t.transformer) {
    // MoE: the permute/unpermute of top_k copies of each token is an h-wide stream per copy.
    t_mb += cal.elementwise_traffic * (d.h * (1 + d.routed_copies) + d.ffn) / t.tp * e *
            tokens_mb * t.stage_layers * passes / bw_bytes;
    // Fixed per-layer cost of each forward/backward pass (launches, framework hooks); MoE
    // layers run more kernels and wait for the dispatch's token counts (a host sync).
    t_mb += (cal.train_layer_overhead_us + cal.moe_layer_overhead_us * d.moe_layer_share) * 1e-6 *
            t.stage_layers * (passes - 1);
  }
  // Non-transformer models (CNNs): the same memory-bound layers over every layer's output
  // elements per sample; with tensor cores they outweigh the convolutions (ResNet-50).
  if (!t.transformer && arch.activation_elements_per_sample > 0) {
    t_mb +=
        cal.elementwise_traffic * arch.activation_elements_per_sample * e * t.b * passes / bw_bytes;
  }
  // QLoRA dequantises every NF4 weight to 16 bits before each GEMM: read 0.5 + write 2 + read
  // 2 bytes per weight per pass (forward, backward, and the recompute forward).
  if (w.method == Method::kQlora)
    t_mb += (passes - 1) * t.stage_layer_params * 4.5 / bw_bytes;

  TimeBreakdown& tb = est.time.breakdown;
  const double m = t.m;
  tb.compute = t_mb * m;
  // Pipeline bubble: (pp - 1) micro-batch times per step (GPipe/1F1B; Narayanan et al. 2021,
  // eq. 1); the interleaved schedule with vp model chunks per rank divides it by vp (their
  // 2.2.2: bubble fraction (p - 1) / (v m)).
  tb.pp_bubble = (t.pp - 1) * t_mb / t.vp;

  const double latency = cal.collective_latency_us * 1e-6;
  // --- Tensor-parallel communication: 2 all-reduces of s b h activations per layer forward and
  // 2 backward (Megatron-LM, Shoeybi et al. 2019, Fig. 4), +2 for a full-recompute forward;
  // sequence parallel replaces each by a reduce-scatter + all-gather of the same volume.
  if (l.tp > 1 && t.transformer) {
    const double bw = GroupBandwidth(hw, cal, l.tp, hw.gpus_per_node);
    const double per_layer = 4 + (t.rc == Recompute::kFull ? 2 : 0);
    tb.tp_comm =
        m * t.stage_layers * per_layer * RingTime(tokens_mb * d.h * e, l.tp, 2, bw, latency);
  }
  // --- Context parallel (ring attention; Liu et al. 2023, Megatron-Core CP): each layer's
  // attention passes the key/value blocks of s/cp tokens around the cp ranks (cp - 1 hops)
  // while computing on the block it holds; backward passes them again with their gradients
  // (twice the bytes, twice the attention work). Only what attention cannot hide is exposed.
  if (l.cp > 1 && t.transformer) {
    const double bw = GroupBandwidth(hw, cal, l.tp * l.cp, hw.gpus_per_node);
    const double block = 2 * tokens_mb * d.kvd / t.tp * e;
    const double comm = (t.cp - 1) * (block / bw + latency);
    const double attention = 4 * d.h * t.s * tokens_mb / t.tp / (peak_flops * attn_rate);
    const double exposed = std::max(0.0, comm - attention);
    tb.cp_comm = m * t.stage_layers * (3 + (t.rc != Recompute::kNone ? 1 : 0)) * exposed;
  }
  // --- Pipeline point-to-point: each micro-batch sends s b h activations forward and their
  // gradient back at each stage boundary; the slowest boundary crosses nodes when stages do.
  // With vp chunks per rank each micro-batch crosses vp times as many boundaries.
  if (l.pp > 1 && t.transformer) {
    const int stage_span = l.tp * l.cp * l.dp;
    const double bw = GroupBandwidth(hw, cal, stage_span * 2, hw.gpus_per_node);
    tb.pp_comm = 2 * m * t.vp * tokens_mb * d.h / t.tp * e / bw;
  }
  // --- MoE token dispatch and combine over the ep group: 2 all-to-alls per MoE layer forward,
  // 2 backward (+2 for a full-recompute forward), not overlapped beyond moe_a2a_overlap.
  if (t.transformer) {
    const double a2a_passes = 4 + (t.rc == Recompute::kFull ? 2 : 0);
    tb.ep_comm = m * MoeAllToAllSeconds(d, l, hw, cal, tokens_mb / (l.sequence_parallel ? t.tp : 1),
                                        t.stage_layers * d.moe_layer_share, a2a_passes, e);
  }
  // --- Data-parallel gradient synchronisation (over dp x cp ranks holding the same weights).
  const double grad_b = t.half ? 2 : 4;
  const double zero_opt = l.zero >= 1 ? t.shard : 1;
  const double backward_mb = t_mb * BackwardShare(f, t);
  const int n = l.dp * l.cp;
  if (n > 1) {
    const double bw = GroupBandwidth(hw, cal, hw.Gpus(), hw.gpus_per_node);  // strided groups
    const double grad_bytes = t.trainable_local * grad_b;
    if (l.zero >= 3) {
      // FSDP FULL_SHARD per micro-batch: all-gather parameters for forward and backward, and
      // reduce-scatter gradients (Zhao et al. 2023, PyTorch FSDP, 3.2), prefetched behind that
      // micro-batch's compute.
      const double comm = 2 * RingTime(t.stage_params * e, n, 1, bw, latency) +
                          RingTime(grad_bytes, n, 1, bw, latency);
      tb.dp_comm = m * (comm - std::min(comm * cal.zero3_overlap, t_mb));
    } else if (l.zero == 2) {
      // ZeRO-2 reduce-scatters each micro-batch's gradients during its backward (DeepSpeed
      // overlap_comm), then all-gathers the updated parameters after the step (not hidden).
      const double rs = RingTime(grad_bytes, n, 1, bw, latency);
      tb.dp_comm = m * (rs - std::min(rs * cal.dp_overlap, backward_mb)) +
                   RingTime(t.trainable_local * e, n, 1, bw, latency);
    } else {
      // DDP (and ZeRO-1) all-reduces once per optimizer step, bucketed as gradients become
      // ready: only the last micro-batch's backward can hide it (PyTorch DDP no_sync for the
      // accumulation steps; Li et al. 2020, 3.2.3).
      const double comm = RingTime(grad_bytes, n, 2, bw, latency);
      tb.dp_comm = comm - std::min(comm * cal.dp_overlap, backward_mb);
    }
  }
  // --- Optimizer step: memory-bound elementwise update. AdamW mixed precision reads gradient,
  // master, m, v and writes master, m, v and the 16-bit weight: (2+4+4+4) + (4+4+4+2) = 28
  // bytes per parameter (Adam-style kernels, e.g. apex FusedAdam).
  const double params_local = t.trainable_local / zero_opt;
  {
    const double per_param =
        grad_b + 2 * (t.master + t.state_bytes) + (t.mixed ? 2 : 0) + (t.lora ? 8 : 0);
    tb.optimizer = params_local * per_param / bw_bytes;
  }
  // --- Offload. ZeRO-Offload (Ren et al. 2021): gradients to host and updated 16-bit weights
  // back over PCIe each step, and the host's Adam over the node's shards instead of the GPU's.
  const double pcie = gpu.PcieGbs() * 1e9 * cal.pcie_efficiency;
  if (l.offload != Offload::kNone) {
    tb.optimizer = 0;
    tb.offload = params_local * (grad_b + e) / pcie +
                 params_local * hw.gpus_per_node / (cal.cpu_adam_gparams_per_s * 1e9);
    if (l.offload == Offload::kParams) {
      // Parameters stream in for every forward and backward pass (and the recompute forward),
      // prefetched behind the micro-batch's compute.
      const double stream = (passes - 1) * t.stage_params * e / pcie;
      tb.offload += m * std::max(0.0, stream - cal.zero3_overlap * t_mb);
    }
  }
  if (l.activation_offload && t.transformer) {
    // Saved activations go out in forward and come back in backward, behind the compute.
    const double moved = 2 * t.layer_activation * t.stage_layers / pcie;
    tb.offload += m * std::max(0.0, moved - cal.zero3_overlap * t_mb);
  }
}

}  // namespace gpuplan::perf::internal
