#include "gpuplan/calibration.h"

#include "gpuplan/catalog.h"

namespace gpuplan {

const ArchEfficiency& Calibration::For(const Gpu& gpu) const {
  for (const ArchEfficiency& a : archs) {
    if (a.architecture == gpu.architecture) return a;
  }
  return fallback;
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
