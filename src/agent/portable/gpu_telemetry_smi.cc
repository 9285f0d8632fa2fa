// The portable agent's GPU telemetry and CUDA probe (docs/on-instance.md, "The portable
// agent"). The program is linked statically with glibc, and a static glibc program can dlopen
// only libraries built against the very same glibc, which neither the driver's
// libnvidia-ml.so.1 nor the CUDA runtime is. So the GPU readings come from nvidia-smi, and the
// CUDA measurements (GEMM, memory bandwidth, PCIe, NCCL), which need the CUDA runtime in
// process, are reported as not measured with how to get them.
#include "agent/cuda_probe.h"
#include "agent/gpu_telemetry.h"
#include "agent/nvidia_smi_telemetry.h"

namespace gpuplan::agent {

std::unique_ptr<GpuTelemetry> OpenGpuTelemetry(std::string* why) {
  std::string smi_why;
  std::unique_ptr<GpuTelemetry> gpus = OpenNvidiaSmi(&smi_why);
  if (!gpus)
    *why = "GPU readings come from nvidia-smi in the portable agent: " + smi_why;
  return gpus;
}

std::unique_ptr<CudaProbe> LoadCudaProbePlugin(const std::string& explicit_path, std::string* why) {
  (void)explicit_path;
  *why =
      "the portable gpuplan-agent is statically linked and cannot load the CUDA probe plugin; "
      "build gpuplan from source on the instance for the GPU measurements (docs/on-instance.md, "
      "\"The portable agent\")";
  return nullptr;
}

}  // namespace gpuplan::agent
