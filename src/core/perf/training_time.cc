// Training step time: the compute of the micro-batches (training_compute.cc), the pipeline
// bubble, the communication (training_comm.cc), the optimizer step and the offload traffic.
#include <algorithm>
#include <cmath>

#include "perf/training_shape.h"

namespace gpuplan::perf::internal {

// The host's Adam over `params` parameters, seconds. The update streams every state through
// the CPU once, so it is bound by the host's memory bandwidth: cpu_adam_gparams_per_s is the
// rate for mixed-precision AdamW's kMixedAdamBytes per parameter (fp32 master, momentum and
// variance read and written, the 16-bit gradient read and weight written), and states with
// fewer bytes per parameter (bf16 states, no master) stream proportionally faster.
double HostAdamSeconds(double params, double bytes_per_param, const Calibration& cal) {
  constexpr double kMixedAdamBytes = 28;
  return params * bytes_per_param / (kMixedAdamBytes * cal.cpu_adam_gparams_per_s * 1e9);
}

double HostLinkBytesPerS(const Gpu& gpu, const Hardware& hw, const Calibration& cal) {
  const double sharing = std::clamp<double>(hw.gpus_per_node, 1, cal.host_link_gpus);
  return gpu.PcieGbs() * 1e9 * cal.pcie_efficiency / sharing;
}

void TrainingTime(const TrainingShape& t, const TrainingFlops& f, const Workload& w,
                  const ModelArch& arch, const Hardware& hw, const Layout& l,
                  const Calibration& cal, double peak, Estimate& est) {
  const Gpu& gpu = *hw.gpu;
  const MicroBatchCompute mb = MicroBatchSeconds(t, f, w, arch, hw, l, cal, peak);
  const double t_mb = mb.seconds;
  TimeBreakdown& tb = est.time.breakdown;
  const double m = t.m;
  tb.compute = t_mb * m;
  // Pipeline bubble: (pp - 1) micro-batch times per step (GPipe/1F1B; Narayanan et al. 2021,
  // eq. 1) of the stages the fill and drain run through (those without the head); the
  // interleaved schedule with vp model chunks per rank divides it by vp (their 2.2.2: bubble
  // fraction (p - 1) / (v m)).
  tb.pp_bubble = (t.pp - 1) * mb.bubble_stage / t.vp;
  est.time.head_stage_extra =
      t.pp > 1 && mb.bubble_stage > 0 ? std::max(0.0, mb.seconds / mb.bubble_stage - 1) : 0;
  TrainingComm(t, f, mb, hw, l, cal, tb);

  // Optimizer step: memory-bound elementwise update. AdamW mixed precision reads gradient,
  // master, m, v and writes master, m, v and the 16-bit weight: (2+4+4+4) + (4+4+4+2) = 28
  // bytes per parameter (Adam-style kernels, e.g. apex FusedAdam).
  const double grad_b = t.half ? 2 : 4;
  const double bw_bytes = gpu.memory_bandwidth_gbs * 1e9 * t.eff().memory_bw_fraction;
  const double params_local = t.trainable_local / (l.zero >= 1 ? t.shard : 1);
  // Without a master copy the update reads and writes the weights themselves.
  const double weight_bytes = t.mixed ? 2 : 2 * t.e;
  const double per_param =
      grad_b + 2 * (t.master + t.state_bytes) + weight_bytes + (t.lora ? 8 : 0);
  tb.optimizer = params_local * per_param / bw_bytes;
  // Offload. ZeRO-Offload (Ren et al. 2021): gradients to host and updated 16-bit weights back
  // over PCIe each step, and the host's Adam over the node's shards instead of the GPU's. Every
  // GPU of the node moves its share at once, so GPUs behind one PCIe uplink split it.
  const double pcie = HostLinkBytesPerS(gpu, hw, cal);
  if (l.offload != Offload::kNone) {
    tb.optimizer = 0;
    tb.offload = params_local * (grad_b + t.e) / pcie +
                 HostAdamSeconds(params_local * hw.gpus_per_node, per_param, cal);
    if (l.offload == Offload::kParams) {
      // Parameters stream in for every forward and backward pass (and the recompute forward),
      // prefetched behind the micro-batch's compute.
      const double stream = (mb.elementwise_passes - 1) * t.stage_params * t.e / pcie;
      tb.offload += m * std::max(0.0, stream - cal.zero3_overlap * t_mb);
    }
    est.time.offload_states = tb.offload;
  }
  // Paged optimizer states that did not stay on the GPU (training_memory.cc) page in for the
  // update and out again to make room, once per step each way.
  if (PagedStates(w.optimizer) && l.offload == Offload::kNone && est.memory.host_gib > 0) {
    tb.offload += 2 * est.memory.host_gib * kGiB / hw.gpus_per_node / pcie;
  }
  if (l.activation_offload && t.transformer) {
    // Saved activations go out in forward and come back in backward, behind the compute.
    const double moved = 2 * t.layer_activation * t.stage_layers / pcie;
    tb.offload += m * std::max(0.0, moved - cal.zero3_overlap * t_mb);
  }
}

}  // namespace gpuplan::perf::internal
