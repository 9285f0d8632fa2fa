// The diagnosis at the end of `gpuplan monitor`: what limited the job, and what to change.
//
// A pure function over the timeline. The classes follow the articles' advice ("watch GPU
// utilisation, network bandwidth and data I/O"): GPU-bound (good: the GPU is the bottleneck you
// pay for), data-loading bound (the GPU idles while CPUs or the disk are saturated: more vCPU per
// GPU, more loader workers, a faster disk), communication bound (the GPU idles while the network
// is near the instance's bandwidth, or looks busy at low power because NCCL kernels spin: eRDMA
// types, fewer/larger all-reduces), plus GPU memory headroom.
//
//   Diagnosis d = Diagnose(samples, {});
//   for (const Finding& f : d.findings) std::cout << f.title << ": " << f.advice << "\n";
//
// Thread safety: pure.
#ifndef GPUPLAN_SRC_AGENT_MONITOR_DIAGNOSIS_H_
#define GPUPLAN_SRC_AGENT_MONITOR_DIAGNOSIS_H_

#include <optional>
#include <string>
#include <vector>

#include "agent/monitor_sample.h"

namespace gpuplan::agent {

struct DiagnosisOptions {
  // Mean GPU utilisation at or above which the job is GPU-bound. NVML's utilisation is "a kernel
  // was running", so 85% leaves room for the optimizer step and logging between kernels.
  double gpu_busy_pct = 85;
  // Below this mean utilisation the GPU is mostly waiting for something.
  double gpu_idle_pct = 60;
  // All-core CPU utilisation counted as saturated (loader workers plus the main process).
  double cpu_saturated_pct = 85;
  // One core this busy while the average is low means a single-threaded loader (num_workers=0).
  double core_saturated_pct = 95;
  // Disk utilisation (time with I/O in flight) counted as saturated, and iowait counted as high.
  double disk_saturated_pct = 80;
  double iowait_high_pct = 20;
  // The instance's network bandwidth in Gbit/s (from the catalog via --instance), and the share
  // of it counted as saturated. Unknown: only the power-based sign of communication is used.
  std::optional<double> network_gbps;
  double network_saturated_fraction = 0.7;
  // A GPU "busy" at under this share of its power limit is mostly spinning in NCCL waits.
  double low_power_fraction = 0.45;
  // Peak GPU memory under this share of the total leaves room for a larger batch or a smaller
  // GPU; above `memory_full_fraction` an allocation spike will OOM.
  double memory_headroom_fraction = 0.5;
  double memory_full_fraction = 0.95;
  // Host memory above this share risks the OOM killer taking the loader workers.
  double host_memory_full_fraction = 0.9;
};

struct Finding {
  std::string id;        // "gpu-bound", "data-loading-bound", "memory-headroom",
                         // "memory-near-full", "host-memory-near-full", "gpu-imbalance",
                         // "host-saturated", or the verdict's id
  std::string severity;  // "info", "warning"
  std::string title;     // one line
  std::string evidence;  // the numbers behind it
  std::string advice;    // what to change
};

struct Diagnosis {
  // One of: "gpu-bound", "data-loading-bound", "communication-bound", "underutilised",
  // "mixed", "no-gpu-data", "too-short".
  std::string verdict;
  std::vector<Finding> findings;  // the verdict's finding first
  // Means over the timeline (nullopt when not observed).
  std::optional<double> gpu_util_mean_pct;
  std::optional<double> gpu_power_fraction_mean;
  std::optional<double> gpu_memory_peak_fraction;
  double cpu_util_mean_pct = 0;
  double max_core_mean_pct = 0;
  double cpu_iowait_mean_pct = 0;
  double disk_util_mean_pct = 0;
  double net_mean_gbps = 0;  // rx + tx
  int samples = 0;
};

Diagnosis Diagnose(const std::vector<MonitorSample>& samples, const DiagnosisOptions& options);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_MONITOR_DIAGNOSIS_H_
