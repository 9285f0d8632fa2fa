// Memory common to training and inference.
#include "perf/internal.h"

namespace gpuplan::perf::internal {

// Memory common to training and inference: overhead on top of what tensors hold.
void FinishMemory(Estimate& e, const Hardware& hw, const Calibration& cal, double static_gib) {
  MemoryBreakdown& m = e.memory.breakdown;
  const double allocated =
      m.weights + m.gradients + m.optimizer + m.adapters + m.activations + m.kv_cache + m.transient;
  e.memory.allocated_gib = allocated;
  // The caching allocator fragments what is allocated and freed as the step runs; blocks
  // allocated once (a serving engine's weights and its preallocated KV-cache pool) do not.
  e.memory.reserved_gib = allocated + (allocated - static_gib) * cal.allocator_fragmentation;
  m.overhead = e.memory.reserved_gib - allocated + cal.cuda_context_gib;
  e.memory.per_gpu_gib = allocated + m.overhead;
  FitGpu(e.memory, hw);
}

double UsableGpuGib(const Hardware& hw) {
  return hw.gpu_memory_gib > 0 ? hw.gpu_memory_gib : hw.gpu->EffectiveMemoryGib();
}

double UsableHostGib(const Hardware& hw, const Calibration& cal) {
  return hw.host_memory_gib * cal.host_ram_usable_fraction;
}

void FitGpu(Estimate::Memory& m, const Hardware& hw) {
  m.capacity_gib = UsableGpuGib(hw);
  // At the workload's confidence, not the point: a job that OOMs at its first step is worth
  // nothing, and the model's memory error is known (Hardware::memory_error_ratio).
  m.checked_gib = m.per_gpu_gib * hw.memory_error_ratio;
  m.fits = m.checked_gib <= m.capacity_gib;
}

void FitHost(Estimate::Memory& m, const Hardware& hw, const Calibration& cal) {
  m.host_capacity_gib = 0;
  if (m.host_gib > 0 && hw.host_memory_gib > 0) {
    m.host_capacity_gib = UsableHostGib(hw, cal);
    if (m.host_gib > m.host_capacity_gib)
      m.fits = false;
  }
}

}  // namespace gpuplan::perf::internal
