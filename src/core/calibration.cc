#include "gpuplan/calibration.h"

#include <algorithm>
#include <string>

#include "gpuplan/catalog.h"

namespace gpuplan {

const ArchEfficiency& Calibration::For(const Gpu& gpu) const {
  for (const ArchEfficiency& a : archs) {
    if (a.architecture == gpu.name) return a;
  }
  for (const ArchEfficiency& a : archs) {
    if (a.architecture == gpu.architecture) return a;
  }
  return fallback;
}

void Calibration::OverrideGpu(const Gpu& gpu, std::optional<double> gemm,
                              std::optional<double> memory_bw) {
  if (std::none_of(archs.begin(), archs.end(),
                   [&](const ArchEfficiency& a) { return a.architecture == gpu.name; })) {
    ArchEfficiency row = For(gpu);
    row.architecture = gpu.name;
    archs.push_back(row);
  }
  Override(gpu.name, gemm, memory_bw);
}

void Calibration::Override(std::string_view architecture, std::optional<double> gemm,
                           std::optional<double> memory_bw) {
  ArchEfficiency* row = nullptr;
  for (ArchEfficiency& a : archs) {
    if (a.architecture == architecture) row = &a;
  }
  if (row == nullptr) {
    archs.push_back(fallback);
    row = &archs.back();
    row->architecture = std::string(architecture);
  }
  if (gemm) row->gemm_fraction = *gemm;
  if (memory_bw) row->memory_bw_fraction = *memory_bw;
}

double Calibration::LayerOverheadUs(Engine engine) const {
  switch (engine) {
    case Engine::kHf: return hf_layer_overhead_us;
    case Engine::kVllm: return vllm_layer_overhead_us;
    case Engine::kTrtllm: return trtllm_layer_overhead_us;
    case Engine::kTorch: return torch_layer_overhead_us;
  }
  return hf_layer_overhead_us;
}

double Calibration::StepOverheadUs(Engine engine) const {
  switch (engine) {
    case Engine::kHf: return hf_step_overhead_us;
    case Engine::kVllm: return vllm_step_overhead_us;
    case Engine::kTrtllm: return trtllm_step_overhead_us;
    case Engine::kTorch: return torch_step_overhead_us;
  }
  return hf_step_overhead_us;
}

}  // namespace gpuplan
