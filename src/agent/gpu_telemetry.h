// GPU telemetry: what the monitor and the probe ask of the GPUs (names, memory, PCIe link,
// utilisation, power). NvmlTelemetry (nvml_telemetry.h) reads it from the NVIDIA driver,
// the nvidia-smi reader (nvidia_smi_telemetry.h) from nvidia-smi's CSV;
// tests use FakeGpuTelemetry (tests/testing/agent_fakes.h).
//
// Thread safety: implementations need not be thread-safe; use one per thread.
#ifndef GPUPLAN_SRC_AGENT_GPU_TELEMETRY_H_
#define GPUPLAN_SRC_AGENT_GPU_TELEMETRY_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/status.h"

namespace gpuplan::agent {

// Static facts about one GPU.
struct GpuInfo {
  int index = 0;
  std::string name;                 // as the driver reports it, "NVIDIA H200"
  double memory_total_gib = 0;      // what the driver reports as total (after ECC/reserved)
  std::optional<int> pcie_gen_max;  // the link generation the GPU and slot support
  std::optional<int> pcie_width_max;
  std::optional<double> power_limit_w;
  std::string driver_version;
};

// One reading of one GPU.
struct GpuSample {
  int index = 0;
  double util_pct = 0;      // % of the interval a kernel was running (NVML's definition)
  double mem_util_pct = 0;  // % of the interval device memory was read or written
  double mem_used_gib = 0;
  double mem_total_gib = 0;
  std::optional<double> power_w;
  std::optional<double> power_limit_w;
};

class GpuTelemetry {
 public:
  virtual ~GpuTelemetry() = default;
  // Every GPU the driver sees. An empty list is a valid answer (no GPU).
  virtual Result<std::vector<GpuInfo>> Devices() = 0;
  // One reading per GPU, in index order.
  virtual Result<std::vector<GpuSample>> Sample() = 0;
};

// The GPU telemetry of this build, nullptr with `*why` when there is none: NVML
// (nvml_telemetry.h) in gpuplan; nvidia-smi (nvidia_smi_telemetry.h) in the statically linked
// gpuplan-agent, which cannot dlopen the driver's library.
std::unique_ptr<GpuTelemetry> OpenGpuTelemetry(std::string* why);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_GPU_TELEMETRY_H_
