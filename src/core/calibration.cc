#include "gpuplan/calibration.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "gpuplan/catalog.h"

namespace gpuplan {

namespace {

// Fused attention's time on `gpu`: its tensor-core MMAs at the GEMM ceiling plus its vector work
// on the SMs (softmax exponentials, max and sum, rescaling, addressing) at the achieved FP32
// rate. The architecture's fraction `measured` fixes that vector work on the reference part,
// whose MMAs ran at the architecture's ceiling (`reference`); `gpu`'s own MMAs run at its
// ceiling (`row`, with the GPU's own gemm_fraction where it has one). A part whose tensor peak
// is cut relative to its SMs (H20: 148 of H100's 989 dense TFLOPS on 78 of its 132 SMs) spends
// more of the kernel in MMAs and reaches more of its own smaller peak.
double AttentionFractionOn(const Gpu& gpu, const ArchEfficiency& reference,
                           const ArchEfficiency& row, double measured) {
  const std::optional<double> tensor = gpu.Tflops(RunsAs(gpu, Precision::kBf16));
  const std::optional<double> fp32 = gpu.Tflops(Precision::kFp32);
  const double reference_ceiling = reference.gemm_fraction;
  if (!row.attention_reference_ratio || !tensor || !fp32 || *fp32 <= 0 ||
      measured > reference_ceiling) {
    return measured;
  }
  // Within 5% of the reference the part is the reference's design (datasheet rounding, a
  // lower clock on both units): its fraction is the measured one.
  const double relative = *tensor / (*fp32 * row.simt_fraction) / *row.attention_reference_ratio;
  if (std::abs(relative - 1) <= 0.05 && row.gemm_fraction == reference_ceiling)
    return measured;
  const double vector_time = (1 / measured - 1 / reference_ceiling) * relative;
  return 1 / (1 / row.gemm_fraction + vector_time);
}

}  // namespace

ArchEfficiency Calibration::For(const Gpu& gpu) const {
  ArchEfficiency row = fallback;
  for (const ArchEfficiency& a : archs) {
    if (a.architecture == gpu.architecture)
      row = a;
  }
  const ArchEfficiency reference = row;
  const GpuEfficiency* own = nullptr;
  for (const GpuEfficiency& g : gpus) {
    if (g.gpu == gpu.name) {
      row = g.Over(row);
      own = &g;
    }
  }
  // A fraction measured on this very GPU needs no moving.
  if (row.cudnn_attention_fraction && !(own && own->cudnn_attention_fraction))
    row.cudnn_attention_fraction =
        AttentionFractionOn(gpu, reference, row, *row.cudnn_attention_fraction);
  if (row.serving_attention_fraction && !(own && own->serving_attention_fraction)) {
    row.serving_attention_fraction =
        AttentionFractionOn(gpu, reference, row, *row.serving_attention_fraction);
  }
  if (!(own && own->attention_fraction))
    row.attention_fraction = AttentionFractionOn(gpu, reference, row, row.attention_fraction);
  return row;
}

ArchEfficiency GpuEfficiency::Over(ArchEfficiency base) const {
  base.gemm_fraction = gemm_fraction.value_or(base.gemm_fraction);
  base.memory_bw_fraction = memory_bw_fraction.value_or(base.memory_bw_fraction);
  base.attention_fraction = attention_fraction.value_or(base.attention_fraction);
  base.simt_fraction = simt_fraction.value_or(base.simt_fraction);
  if (cudnn_attention_fraction)
    base.cudnn_attention_fraction = cudnn_attention_fraction;
  if (serving_attention_fraction)
    base.serving_attention_fraction = serving_attention_fraction;
  if (attention_reference_ratio)
    base.attention_reference_ratio = attention_reference_ratio;
  return base;
}

void Calibration::OverrideGpu(const Gpu& gpu, const GpuEfficiency& values) {
  auto it = std::find_if(gpus.begin(), gpus.end(),
                         [&](const GpuEfficiency& g) { return g.gpu == gpu.name; });
  if (it == gpus.end()) {
    gpus.push_back(GpuEfficiency{});
    it = gpus.end() - 1;
    it->gpu = gpu.name;
  }
  if (values.gemm_fraction)
    it->gemm_fraction = values.gemm_fraction;
  if (values.memory_bw_fraction)
    it->memory_bw_fraction = values.memory_bw_fraction;
  if (values.attention_fraction)
    it->attention_fraction = values.attention_fraction;
  if (values.simt_fraction)
    it->simt_fraction = values.simt_fraction;
  if (values.cudnn_attention_fraction)
    it->cudnn_attention_fraction = values.cudnn_attention_fraction;
  if (values.serving_attention_fraction)
    it->serving_attention_fraction = values.serving_attention_fraction;
}

int Calibration::MaxConcurrentSequences(Engine engine) const {
  switch (engine) {
    case Engine::kVllm:
      return static_cast<int>(vllm_max_sequences);
    case Engine::kTrtllm:
      return static_cast<int>(trtllm_max_sequences);
    case Engine::kHf:
    case Engine::kTorch:
      return 1;
  }
  return 1;
}

double Calibration::EngineMemoryLimitGib(Engine engine, double capacity_gib,
                                         double fixed_gib) const {
  switch (engine) {
    case Engine::kVllm:
      return capacity_gib * vllm_gpu_memory_utilization;
    case Engine::kTrtllm:
      return fixed_gib + std::max(0.0, capacity_gib - fixed_gib) * trtllm_free_gpu_memory_fraction;
    case Engine::kHf:
    case Engine::kTorch:
      return capacity_gib;
  }
  return capacity_gib;
}

double Calibration::LayerOverheadUs(Engine engine) const {
  switch (engine) {
    case Engine::kHf:
      return hf_layer_overhead_us;
    case Engine::kVllm:
      return vllm_layer_overhead_us;
    case Engine::kTrtllm:
      return trtllm_layer_overhead_us;
    case Engine::kTorch:
      return torch_layer_overhead_us;
  }
  return hf_layer_overhead_us;
}

double Calibration::StepOverheadUs(Engine engine) const {
  switch (engine) {
    case Engine::kHf:
      return hf_step_overhead_us;
    case Engine::kVllm:
      return vllm_step_overhead_us;
    case Engine::kTrtllm:
      return trtllm_step_overhead_us;
    case Engine::kTorch:
      return torch_step_overhead_us;
  }
  return hf_step_overhead_us;
}

}  // namespace gpuplan
