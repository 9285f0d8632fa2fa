// The full build's GPU telemetry: NVML through dlopen. The portable agent links
// portable/gpu_telemetry_smi.cc instead (a static program cannot dlopen the driver's library).
#include "agent/gpu_telemetry.h"
#include "agent/nvml_telemetry.h"

namespace gpuplan::agent {

std::unique_ptr<GpuTelemetry> OpenGpuTelemetry(std::string* why) { return OpenNvml(why); }

}  // namespace gpuplan::agent
