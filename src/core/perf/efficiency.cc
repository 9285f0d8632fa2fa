// How close to peak the math runs: GEMM efficiency (roofline) and the peak per precision.
#include "perf/internal.h"

namespace gpuplan::perf::internal {

// The fraction of the peak GEMMs approach as their inner size and rows grow (GemmEfficiency
// never exceeds it).
double GemmFractionCeiling(const ArchEfficiency& arch, const Calibration& cal, Precision p) {
  const double fraction = p == Precision::kFp32 ? arch.simt_fraction : arch.gemm_fraction;
  return p == Precision::kFp8 ? fraction * cal.fp8_gemm_factor : fraction;
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
  double fraction = GemmFractionCeiling(arch, cal, p);
  if (!simt)
    fraction *= dim / (dim + cal.gemm_half_dim);
  const double bandwidth = gpu.memory_bandwidth_gbs * 1e9 * arch.memory_bw_fraction;
  const double ridge_tokens =
      bandwidth > 0 ? peak_tflops * 1e12 * fraction * weight_bytes / (2 * bandwidth) : 0;
  return fraction * tokens / (tokens + cal.gemm_weight_read_factor * ridge_tokens);
}

// The dense peak used for GEMMs at precision p. FP32 training runs FP32 math (PyTorch leaves
// TF32 off for matmul by default since 1.12); INT8 inference weights are dequantised to FP16.
// BF16 runs as FP16 where the GPU has no BF16 units (RunsAs: Volta, Turing).
std::optional<double> PeakTflops(const Gpu& g, Precision p) {
  if (p == Precision::kInt8)
    return g.Tflops(Precision::kFp16);
  return g.Tflops(RunsAs(g, p));
}

bool ConvolutionsRunTf32(const Workload& w, const ModelArch& arch, const Gpu& g) {
  return w.precision == Precision::kFp32 && arch.ConvolutionElements() > 0 &&
         g.Tflops(Precision::kTf32).value_or(0) > 0;
}

Precision ComputePrecision(const Workload& w, const ModelArch& arch, const Gpu& g) {
  return ConvolutionsRunTf32(w, arch, g) ? Precision::kTf32 : w.precision;
}

}  // namespace gpuplan::perf::internal
