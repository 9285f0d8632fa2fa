#include "agent/monitor_sample.h"

#include <algorithm>
#include <string>

namespace gpuplan::agent {
namespace {

double Delta(uint64_t prev, uint64_t cur) {
  return cur >= prev ? static_cast<double>(cur - prev) : 0.0;
}

// Busy and iowait percentages of one CPU line between two readings.
void CpuPercent(const CpuTimes& a, const CpuTimes& b, double* busy, double* iowait) {
  const double total = Delta(a.Total(), b.Total());
  if (total <= 0) {
    *busy = 0;
    if (iowait)
      *iowait = 0;
    return;
  }
  *busy = std::clamp(100.0 * Delta(a.Busy(), b.Busy()) / total, 0.0, 100.0);
  if (iowait)
    *iowait = std::clamp(100.0 * Delta(a.iowait, b.iowait) / total, 0.0, 100.0);
}

template <typename T>
const T* ByName(const std::vector<T>& items, const std::string& name) {
  for (const T& x : items) {
    if (x.name == name)
      return &x;
  }
  return nullptr;
}

}  // namespace

double MonitorSample::MaxCorePct() const {
  return core_util_pct.empty() ? cpu_util_pct
                               : *std::max_element(core_util_pct.begin(), core_util_pct.end());
}

std::optional<double> MonitorSample::MeanGpuUtil() const {
  if (gpus.empty())
    return std::nullopt;
  double sum = 0;
  for (const GpuSample& g : gpus)
    sum += g.util_pct;
  return sum / static_cast<double>(gpus.size());
}

MonitorSample SampleBetween(const HostSnapshot& prev, const HostSnapshot& cur,
                            double ticks_per_second) {
  MonitorSample s;
  const double dt = cur.t - prev.t;
  CpuPercent(prev.cpu.all, cur.cpu.all, &s.cpu_util_pct, &s.cpu_iowait_pct);
  const size_t cores = std::min(prev.cpu.cores.size(), cur.cpu.cores.size());
  for (size_t i = 0; i < cores; ++i) {
    double busy = 0;
    CpuPercent(prev.cpu.cores[i], cur.cpu.cores[i], &busy, nullptr);
    s.core_util_pct.push_back(busy);
  }
  constexpr double kKibPerGib = 1024.0 * 1024.0;
  s.mem_total_gib = static_cast<double>(cur.mem.total_kib) / kKibPerGib;
  s.mem_used_gib = static_cast<double>(cur.mem.total_kib - cur.mem.available_kib) / kKibPerGib;
  if (dt <= 0)
    return s;
  for (const DiskCounters& d : cur.disks) {
    const DiskCounters* p = ByName(prev.disks, d.name);
    if (!p)
      continue;
    s.disk_read_mbs += Delta(p->read_bytes, d.read_bytes) / dt / 1e6;
    s.disk_write_mbs += Delta(p->written_bytes, d.written_bytes) / dt / 1e6;
    // io_ms grows by at most 1000 per second; above that is clock jitter.
    s.disk_util_pct =
        std::max(s.disk_util_pct, std::min(100.0, Delta(p->io_ms, d.io_ms) / (dt * 10.0)));
  }
  for (const NetCounters& n : cur.nets) {
    const NetCounters* p = ByName(prev.nets, n.name);
    if (!p)
      continue;
    s.net_rx_mbs += Delta(p->rx_bytes, n.rx_bytes) / dt / 1e6;
    s.net_tx_mbs += Delta(p->tx_bytes, n.tx_bytes) / dt / 1e6;
  }
  if (prev.process && cur.process && ticks_per_second > 0) {
    s.process_cpu_pct =
        100.0 * Delta(prev.process->cpu_ticks, cur.process->cpu_ticks) / ticks_per_second / dt;
  }
  return s;
}

}  // namespace gpuplan::agent
