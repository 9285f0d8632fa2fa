// The training estimate: memory, step time and throughput of one optimizer step.
#include <algorithm>
#include <cmath>

#include "core/perf/internal.h"

namespace gpuplan::perf::internal {

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
  const int m = std::max(
      1, static_cast<int>(std::ceil(static_cast<double>(w.global_batch) / (l.micro_batch * l.dp))));
  est.grad_accum = m;

  // --- Parameters held by the busiest pipeline stage (the first: its layers plus the
  // embedding; Megatron gives the last stage the head, so with pp > 1 each end holds one
  // vocab x h table).
  const double stage_layers = transformer ? std::ceil(d.layers / pp) : 0;
  const double stage_embed = !transformer ? 0 : (l.pp > 1 ? d.vocab * d.h : d.embed_params);
  const double stage_params =
      transformer ? (stage_layers * d.layer_params + stage_embed) / tp : d.params;
  const double stage_layer_params = stage_layers * d.layer_params / tp;

  // --- Memory: model states (ZeRO, Rajbhandari et al. 2020, 3: mixed-precision AdamW keeps
  // 2-byte weights and gradients plus 12 bytes of fp32 master weights, momentum and variance
  // = 16 bytes/param; K = 12 for Adam).
  const bool half = e == 2;
  // Mixed precision keeps an fp32 master copy and fp32 states; pure 16-bit training keeps
  // neither (states in the compute precision).
  const bool mixed = half && w.master_weights;
  const double master = mixed ? 4 : 0;
  const double state_e = half && !w.master_weights ? e : 4;  // bytes per optimizer state
  double state_bytes = 0;                                    // per trainable parameter
  switch (w.optimizer) {
    case Optimizer::kAdamw:
      state_bytes = 2 * state_e;
      break;  // m and v
    case Optimizer::kAdamw8bit:
      state_bytes = 2;
      break;  // 8-bit m and v (Dettmers et al. 2022)
    case Optimizer::kSgd:
      state_bytes = state_e;
      break;  // momentum
    // Factored second moment, O(rows + cols) per matrix (Shazeer & Stern 2018): ~0 per param.
    case Optimizer::kAdafactor:
      state_bytes = 0;
      break;
  }
  MemoryBreakdown& mem = est.memory.breakdown;
  const double zero_opt = l.zero >= 1 ? dp : 1;
  const double zero_grad = l.zero >= 2 ? dp : 1;
  const double zero_w = l.zero >= 3 ? dp : 1;
  double trainable_local = 0;  // trainable parameters on this GPU before ZeRO sharding
  if (!lora) {
    mem.weights = stage_params * e / zero_w;
    mem.gradients = stage_params * e / zero_grad;
    mem.optimizer = stage_params * (master + state_bytes) / zero_opt;
    // ZeRO's mixed-precision optimizer (DeepSpeed stages 1-3) also keeps the fp32 gradient
    // of its partition for accumulation and clipping: 4 bytes per parameter / dp.
    if (l.zero >= 1 && mixed)
      mem.optimizer += stage_params * 4 / zero_opt;
    trainable_local = stage_params;
  } else {
    // Frozen base. QLoRA quantises the transformer layers' linear weights to NF4 and keeps
    // embeddings, head and norms in 16 bits (Dettmers et al. 2023).
    const bool nf4 = w.method == Method::kQlora || w.weight_bits == 4;
    const double layer_bytes = (w.method == Method::kQlora || w.weight_bits > 0)
                                   ? QuantBits(w.weight_bits > 0 ? w.weight_bits : 4, nf4) / 8
                                   : e;
    mem.weights =
        (stage_layer_params * layer_bytes + (stage_params - stage_layer_params) * e) / zero_w;
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
  const double layer_act = transformer ? LayerActivationBytes(d, s, b, e, l.tp, l.sequence_parallel,
                                                              flash, rc, arch.dropout)
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
    if (l.zero >= 3 && dp > 1)
      transient += 2 * d.layer_params / tp * e;
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
  const double weight_flops_tok =
      6 * (d.params - (transformer ? d.embed_params - d.head_params : 0));
  const double attn_flops_tok = transformer ? 12 * d.layers * d.h * s : 0;
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
  if (rc == Recompute::kFull)
    hw_flops_tok += fwd_w + fwd_a;
  if (rc == Recompute::kSelective)
    hw_flops_tok += fwd_a;
  if (!transformer)
    hw_flops_tok = model_flops_tok * lora_scale * (rc == Recompute::kFull ? 4.0 / 3 : 1);
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
  const double attn_rate =
      flash ? 2 * eff_row.attention_fraction : gemm_eff * cal.unfused_attention_factor;
  const double stage_share = transformer ? stage_layers / d.layers : 1;
  const double gemm_flops_mb =
      (hw_flops_tok - (attn_flops_tok + (rc != Recompute::kNone ? fwd_a : 0))) * tokens_mb *
      stage_share / tp;
  const double attn_flops_mb =
      (attn_flops_tok + (rc != Recompute::kNone ? fwd_a : 0)) * tokens_mb * stage_share / tp;
  const double peak_flops = peak * 1e12;
  double t_mb = gemm_flops_mb / (peak_flops * gemm_eff) + attn_flops_mb / (peak_flops * attn_rate);
  // Memory-bound elementwise kernels (norms, activation functions, residual adds, dropout):
  // bytes per token per layer proportional to (h + ffn); backward moves twice the forward's.
  const double bw_bytes = gpu.memory_bandwidth_gbs * 1e9 * eff_row.memory_bw_fraction;
  const double passes = 3 + (rc == Recompute::kFull ? 1 : 0);
  if (transformer) {
    t_mb += cal.elementwise_traffic * (d.h + d.ffn) / tp * e * tokens_mb * stage_layers * passes /
            bw_bytes;
    // Fixed per-layer cost of each forward/backward pass (launches, framework hooks).
    t_mb += cal.train_layer_overhead_us * 1e-6 * stage_layers * (passes - 1);
  }
  // Non-transformer models (CNNs): the same memory-bound layers over every layer's output
  // elements per sample; with tensor cores they outweigh the convolutions (ResNet-50).
  if (!transformer && arch.activation_elements_per_sample > 0) {
    t_mb +=
        cal.elementwise_traffic * arch.activation_elements_per_sample * e * b * passes / bw_bytes;
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
  tb.pp_bubble = (pp - 1) * t_mb;

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
    tb.pp_comm = 2 * m * s * b * d.h / tp * e / bw;
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
    const double per_param = grad_b + 2 * (master + state_bytes) + (mixed ? 2 : 0) + (lora ? 8 : 0);
    const double params_local = trainable_local / zero_opt;
    tb.optimizer =
        params_local * per_param / (gpu.memory_bandwidth_gbs * 1e9 * eff_row.memory_bw_fraction);
  }
  // Offloaded optimizer (ZeRO-Offload, Ren et al. 2021): gradients to host and updated 16-bit
  // weights back over PCIe each step.
  if (l.offload == Offload::kOptimizer) {
    const double params_local = trainable_local / zero_opt;
    tb.offload = params_local * (e + e) / (gpu.PcieGbs() * 1e9 * cal.pcie_efficiency);
    mem.optimizer = 0;
    FinishMemory(est, hw, cal);
  }

  est.time.step_s = tb.compute + tb.pp_bubble + tb.tp_comm + tb.pp_comm + tb.dp_comm +
                    tb.optimizer + tb.offload + tb.data + tb.cp_comm + tb.ep_comm;
  const double tokens_step_gpu = static_cast<double>(m) * l.micro_batch * l.dp * s / hw.Gpus();
  est.throughput.tokens_per_s_per_gpu = tokens_step_gpu / est.time.step_s;
  est.throughput.samples_per_s_per_gpu = est.throughput.tokens_per_s_per_gpu / s;
  est.throughput.tflops_per_gpu = est.throughput.tokens_per_s_per_gpu * model_flops_tok / 1e12;
  est.throughput.hardware_tflops_per_gpu =
      est.throughput.tokens_per_s_per_gpu * hw_flops_tok / 1e12;
  est.throughput.mfu = est.throughput.tflops_per_gpu / peak;
  return est;
}

}  // namespace gpuplan::perf::internal
