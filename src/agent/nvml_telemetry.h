// GPU telemetry from NVML, the NVIDIA Management Library, loaded at run time with
// dlopen("libnvidia-ml.so.1") so gpuplan has no build or link dependency on the driver and runs
// (saying what it cannot see) on machines without one.
//
//   std::string why;
//   std::unique_ptr<GpuTelemetry> gpus = OpenNvml(&why);
//   if (!gpus) std::cerr << "no GPU telemetry: " << why << "\n";
//
// Thread safety: see GpuTelemetry.
#ifndef GPUPLAN_SRC_AGENT_NVML_TELEMETRY_H_
#define GPUPLAN_SRC_AGENT_NVML_TELEMETRY_H_

#include <memory>
#include <string>

#include "agent/gpu_telemetry.h"

namespace gpuplan::agent {

// Loads NVML from `library` and initialises it. Returns nullptr with `*why` set when the library
// is missing (no driver), a symbol is missing or nvmlInit fails.
std::unique_ptr<GpuTelemetry> OpenNvml(std::string* why,
                                       const std::string& library = "libnvidia-ml.so.1");

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_NVML_TELEMETRY_H_
