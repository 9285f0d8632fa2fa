// `gpuplan monitor`: sample GPU, CPU, memory, disk and network at an interval, write a timeline
// (CSV or JSON lines) and end with a diagnosis (monitor_diagnosis.h).
//
// It follows a command it starts (and exits with the command's exit code), a running PID (until
// it ends), or runs until stopped (SIGINT/SIGTERM) or `max_samples`.
//
//   MonitorEnvironment env{.proc = &proc, .gpus = nvml.get(), ...};
//   MonitorResult r = RunMonitor(options, env);
//
// Thread safety: one RunMonitor at a time per environment; `stop` may be set by a signal handler.
#ifndef GPUPLAN_SRC_AGENT_MONITOR_H_
#define GPUPLAN_SRC_AGENT_MONITOR_H_

#include <atomic>
#include <iosfwd>
#include <string>
#include <vector>

#include "agent/monitor_diagnosis.h"
#include "agent/monitor_sample.h"

namespace gpuplan::agent {

class Clock;
class GpuTelemetry;
class ProcReader;

struct MonitorOptions {
  double interval_seconds = 1.0;     // NVML utilisation is averaged over ~1/6 s to 1 s windows
  bool json = false;                 // JSON lines instead of CSV
  int pid = 0;                       // attach to this process (0 = none)
  std::vector<std::string> command;  // run and follow this command (empty = none)
  long max_samples = 0;              // stop sampling after this many (0 = no limit)
  double ticks_per_second = 100;     // USER_HZ, for the followed process's CPU time
  DiagnosisOptions diagnosis;
};

struct MonitorEnvironment {
  const ProcReader* proc = nullptr;         // REQUIRES: not null
  GpuTelemetry* gpus = nullptr;             // null: no GPU columns
  std::string gpus_error;                   // why there is no telemetry
  Clock* clock = nullptr;                   // REQUIRES: not null
  std::ostream* timeline = nullptr;         // REQUIRES: not null; CSV or JSON lines
  std::ostream* log = nullptr;              // REQUIRES: not null; progress and the diagnosis text
  const std::atomic<bool>* stop = nullptr;  // set to end monitoring early
};

struct MonitorResult {
  int exit_code = 0;  // the command's exit code; 0 for --pid or none; 1 on a monitor error
  std::vector<MonitorSample> samples;
  Diagnosis diagnosis;
};

MonitorResult RunMonitor(const MonitorOptions& options, MonitorEnvironment& env);

// Renderings, exposed for tests. The CSV header depends on the GPU and core counts of `first`.
std::string TimelineCsvHeader(const MonitorSample& first);
std::string TimelineCsvRow(const MonitorSample& sample, const MonitorSample& first);
std::string TimelineJsonLine(const MonitorSample& sample);
std::string DiagnosisJsonLine(const Diagnosis& diagnosis);
std::string RenderDiagnosis(const Diagnosis& diagnosis);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_MONITOR_H_
