// The least step time of any training layout on a hardware (StepFloorSeconds): what the planner
// rules hardware out on before it searches a layout.
#include <algorithm>

#include "perf/layout_search_cutoff.h"
#include "perf/training_shape.h"

namespace gpuplan::perf {

// The compute of a step (training_compute.cc) is each record's FLOPs over its rate, and every
// rate is at most its ceiling: GEMMs (expert GEMMs too: they wait for the busiest expert, never
// less) at GemmFractionCeiling of the peak, fused attention at twice the kernel's fraction
// (causal: half the counted square), unfused attention at its factor of the GEMMs'. A stage
// holds at least its share of the layers and a replica its share of the batch, so the busiest
// GPU's compute is at least the step's FLOPs over all GPUs. Recomputation only adds FLOPs, and
// elementwise work, adapters, communication, bubbles, optimizer and offload only add time.
double StepFloorSeconds(const Workload& w, const ModelArch& arch, const Hardware& hw,
                        const Calibration& cal) {
  if (!w.IsTraining() || hw.gpu == nullptr || hw.Gpus() < 1 || w.seq_len < 1)
    return 0;
  const Precision precision = internal::ComputePrecision(w, arch, *hw.gpu);
  const std::optional<double> peak = internal::PeakTflops(*hw.gpu, precision);
  if (!peak || *peak <= 0)
    return 0;
  const internal::TrainingInvariants inv =
      internal::InvariantsOf(w, arch, *hw.gpu, cal, 1, w.flash_attention);
  const internal::TrainingFlops& f = inv.flops[static_cast<size_t>(Recompute::kNone)];
  const double gemm_rate = *peak * 1e12 * internal::GemmFractionCeiling(inv.eff, cal, precision);
  double attention_rate = gemm_rate * cal.unfused_attention_factor;
  if (w.flash_attention) {
    const double attention_peak =
        precision == Precision::kFp8
            ? internal::PeakTflops(*hw.gpu, Precision::kBf16).value_or(*peak)
            : *peak;
    const double fraction = std::max(inv.eff.AttentionFraction(AttentionKernel::kFlash2),
                                     inv.eff.AttentionFraction(AttentionKernel::kCudnn));
    attention_rate = std::max(attention_rate, attention_peak * 1e12 * 2 * fraction);
  }
  if (!(gemm_rate > 0) || !(attention_rate > 0))
    return 0;
  const double gemm_flops =
      f.hardware_per_token - f.attention_hw_per_token - f.adapter_hw_per_token;
  const double tokens = static_cast<double>(w.global_batch) * w.seq_len;
  const double seconds =
      tokens * (gemm_flops / gemm_rate + f.attention_hw_per_token / attention_rate) / hw.Gpus();
  return std::max(0.0, seconds);
}

}  // namespace gpuplan::perf
