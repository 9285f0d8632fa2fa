// GPU telemetry from `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`, for the
// portable agent (docs/on-instance.md, "The portable agent"): a statically linked program cannot
// dlopen NVML (libnvidia-ml.so.1 would need the same glibc as the one linked in), but nvidia-smi
// ships with every NVIDIA driver and reads the same NVML counters. It costs a process start per
// reading (tens of milliseconds), so it suits the monitor's default one-second interval.
//
//   std::string why;
//   std::unique_ptr<GpuTelemetry> gpus = OpenNvidiaSmi(&why);
//   if (!gpus) std::cerr << "no GPU telemetry: " << why << "\n";
//
// Thread safety: see GpuTelemetry.
#ifndef GPUPLAN_SRC_AGENT_NVIDIA_SMI_TELEMETRY_H_
#define GPUPLAN_SRC_AGENT_NVIDIA_SMI_TELEMETRY_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agent/gpu_telemetry.h"
#include "gpuplan/status.h"

namespace gpuplan::agent {

// The --query-gpu fields of each reading, in the order the parsers expect them.
inline constexpr std::string_view kSmiDeviceFields =
    "index,name,memory.total,pcie.link.gen.max,pcie.link.width.max,power.limit,driver_version";
inline constexpr std::string_view kSmiSampleFields =
    "index,utilization.gpu,utilization.memory,memory.used,memory.total,power.draw,power.limit";

// Runs nvidia-smi with `args` and gives its standard output; an error names the exit status
// and the first line it printed. Injected so tests feed recorded output.
using SmiRunner = std::function<Result<std::string>(const std::string& args)>;
Result<std::string> RunNvidiaSmi(const std::string& args);

// Parse the CSV rows of the two queries above (noheader, nounits; MiB, W, %). "[N/A]" and
// "[Not Supported]" leave optional fields unset; a missing utilisation is an error, as in
// NvmlTelemetry. Errors name the line and the field.
Result<std::vector<GpuInfo>> ParseSmiDevices(std::string_view csv);
Result<std::vector<GpuSample>> ParseSmiSamples(std::string_view csv);

// Asks nvidia-smi for the devices once; nullptr with `*why` when it is missing or fails.
std::unique_ptr<GpuTelemetry> OpenNvidiaSmi(std::string* why, SmiRunner run = RunNvidiaSmi);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_NVIDIA_SMI_TELEMETRY_H_
