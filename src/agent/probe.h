// `gpuplan probe`: measure what the rented instance delivers and compare it with the catalog.
//
// RunProbe gathers every measurement through the edges in ProbeEnvironment (NVML telemetry, the
// CUDA plugin, the metadata service, /proc), each of which may be missing: what could not be
// measured is listed with the reason, never guessed. The verdicts come from probe_verdict.h.
//
//   ProbeEnvironment env;  // fill the edges (nullptr = not available, with a reason)
//   ProbeReport report = RunProbe(options, env, catalog);
//   std::cout << RenderProbeTable(report);
//
// Thread safety: RunProbe uses the environment's objects from the calling thread only.
#ifndef GPUPLAN_SRC_AGENT_PROBE_H_
#define GPUPLAN_SRC_AGENT_PROBE_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "agent/cuda_probe.h"
#include "agent/gpu_telemetry.h"
#include "agent/host_probe.h"
#include "agent/probe_verdict.h"

namespace gpuplan {
class Catalog;
}

namespace gpuplan::agent {

class Clock;
class MetadataClient;
class ProcReader;

struct ProbeOptions {
  std::string instance;   // --instance; empty: ask the metadata service
  std::string disk_path;  // --path; empty: the disk test is skipped (it writes a file)
  DiskProbeOptions disk;
  double cpu_seconds = 0.3;  // per CPU phase (one core, then all)
  bool skip_cpu = false;
  CudaProbeOptions cuda;
};

// The edges. A null pointer means "not available here"; the matching *_error says why and goes
// into the report.
struct ProbeEnvironment {
  GpuTelemetry* telemetry = nullptr;
  std::string telemetry_error;
  CudaProbe* cuda = nullptr;
  std::string cuda_error;
  MetadataClient* metadata = nullptr;
  std::string metadata_error;
  const ProcReader* proc = nullptr;
  Clock* clock = nullptr;  // REQUIRES: not null
};

struct ProbeDevice {
  int index = 0;
  std::string name;
  double memory_gib = 0;
  std::string compute_capability;  // "9.0", or "" when only NVML saw it
  std::optional<int> pcie_gen_max;
  std::optional<int> pcie_width_max;
  std::optional<double> power_limit_w;
};

struct ProbeReport {
  std::string measured_at;      // UTC, ISO-8601
  std::string instance_type;    // "" when unknown
  std::string instance_source;  // "flag", "metadata" or "unknown"
  bool instance_in_catalog = false;
  std::string gpu_model;  // catalog GPU name, "" when unknown
  std::string driver_version;
  std::vector<ProbeDevice> devices;
  std::vector<ProbeMetric> metrics;
  std::vector<std::string> notes;  // why something could not be measured or compared
};

ProbeReport RunProbe(const ProbeOptions& options, ProbeEnvironment& env, const Catalog& catalog);

// Renderings. The JSON document lists "metrics" (every row, with measured/expected/verdict),
// "not_measured" (id, gpu, reason), "summary" (count per verdict) and "notes".
nlohmann::json ProbeReportJson(const ProbeReport& report);
std::string RenderProbeTable(const ProbeReport& report);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_PROBE_H_
