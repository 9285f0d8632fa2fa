// The training estimate: memory, step time and throughput of one optimizer step. The shape of
// the step is computed once here; memory (training_memory.cc) and time (training_time.cc)
// read it.
#include <algorithm>
#include <cmath>

#include "gpuplan/framework.h"
#include "perf/training_shape.h"

namespace gpuplan::perf::internal {

namespace {

OpContext ContextOf(const Workload& w, double seq_local, bool flash) {
  OpContext c;
  c.seq = w.seq_len;
  c.seq_local = seq_local;
  c.element_bytes = ElementBytes(w.precision);
  c.flash = flash;
  c.lora = TrainsAdapters(w);
  c.lora_rank = w.lora_rank;
  c.lora_targets = w.lora_targets;
  c.lora_dropout = w.lora_dropout;
  c.fp32_adapters = MixedPrecision(w);
  return c;
}

}  // namespace

TrainingInvariants InvariantsOf(const Workload& w, const ModelArch& arch, const Gpu& gpu,
                                const Calibration& cal, int cp, bool flash) {
  TrainingInvariants inv;
  inv.d = DimsOf(arch);
  inv.eff = cal.For(gpu);
  inv.cp = cp;
  inv.flash = flash;
  BuildOpRecords(arch, inv.d, ContextOf(w, static_cast<double>(w.seq_len) / cp, flash), inv.ops);
  Layout l;
  l.cp = cp;
  l.flash_attention = flash;
  for (Rerun rc : {Rerun::kNone, Rerun::kSelective, Rerun::kFull, Rerun::kSelectiveMatmuls}) {
    l.recompute = RecomputeOf(rc);
    TrainingShape t = ShapeOf(w, arch, l, inv);
    t.rerun = rc;
    inv.flops[static_cast<size_t>(rc)] = FlopsOf(t, arch);
  }
  return inv;
}

TrainingShape ShapeOf(const Workload& w, const ModelArch& arch, const Layout& l,
                      const TrainingInvariants& inv) {
  TrainingShape t;
  t.d = inv.d;
  t.ops_ = &inv.ops;
  t.eff_ = &inv.eff;
  const Dims& d = t.d;
  t.transformer = arch.IsTransformer();
  t.lora = TrainsAdapters(w);
  t.e = ElementBytes(w.precision);
  t.half = t.e == 2;
  t.mixed = MixedPrecision(w);
  t.flash = l.flash_attention && w.flash_attention;
  t.a2a_overlap = w.moe_a2a_overlap;
  t.tp_overlap = w.tp_comm_overlap;
  t.rc = l.recompute;
  t.runner = FrameworkFor(w.frameworks, l);
  t.rerun = RerunOf(l.recompute, t.runner != nullptr && t.runner->selective_keeps_matmuls);
  t.s = w.seq_len;
  t.s_local = t.s / l.cp;
  t.b = l.micro_batch;
  t.tp = l.tp;
  t.cp = l.cp;
  t.pp = l.pp;
  t.vp = l.vp;
  t.dp = l.dp;
  // Context-parallel ranks hold the same weights: gradients are reduced and ZeRO states
  // sharded over dp x cp (Megatron-Core's distributed optimizer does so).
  t.shard = t.dp * t.cp;
  // Micro-batches per step (global = micro x dp x accumulation).
  t.m = std::max(1, static_cast<int>(std::ceil(static_cast<double>(w.global_batch) /
                                               (static_cast<double>(l.micro_batch) * l.dp))));
  // Parameters held by the busiest pipeline stage (the first: its layers plus the embedding;
  // Megatron gives the last stage the head, so with pp > 1 each end holds one vocab x h table).
  t.stage_layers = t.transformer ? std::ceil(d.layers / t.pp) : 0;
  t.stage_embed = !t.transformer ? 0 : (l.pp > 1 ? d.vocab * d.h : d.embed_params);
  // Routed experts are sharded over ExpertShards (ep x tp) instead of tp.
  const double stage_experts = t.stage_layers * d.expert_layer_params / ExpertShards(l);
  t.stage_params =
      t.transformer
          ? (t.stage_layers * (d.layer_params - d.expert_layer_params) + t.stage_embed) / t.tp +
                stage_experts
          : d.params;
  t.stage_layer_params =
      t.stage_layers * (d.layer_params - d.expert_layer_params) / t.tp + stage_experts;
  const double expert_frac = t.stage_params > 0 ? stage_experts / t.stage_params : 0;
  const double expert_replicas = std::max(1.0, t.shard * t.tp / ExpertShards(l));
  t.zero_shard = 1 / ((1 - expert_frac) / t.shard + expert_frac / expert_replicas);
  // Model states (ZeRO, Rajbhandari et al. 2020, 3: mixed-precision AdamW keeps 2-byte weights
  // and gradients plus 12 bytes of fp32 master weights, momentum and variance = 16 bytes/param).
  t.master = t.mixed ? 4 : 0;
  const double state_e = t.half && !w.master_weights ? t.e : 4;  // bytes per optimizer state
  switch (w.optimizer) {
    case Optimizer::kAdamw:
      t.state_bytes = 2 * state_e;
      break;  // m and v
    // 8-bit m and v, block-wise quantised (Dettmers et al. 2022): one byte each plus one fp32
    // absmax per 256-element block of each (bitsandbytes Optimizer2State: blocksize 256).
    case Optimizer::kAdamw8bit:
    case Optimizer::kPagedAdamw8bit:
      t.state_bytes = 2 * (1 + 4.0 / 256);
      break;
    // bitsandbytes' 32-bit optimizers keep fp32 m and v whatever the parameters' dtype
    // (Optimizer2State.init_state: optim_bits 32 -> torch.float32 buffers).
    case Optimizer::kPagedAdamw:
      t.state_bytes = 2 * 4;
      break;
    case Optimizer::kSgd:
      t.state_bytes = state_e;
      break;  // momentum
    // Factored second moment, O(rows + cols) per matrix (Shazeer & Stern 2018): ~0 per param.
    case Optimizer::kAdafactor:
      t.state_bytes = 0;
      break;
  }
  if (t.lora) {
    t.adapter_local = t.stage_layers * AdapterParamsPerLayer(d, w.lora_rank, w.lora_targets) / t.tp;
    t.trainable_local = t.adapter_local + (w.train_embeddings ? t.stage_embed / t.tp : 0);
  } else {
    t.trainable_local = t.stage_params;
  }
  // A zoo CNN, UNet or DiT: backward keeps its layer outputs, one copy each, for the micro-batch
  // (SampleActivationElements); one "layer" holds them all.
  t.layer_activation = t.transformer ? LayerActivationBytes(t.ops(), t.s_local * t.b, l.tp,
                                                            l.sequence_parallel, t.rerun)
                                     : SampleActivationElements(arch) * t.e * t.b;
  return t;
}

namespace {

// What the pipeline schedule and the attention kernel need of the layout.
Status CheckSchedule(const TrainingShape& t, const Layout& l) {
  if (l.cp > 1 && !t.flash) {
    return Status::InvalidArgument(
        "layout: context parallelism (cp > 1) needs flash attention (ring attention passes "
        "key/value blocks between fused attention kernels)");
  }
  if (l.vp > 1) {
    // Uneven chunks are allowed (Megatron-Core's --decoder-first/last-pipeline-num-layers and
    // pipeline layouts: Qwen3-235B's 94 layers over pp 8 x vp 4); the fullest stage, ceil(layers
    // / pp) layers, sets the pace. More virtual stages than layers is refused (CheckLayout).
    if (t.m % l.pp != 0) {
      return Status::InvalidArgument(
          "layout: interleaved pipeline needs the micro-batches per step (" + std::to_string(t.m) +
          ") to be a multiple of pp (" + std::to_string(l.pp) +
          ") (Megatron-LM's interleaved 1F1B schedule)");
    }
  }
  if (l.optimizer_in_backward && t.m > 1) {
    return Status::InvalidArgument(
        "layout: optimizer-in-backward steps each parameter during backward, so it cannot "
        "accumulate gradients over " +
        std::to_string(t.m) + " micro-batches (set micro_batch x dp = global_batch)");
  }
  return Status::Ok();
}

[[gnu::noinline]] Result<Estimate> EstimateTrainingWithOwnInvariants(
    const Workload& w, const ModelArch& arch, const Hardware& hw, const Layout& l,
    const Calibration& cal, double peak, bool memory_only) {
  const TrainingInvariants own =
      InvariantsOf(w, arch, *hw.gpu, cal, l.cp, l.flash_attention && w.flash_attention);
  return EstimateTraining(w, arch, hw, l, cal, peak, &own, memory_only);
}

}  // namespace

Result<Estimate> EstimateTraining(const Workload& w, const ModelArch& arch, const Hardware& hw,
                                  const Layout& l, const Calibration& cal, double peak,
                                  const TrainingInvariants* shared, bool memory_only) {
  const bool flash = l.flash_attention && w.flash_attention;
  // Invariants made for another cp or attention kernel would misstate the records: build them
  // (out of line: they are kilobytes, and the layout search's estimates share theirs).
  if (!shared || shared->cp != l.cp || shared->flash != flash)
    return EstimateTrainingWithOwnInvariants(w, arch, hw, l, cal, peak, memory_only);
  const TrainingShape t = ShapeOf(w, arch, l, *shared);
  if (Status s = CheckSchedule(t, l); !s.ok())
    return s;
  Estimate est;
  est.grad_accum = t.m;
  TrainingMemory(t, w, hw, l, cal, est);
  if (memory_only)
    return est;
  const TrainingFlops& f = shared->flops[static_cast<size_t>(t.rerun)];
  est.flops_per_token = f.model_per_token;
  est.attention_flops_per_token = f.attention_per_token;
  est.hardware_flops_per_token = f.hardware_per_token;
  est.hardware_attention_flops_per_token = f.attention_hw_per_token;
  est.mfu_basis = f.basis;
  TrainingTime(t, f, w, arch, hw, l, cal, peak, est);

  const TimeBreakdown& tb = est.time.breakdown;
  est.time.step_s = tb.compute + tb.pp_bubble + tb.tp_comm + tb.pp_comm + tb.dp_comm +
                    tb.optimizer + tb.offload + tb.data + tb.cp_comm + tb.ep_comm;
  const double tokens_step_gpu = static_cast<double>(t.m) * l.micro_batch * l.dp * t.s / hw.Gpus();
  est.throughput.tokens_per_s_per_gpu = tokens_step_gpu / est.time.step_s;
  est.throughput.samples_per_s_per_gpu = est.throughput.tokens_per_s_per_gpu / t.s;
  est.throughput.tflops_per_gpu = est.throughput.tokens_per_s_per_gpu * f.model_per_token / 1e12;
  est.throughput.hardware_tflops_per_gpu =
      est.throughput.tokens_per_s_per_gpu * f.hardware_per_token / 1e12;
  est.throughput.mfu = est.throughput.tflops_per_gpu / peak;
  return est;
}

}  // namespace gpuplan::perf::internal
