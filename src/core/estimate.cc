// The performance model. Every formula names its source; every fitted number comes from the
// Calibration (data/calibration.csv), never from a literal here.
#include "gpuplan/estimate.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "gpuplan/layout_search.h"
#include "largest.h"
#include "perf/internal.h"

namespace gpuplan::perf {
namespace {

using namespace internal;

Status CheckLayout(const Workload& w, const ModelArch& arch, const Hardware& hw, const Layout& l) {
  auto bad = [](const std::string& msg) { return Status::InvalidArgument(msg); };
  if (hw.gpu == nullptr)
    return bad("hardware has no GPU");
  if (l.tp < 1 || l.cp < 1 || l.pp < 1 || l.vp < 1 || l.dp < 1 || l.ep < 1) {
    return bad("layout: tp, cp, pp, vp, dp and ep must be >= 1");
  }
  const long long degrees = static_cast<long long>(l.tp) * l.cp * l.pp * l.dp;  // no overflow
  if (degrees != hw.Gpus()) {
    return bad("layout: tp*cp*pp*dp = " + std::to_string(degrees) + " but the hardware has " +
               std::to_string(hw.Gpus()) + " GPUs");
  }
  if (Status s = ValidateWorkloadForModel(w, arch); !s.ok())
    return s;
  // Expert-parallel ranks come from a stage's tp x dp GPUs (Megatron's MoE parallel folding
  // lets ep exceed dp, with expert tp 1); only MoE models have experts to shard.
  if (l.ep > 1) {
    if (!arch.IsMoe())
      return bad("layout: ep " + std::to_string(l.ep) + " needs a MoE model");
    if ((static_cast<long long>(l.tp) * l.dp) % l.ep != 0) {
      return bad("layout: ep " + std::to_string(l.ep) + " must divide tp*dp " +
                 std::to_string(l.tp * l.dp) +
                 " (expert-parallel ranks are carved out of a stage's GPUs)");
    }
    // Training shards whole experts evenly (Megatron); serving engines may place redundant
    // copies (SGLang's EPLB), so there ep only needs to be at most the expert count.
    if (w.IsTraining() ? arch.moe.experts % l.ep != 0 : l.ep > arch.moe.experts) {
      return bad("layout: ep " + std::to_string(l.ep) +
                 (w.IsTraining() ? " does not divide" : " exceeds") + " the " +
                 std::to_string(arch.moe.experts) + " experts");
    }
  }
  if (l.vp > 1 && l.pp == 1)
    return bad("layout: virtual stages (vp > 1) need pp > 1");
  if (w.IsTraining() && l.cp > 1 && w.seq_len % (2 * l.cp) != 0) {
    return bad("layout: cp " + std::to_string(l.cp) +
               " needs seq_len divisible by 2*cp = " + std::to_string(2 * l.cp) +
               " (load-balanced ring attention), got " + std::to_string(w.seq_len));
  }
  if (l.zero < 0 || l.zero > 3)
    return bad("layout: zero must be 0, 1, 2 or 3");
  if (l.micro_batch < 1)
    return bad("layout: micro_batch must be >= 1");
  if (arch.IsTransformer()) {
    if (arch.heads % l.tp != 0) {
      return bad("layout: tp " + std::to_string(l.tp) + " does not divide the " +
                 std::to_string(arch.heads) + " attention heads");
    }
    if (static_cast<long long>(l.pp) * l.vp > arch.layers) {
      return bad("layout: pp " + std::to_string(l.pp) + " x vp " + std::to_string(l.vp) +
                 " exceeds the " + std::to_string(arch.layers) + " layers");
    }
  } else if (l.tp > 1 || l.pp > 1 || l.cp > 1) {
    return bad("layout: tensor, context and pipeline parallelism need a transformer architecture");
  }
  if (w.IsTraining() && static_cast<long long>(l.micro_batch) * l.dp > w.global_batch) {
    return bad("layout: micro_batch " + std::to_string(l.micro_batch) + " x dp " +
               std::to_string(l.dp) + " exceeds global_batch " + std::to_string(w.global_batch));
  }
  return Status::Ok();
}

}  // namespace

Result<Estimate> EstimateRun(const Workload& w, const ModelArch& arch, const Hardware& hw,
                             const Layout& layout, const Calibration& cal) {
  return EstimateRunShared(w, arch, hw, layout, cal, nullptr);
}

Result<Estimate> internal::EstimateRunShared(const Workload& w, const ModelArch& arch,
                                             const Hardware& hw, const Layout& layout,
                                             const Calibration& cal,
                                             const TrainingInvariants* shared, bool memory_only) {
  if (Status s = CheckLayout(w, arch, hw, layout); !s.ok())
    return s;
  if (w.task == Task::kRendering || w.task == Task::kHpc) {
    return Status::Unsupported("task " + std::string(TaskName(w.task)) +
                               " has no performance model (only memory and GPU capability checks)");
  }
  if (ConvolutionsRunTf32(w, arch, *hw.gpu)) {
    // A convolutional network in FP32 on Ampere or later: cuDNN convolves in TF32.
    Workload tf32 = w;
    tf32.precision = Precision::kTf32;
    return EstimateRunShared(tf32, arch, hw, layout, cal, shared, memory_only);
  }
  if (Fp8WeightOnly(*hw.gpu, w.precision, w.task == Task::kInference)) {
    // FP8 weights on a GPU without FP8 units: bf16 math over 8-bit weights (weight-only).
    Workload weight_only = w;
    weight_only.precision = Precision::kBf16;
    weight_only.weight_bits = 8;
    return EstimateRunShared(weight_only, arch, hw, layout, cal, shared, memory_only);
  }
  const std::optional<double> peak = PeakTflops(*hw.gpu, w.precision);
  if (!peak || *peak <= 0) {
    return Status::InvalidArgument(hw.gpu->name + " has no " +
                                   std::string(PrecisionName(w.precision)) + " support");
  }
  Result<Estimate> est =
      w.IsTraining() ? EstimateTraining(w, arch, hw, layout, cal, *peak, shared, memory_only)
                     : EstimateInference(w, arch, hw, layout, cal, *peak);
  if (!est.ok())
    return est;
  est->peak_tflops = *peak;
  if (w.IsTraining()) {
    est->job = TrainingJob(w, hw.Gpus(), est->time.step_s, cal,
                           CheckpointSeconds(w, *est, layout, hw, cal));
  } else if (w.inference.requests_per_s && est->inference) {
    // Hours per million requests at the sustained rate is not a job; leave job empty.
  }
  return est;
}

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
  return LargestWhere(limit, fits);
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
  return LargestWhere(limit, fits);
}

int LargestDivisorAtMost(int n, int limit) {
  for (int d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0)
      return d;
  }
  return 1;
}

Layout DefaultLayout(const Workload& w, const ModelArch& arch, const Hardware& hw,
                     const Calibration& cal) {
  return SearchLayout(w, arch, hw, cal, PinsFrom(w)).layout;
}

}  // namespace gpuplan::perf
