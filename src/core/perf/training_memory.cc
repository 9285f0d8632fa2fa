// Training memory on the busiest GPU: model states under ZeRO and offload, LoRA adapters,
// saved activations under pipelining, interleaving, context parallelism and recomputation,
// transients; and the host RAM that offloading needs.
#include <algorithm>
#include <cmath>

#include "gpuplan/framework.h"
#include "perf/training_shape.h"

namespace gpuplan::perf::internal {

namespace {

// What ZeRO divides the optimizer states by (stage 1 and up shard them over dp x cp).
double StateShard(const TrainingShape& t, const Layout& l) {
  return l.zero >= 1 ? t.zero_shard : 1;
}

// Weights, gradients, optimizer states and adapters on the GPU (bytes, into `mem`), and what
// offloading moves to host RAM (bytes per GPU, returned).
double ModelStates(const TrainingShape& t, const Workload& w, const Layout& l,
                   MemoryBreakdown& mem) {
  const Dims& d = t.d;
  const double e = t.e;
  const double zero_opt = StateShard(t, l);
  const double zero_grad = l.zero >= 2 ? t.zero_shard : 1;
  const double zero_w = l.zero >= 3 ? t.zero_shard : 1;
  double host = 0;
  // A framework that keeps fp32 main gradients (Megatron-Core) holds them whole in place of the
  // 16-bit gradients and the optimizer's fp32 partition (data/frameworks.csv main_grads).
  const bool fp32_main_grads = t.mixed && t.runner != nullptr && t.runner->fp32_main_grads;
  if (!t.lora) {
    mem.weights = t.stage_params * e / zero_w;
    mem.gradients = t.stage_params * (fp32_main_grads ? 4 : e) / zero_grad;
    mem.optimizer = t.stage_params * (t.master + t.state_bytes) / zero_opt;
    // ZeRO's mixed-precision optimizer (DeepSpeed stages 1-3) also keeps the fp32 gradient
    // of its partition for accumulation and clipping: 4 bytes per parameter / dp.
    if (l.zero >= 1 && t.mixed && !fp32_main_grads)
      mem.optimizer += t.stage_params * 4 / zero_opt;
  } else {
    // Frozen base. QLoRA quantises the transformer layers' linear weights to NF4 and keeps
    // embeddings, head and norms in 16 bits (Dettmers et al. 2023).
    const bool nf4 = w.method == Method::kQlora || w.weight_bits == 4;
    const double layer_bytes =
        (w.method == Method::kQlora || w.weight_bits > 0)
            ? QuantBits(w.weight_bits > 0 ? w.weight_bits : 4, WeightFormat::kInt, nf4) / 8
            : e;
    mem.weights =
        (t.stage_layer_params * layer_bytes + (t.stage_params - t.stage_layer_params) * e) / zero_w;
    // Adapters train in fp32 (PEFT casts adapter weights to fp32 by default): weight 4 +
    // gradient 4 + AdamW states 8 bytes per parameter.
    mem.adapters = t.adapter_local * (4 + 4 + t.state_bytes) / zero_opt;
    if (w.train_embeddings) {
      // PEFT modules_to_save: a trainable copy of the embedding and head (16-bit weight and
      // gradient) with AdamW states in fp32.
      mem.adapters += t.stage_embed / t.tp * (e + e + t.state_bytes) / zero_opt;
    }
  }
  // Optimizer in backward (LOMO, Lv et al. 2023; torchtune optimizer_in_bwd): each parameter
  // is stepped as soon as its gradient exists, so at most one layer's gradients are held.
  if (l.optimizer_in_backward && !t.lora) {
    mem.gradients = std::min(mem.gradients, d.layer_params / t.tp * e);
  }
  // Offloaded optimizer (ZeRO-Offload, Ren et al. 2021): fp32 master weights, optimizer states
  // and the gradients live in host RAM and the host runs Adam; the GPU keeps the 16-bit
  // weights. Offloaded parameters (ZeRO-Infinity / FSDP CPU offload) move the weights too;
  // the GPU holds the layer in use and the prefetched next one. Megatron-Core's CPU offload
  // (--optimizer-cpu-offload, HybridDeviceOptimizer) moves only the optimizer: the fp32 main
  // gradients stay in the GPU's gradient buffer and the host gets a copy of its shard each step.
  //
  // The gradients leave the GPU bucket by bucket during backward (ZeRO-Offload streams each
  // reduced bucket to the host) only where ZeRO partitions them, stage 2 and up, or where there
  // is no other replica to wait for (one data-parallel rank: ZeRO-Offload's single GPU); under
  // ZeRO 0-1 over several replicas every rank holds the whole gradient until the step's
  // all-reduce (Rajbhandari et al. 2020, P_os against P_os+g), and offloading the optimizer
  // does not free it.
  if (l.offload != Offload::kNone) {
    const bool partitioned = l.zero >= 2 || t.zero_shard <= 1;
    const bool grads_move = !t.lora && !fp32_main_grads && partitioned;
    host += mem.optimizer + (grads_move ? mem.gradients : 0);
    if (fp32_main_grads && !t.lora)
      host += t.stage_params * 4 / zero_opt;
    mem.optimizer = 0;
    if (grads_move)
      mem.gradients = 0;
    if (l.offload == Offload::kParams && t.transformer) {
      host += mem.weights;
      mem.weights = std::min(mem.weights, 2 * d.layer_params / t.tp * e);
    }
  }
  return host;
}

// Saved activations of the in-flight micro-batches (bytes, into `mem`) and what activation
// offloading keeps in host RAM (returned). With 1F1B pipelining the first stage holds
// min(pp, m) micro-batches of its layers (Narayanan et al. 2021, 2.2.1; Korthikanti et al.
// 2022, 4.2); the interleaved schedule holds (1 + (pp - 1) / (pp vp)) times that (Korthikanti
// et al. 2022, 4.2.2).
double Activations(const TrainingShape& t, const Layout& l, MemoryBreakdown& mem) {
  double in_flight = l.pp > 1 ? std::min<double>(t.pp, t.m) : 1;
  if (l.vp > 1)
    in_flight *= 1 + (t.pp - 1) / (t.pp * t.vp);
  const double activations = t.layer_activation * (t.transformer ? t.stage_layers : 1) * in_flight;
  if (l.activation_offload && t.transformer) {
    // Offloaded activations: copied to host as each layer finishes forward and back before its
    // backward; the GPU keeps the layer in flight and the one being copied.
    mem.activations = std::min(activations, 2 * t.layer_activation);
    return activations;
  }
  mem.activations = activations;
  return 0;
}

// Bytes the loss holds at its peak per token of the last stage (CrossEntropy,
// gpuplan/framework.h): per logit, the 16-bit logits (e) and what the loss adds to them; a fused
// linear loss never holds the logits whole, only a chunk about the size of the hidden states in
// fp32 beside the hidden states' gradient it computes in forward.
double LossBytesPerToken(CrossEntropy c, double e, double vocab, double hidden) {
  switch (c) {
    case CrossEntropy::kChunked:
    case CrossEntropy::kFused:
      return vocab * (e + 4);
    case CrossEntropy::kNative:
      return vocab * 4 * e;
    case CrossEntropy::kFusedLinear:
      return hidden * (e + 8);
    case CrossEntropy::kFp32:
      break;
  }
  return vocab * (e + 12);
}

// Transients, bytes: what lives at the two peaks of a step beside the model states and the
// saved activations. At the loss (forward's end), the logits and what the loss holds of them
// (LossBytesPerToken: the workload's cross_entropy, else its framework's, else an fp32 upcast
// as Transformers' ForCausalLMLoss computes it). In backward, one layer's full activations
// when it is recomputed; and the gradients, which at the loss exist only when earlier
// micro-batches of the step accumulated into them or the framework keeps a gradient buffer
// (Megatron-Core's fp32 main grads): with one micro-batch per step the loss peak finds them
// freed (PyTorch's zero_grad sets them to None). The larger peak is the step's. With ZeRO-3
// both peaks hold the gathered parameters of the layer in use and the prefetched next (PyTorch
// FSDP forward/backward prefetch).
double Transients(const TrainingShape& t, const Workload& w, const Layout& l,
                  const Calibration& cal, double gradient_bytes, double& loss_bytes) {
  loss_bytes = 0;
  if (!t.transformer)
    return 0;
  const Dims& d = t.d;
  const CrossEntropy loss =
      w.cross_entropy.value_or(t.runner != nullptr ? t.runner->cross_entropy : CrossEntropy::kFp32);
  const double logits =
      cal.transient_factor * t.s_local * t.b / t.tp * LossBytesPerToken(loss, t.e, d.vocab, d.h);
  loss_bytes = logits;
  const bool gradients_held = t.m > 1 || (t.runner != nullptr && t.runner->fp32_main_grads);
  const double at_loss = logits - (gradients_held ? 0 : gradient_bytes);
  double in_backward = 0;
  if (t.rc != Recompute::kNone) {
    in_backward =
        LayerActivationBytes(t.ops(), t.s_local * t.b, l.tp, l.sequence_parallel, Rerun::kNone);
  }
  double transient = std::max(at_loss, in_backward);
  if (l.zero >= 3 && t.shard > 1)
    transient += 2 * d.layer_params / t.tp * t.e;
  return transient;
}

}  // namespace

void TrainingMemory(const TrainingShape& t, const Workload& w, const Hardware& hw, const Layout& l,
                    const Calibration& cal, Estimate& est) {
  MemoryBreakdown& mem = est.memory.breakdown;
  double host = ModelStates(t, w, l, mem);  // bytes per GPU held in host RAM
  host += Activations(t, l, mem);
  mem.activations /= kGiB;
  double loss_bytes = 0;
  mem.transient = Transients(t, w, l, cal, mem.gradients, loss_bytes) / kGiB;
  est.memory.loss_gib = loss_bytes / kGiB;
  mem.weights /= kGiB;
  mem.gradients /= kGiB;
  mem.optimizer /= kGiB;
  mem.adapters /= kGiB;
  // Paged optimizer states live in CUDA unified memory: they stay on the GPU while it has room
  // and the driver evicts pages to host RAM once it is full (bitsandbytes docs, "Paged
  // optimizers"). The rule: everything else is placed first; the states take what is left of
  // the GPU's memory, the rest sits in host RAM (and pages in and out each step,
  // training_time.cc). Unified memory is outside PyTorch's caching allocator: the resident
  // states occupy the GPU (per_gpu_gib, the fit) but are neither fragmented by it nor in what
  // torch.cuda.max_memory_allocated/reserved report (allocated_gib, reserved_gib).
  const bool paged = PagedStates(w.optimizer) && l.offload == Offload::kNone;
  const double paged_gib =
      paged && !t.lora ? t.stage_params * t.state_bytes / StateShard(t, l) / kGiB : 0;
  mem.optimizer -= paged_gib;
  FinishMemory(est, hw, cal);
  if (paged_gib > 0) {
    // The room left at the workload's confidence (more pages move when the rest is larger).
    const double resident =
        std::clamp(est.memory.capacity_gib - est.memory.checked_gib, 0.0, paged_gib);
    mem.optimizer += resident;
    est.memory.per_gpu_gib += resident;
    est.memory.checked_gib += resident;
    host += (paged_gib - resident) * kGiB;
  }
  // Host RAM of the node: every GPU's offloaded share, against what the instance leaves free.
  est.memory.host_gib = host * hw.gpus_per_node / kGiB;
  FitHost(est.memory, hw, cal);
}

}  // namespace gpuplan::perf::internal
