// Host counters from Linux /proc: CPU time per core, memory, disk and network byte counters.
//
// The parsers take file contents and a name for messages, so they are pure and fuzzable; the
// ProcReader reads the files under a root directory, so tests point it at fake trees in
// tests/testdata/proc/ (as leveldb's Env is swapped for memenv). Formats follow proc(5) and the
// kernel's Documentation/admin-guide/iostats.rst.
//
//   ProcReader proc("/proc");
//   Result<CpuStat> cpu = proc.ReadCpu();
//
// Thread safety: ProcReader holds only its root; calls are thread-safe.
#ifndef GPUPLAN_SRC_AGENT_PROC_READER_H_
#define GPUPLAN_SRC_AGENT_PROC_READER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuplan/status.h"

namespace gpuplan::agent {

// Jiffies (USER_HZ ticks) a CPU spent in each state since boot (/proc/stat).
struct CpuTimes {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  uint64_t Total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  // Time not idle and not waiting for I/O.
  uint64_t Busy() const { return Total() - idle - iowait; }
};

struct CpuStat {
  CpuTimes all;                 // the "cpu" line: all cores together
  std::vector<CpuTimes> cores;  // "cpu0", "cpu1", ... in order
};

struct MemInfo {
  uint64_t total_kib = 0;
  uint64_t available_kib = 0;  // MemAvailable: what can be used without swapping
};

// Cumulative counters of one whole disk (partitions and loop/ram devices are left out).
struct DiskCounters {
  std::string name;
  uint64_t read_bytes = 0;  // sectors read * 512 (the unit is always 512 bytes)
  uint64_t written_bytes = 0;
  uint64_t io_ms = 0;  // time with I/O in flight; its rate is the disk's utilisation
};

// Cumulative counters of one network interface (loopback left out).
struct NetCounters {
  std::string name;
  uint64_t rx_bytes = 0;
  uint64_t tx_bytes = 0;
};

// Parsers: `content` is the file, `name` is used in messages ("/proc/stat:3: ...").
Result<CpuStat> ParseCpuStat(std::string_view content, std::string_view name);
Result<MemInfo> ParseMemInfo(std::string_view content, std::string_view name);
Result<std::vector<DiskCounters>> ParseDiskStats(std::string_view content, std::string_view name);
Result<std::vector<NetCounters>> ParseNetDev(std::string_view content, std::string_view name);
// /proc/PID/stat: utime + stime in jiffies, and the state letter.
struct ProcessCpu {
  char state = '?';
  uint64_t cpu_ticks = 0;
};
Result<ProcessCpu> ParseProcessStat(std::string_view content, std::string_view name);

class ProcReader {
 public:
  explicit ProcReader(std::string root = "/proc") : root_(std::move(root)) {}

  Result<CpuStat> ReadCpu() const;
  Result<MemInfo> ReadMemInfo() const;
  Result<std::vector<DiskCounters>> ReadDiskStats() const;
  Result<std::vector<NetCounters>> ReadNetDev() const;
  Result<ProcessCpu> ReadProcess(int pid) const;
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_PROC_READER_H_
