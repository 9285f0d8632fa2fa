// Fuzzes the /proc parsers the monitor and probe read (/proc/stat, meminfo, diskstats, net/dev,
// PID/stat): malformed kernels' or containers' files must give an error, never a crash, and
// parsed values must keep their invariants.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "agent/proc_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan::agent;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto cpu = ParseCpuStat(text, "stat"); cpu.ok()) {
    if (cpu->all.Busy() > cpu->all.Total())
      std::abort();
  }
  if (auto mem = ParseMemInfo(text, "meminfo"); mem.ok()) {
    if (mem->available_kib > mem->total_kib)
      std::abort();
  }
  if (auto disks = ParseDiskStats(text, "diskstats"); disks.ok()) {
    for (const DiskCounters& d : *disks) {
      if (d.name.empty())
        std::abort();
    }
  }
  if (auto nets = ParseNetDev(text, "dev"); nets.ok()) {
    for (const NetCounters& n : *nets) {
      if (n.name == "lo")
        std::abort();
    }
  }
  (void)ParseProcessStat(text, "1/stat");
  return 0;
}
