// One point of the `gpuplan monitor` timeline, and how it is computed from two /proc snapshots.
//
// Thread safety: plain values and pure functions.
#ifndef GPUPLAN_SRC_AGENT_MONITOR_SAMPLE_H_
#define GPUPLAN_SRC_AGENT_MONITOR_SAMPLE_H_

#include <optional>
#include <vector>

#include "agent/gpu_telemetry.h"
#include "agent/proc_reader.h"

namespace gpuplan::agent {

// Cumulative host counters at one instant.
struct HostSnapshot {
  double t = 0;  // monotonic seconds
  CpuStat cpu;
  MemInfo mem;
  std::vector<DiskCounters> disks;
  std::vector<NetCounters> nets;
  std::optional<ProcessCpu> process;  // the followed process, when there is one
};

struct MonitorSample {
  double elapsed_s = 0;  // since monitoring started
  double unix_time = 0;
  std::vector<GpuSample> gpus;  // empty without GPU telemetry
  double cpu_util_pct = 0;      // all cores: busy share of the interval
  double cpu_iowait_pct = 0;    // share of the interval CPUs sat idle waiting for I/O
  std::vector<double> core_util_pct;
  double mem_used_gib = 0;  // MemTotal - MemAvailable
  double mem_total_gib = 0;
  double disk_read_mbs = 0;  // all whole disks, MB/s (10^6 bytes/s)
  double disk_write_mbs = 0;
  double disk_util_pct = 0;  // the busiest disk's share of time with I/O in flight
  double net_rx_mbs = 0;     // all interfaces but lo, MB/s
  double net_tx_mbs = 0;
  std::optional<double> process_cpu_pct;  // the followed process; 100 = one full core

  double MaxCorePct() const;
  // Mean utilisation over GPUs; nullopt without GPUs.
  std::optional<double> MeanGpuUtil() const;
};

// The rates between two snapshots (cur.t > prev.t). Counters that went backwards (a reset or an
// interface that came and went) count as zero. `ticks_per_second` is USER_HZ (100 on Linux).
MonitorSample SampleBetween(const HostSnapshot& prev, const HostSnapshot& cur,
                            double ticks_per_second = 100);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_MONITOR_SAMPLE_H_
