// Host measurements for `gpuplan probe`: read throughput of the dataset disk and CPU throughput.
//
// Thread safety: each call is independent; they start and join their own threads.
#ifndef GPUPLAN_SRC_AGENT_HOST_PROBE_H_
#define GPUPLAN_SRC_AGENT_HOST_PROBE_H_

#include <string>

#include "gpuplan/status.h"

namespace gpuplan::agent {

struct DiskProbeOptions {
  // Size of the test file created in a directory (a regular file is read as it is, up to this
  // size). Larger than the disk's cache, small enough to write in seconds on a cloud disk.
  double file_mib = 256;
  double seconds = 1.0;     // time limit of each read phase
  int random_threads = 16;  // concurrent 4 KiB readers: queue depth 16, like a data loader's
};

struct DiskProbeResult {
  std::string path;             // the file that was read
  bool direct_io = false;       // O_DIRECT: the page cache did not help
  double seq_read_mbs = 0;      // 1 MiB sequential reads, MB/s (10^6 bytes/s)
  double random_read_iops = 0;  // 4 KiB random reads per second
  double random_read_mbs = 0;
  std::string note;  // how it was measured, or why a phase fell back
};

// Measures reads of `path`: a directory gets a temporary test file (written, synced, read,
// removed); a regular file is read in place. Returns kNotFound/kIoError naming the path.
Result<DiskProbeResult> MeasureDiskRead(const std::string& path, const DiskProbeOptions& options);

struct CpuProbeResult {
  int online_cpus = 0;          // what the kernel schedules on (sched_getaffinity)
  double gflops_one_core = 0;   // double-precision multiply-add throughput of one thread
  double gflops_all_cores = 0;  // the same kernel on every online CPU at once
};

// Runs a register-resident multiply-add loop for `seconds` on one thread, then on all CPUs.
CpuProbeResult MeasureCpu(double seconds);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_HOST_PROBE_H_
