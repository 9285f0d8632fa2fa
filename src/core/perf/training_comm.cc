// Training communication: the layers' collective records (tensor, context and expert parallel)
// per micro-batch, the pipeline's point-to-point traffic and the data-parallel gradient
// synchronisation, each with what of it is hidden behind compute.
#include <algorithm>
#include <cmath>

#include "perf/training_shape.h"

namespace gpuplan::perf::internal {
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

// Elements per token one collective record of `group` sends (records of a group share it).
double CollectiveElements(const OpRecords& r, OpGroup group) {
  for (int i = 0; i < r.layer_ops; ++i) {
    if (r.layer[i].kind == OpKind::kCollective && r.layer[i].group == group)
      return r.layer[i].moved;
  }
  return 0;
}

// Data-parallel gradient synchronisation over the dp x cp ranks that hold the same weights.
double DataParallelSeconds(const TrainingShape& t, double t_mb, double backward_mb,
                           const Hardware& hw, const Layout& l, const Calibration& cal) {
  const int n = l.dp * l.cp;
  if (n <= 1)
    return 0;
  const double latency = cal.collective_latency_us * 1e-6;
  const double bw = GroupBandwidth(hw, cal, hw.Gpus(), hw.gpus_per_node);  // strided groups
  const double grad_bytes = t.trainable_local * (t.half ? 2 : 4);
  const double m = t.m;
  if (l.zero >= 3) {
    // FSDP FULL_SHARD per micro-batch: all-gather parameters for forward and backward, and
    // reduce-scatter gradients (Zhao et al. 2023, PyTorch FSDP, 3.2), prefetched behind that
    // micro-batch's compute.
    const double comm = 2 * RingTime(t.stage_params * t.e, n, 1, bw, latency) +
                        RingTime(grad_bytes, n, 1, bw, latency);
    return m * (comm - std::min(comm * cal.zero3_overlap, t_mb));
  }
  if (l.zero == 2) {
    // ZeRO-2 reduce-scatters each micro-batch's gradients during its backward (DeepSpeed
    // overlap_comm), then all-gathers the updated parameters after the step (not hidden).
    const double rs = RingTime(grad_bytes, n, 1, bw, latency);
    return m * (rs - std::min(rs * cal.dp_overlap, backward_mb)) +
           RingTime(t.trainable_local * t.e, n, 1, bw, latency);
  }
  // DDP (and ZeRO-1) all-reduces once per optimizer step, bucketed as gradients become ready:
  // only the last micro-batch's backward can hide it (PyTorch DDP no_sync for the accumulation
  // steps; Li et al. 2020, 3.2.3).
  const double comm = RingTime(grad_bytes, n, 2, bw, latency);
  return comm - std::min(comm * cal.dp_overlap, backward_mb);
}

}  // namespace

void TrainingComm(const TrainingShape& t, const TrainingFlops& f, const MicroBatchCompute& mb,
                  const Hardware& hw, const Layout& l, const Calibration& cal, TimeBreakdown& tb) {
  const Dims& d = t.d;
  const OpRecords& r = t.ops();
  const double e = t.e;
  const double m = t.m;
  const double tokens_mb = t.s_local * t.b;
  const double latency = cal.collective_latency_us * 1e-6;
  if (t.transformer) {
    // Tensor parallel: the all-reduce records of s b h activations after attention and after
    // the MLP, forward and backward (Megatron-LM, Shoeybi et al. 2019, Fig. 4), again in a
    // full-recompute forward; sequence parallel replaces each by a reduce-scatter + all-gather
    // of the same volume. With the overlap on (Transformer Engine userbuffers), tp_comm_overlap_on
    // of it runs inside the GEMMs it feeds or drains, split into chunks.
    if (l.tp > 1) {
      const double bw = GroupBandwidth(hw, cal, l.tp, hw.gpus_per_node);
      tb.tp_comm =
          m * t.stage_layers * CollectivePasses(r, OpGroup::kTensor, t.rerun) *
          RingTime(tokens_mb * CollectiveElements(r, OpGroup::kTensor) * e, l.tp, 2, bw, latency) *
          (t.tp_overlap ? 1 - cal.tp_comm_overlap_on : 1);
    }
    // Context parallel (ring attention; Liu et al. 2023, Megatron-Core CP): each layer passes
    // the key/value blocks of s/cp tokens around the cp ranks (cp - 1 hops) while computing on
    // the block it holds; only what attention cannot hide is exposed.
    if (l.cp > 1) {
      const double bw = GroupBandwidth(hw, cal, l.tp * l.cp, hw.gpus_per_node);
      const double block = tokens_mb * CollectiveElements(r, OpGroup::kContext) / t.tp * e;
      const double comm = (t.cp - 1) * (block / bw + latency);
      const double attention =
          4 * d.h * t.s * tokens_mb / t.tp / (mb.attention_peak * 1e12 * mb.attention_rate);
      const double exposed = std::max(0.0, comm - attention);
      tb.cp_comm = m * t.stage_layers * CollectivePasses(r, OpGroup::kContext, t.rerun) * exposed;
    }
    // Pipeline point-to-point: each micro-batch sends s b h activations forward and their
    // gradient back at each stage boundary; the slowest boundary crosses nodes when stages do.
    // With vp chunks per rank each micro-batch crosses vp times as many boundaries.
    if (l.pp > 1) {
      const int stage_span = l.tp * l.cp * l.dp;
      const double bw = GroupBandwidth(hw, cal, stage_span * 2, hw.gpus_per_node);
      tb.pp_comm = 2 * m * t.vp * tokens_mb * d.h / t.tp * e / bw;
    }
    // MoE token dispatch and combine records over the ep group, forward and backward (and in a
    // full-recompute forward), not overlapped beyond moe_a2a_overlap, or moe_a2a_overlap_on when
    // the run overlaps one micro-batch's all-to-alls with another's compute.
    tb.ep_comm =
        m * MoeAllToAllSeconds(d, l, hw, cal, tokens_mb / (l.sequence_parallel ? t.tp : 1),
                               t.stage_layers * d.moe_layer_share,
                               CollectivePasses(r, OpGroup::kExpert, t.rerun), e,
                               t.a2a_overlap ? cal.moe_a2a_overlap_on : cal.moe_a2a_overlap);
  }
  tb.dp_comm = DataParallelSeconds(t, mb.seconds, mb.seconds * BackwardShare(f, t), hw, l, cal);
}

}  // namespace gpuplan::perf::internal
