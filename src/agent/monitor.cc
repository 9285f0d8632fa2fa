#include "agent/monitor.h"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <nlohmann/json.hpp>
#include <ostream>

#include "agent/clock.h"
#include "agent/gpu_telemetry.h"
#include "agent/proc_reader.h"
#include "agent/process_util.h"
#include "gpuplan/strings.h"

namespace gpuplan::agent {
namespace {

std::string F(double v) { return fmt::format("{:.2f}", v); }
std::string F(const std::optional<double>& v) { return v ? F(*v) : ""; }

Result<HostSnapshot> Snapshot(const ProcReader& proc, int pid, double t) {
  HostSnapshot s;
  s.t = t;
  Result<CpuStat> cpu = proc.ReadCpu();
  if (!cpu.ok())
    return cpu.status();
  s.cpu = std::move(*cpu);
  Result<MemInfo> mem = proc.ReadMemInfo();
  if (!mem.ok())
    return mem.status();
  s.mem = *mem;
  // Disks and network are optional in containers: missing files give no columns' data.
  if (Result<std::vector<DiskCounters>> d = proc.ReadDiskStats(); d.ok())
    s.disks = std::move(*d);
  if (Result<std::vector<NetCounters>> n = proc.ReadNetDev(); n.ok())
    s.nets = std::move(*n);
  if (pid > 0) {
    if (Result<ProcessCpu> p = proc.ReadProcess(pid); p.ok())
      s.process = *p;
  }
  return s;
}

}  // namespace

std::string TimelineCsvHeader(const MonitorSample& first) {
  std::vector<std::string> h = {"time_utc", "elapsed_s", "gpu_util_pct", "gpu_mem_used_gib",
                                "gpu_power_w"};
  for (const GpuSample& g : first.gpus) {
    h.push_back(fmt::format("gpu{}_util_pct", g.index));
    h.push_back(fmt::format("gpu{}_mem_used_gib", g.index));
    h.push_back(fmt::format("gpu{}_power_w", g.index));
  }
  for (const char* c : {"cpu_util_pct", "cpu_iowait_pct", "cpu_max_core_pct"})
    h.push_back(c);
  for (size_t i = 0; i < first.core_util_pct.size(); ++i)
    h.push_back(fmt::format("cpu{}_pct", i));
  for (const char* c : {"mem_used_gib", "mem_total_gib", "disk_read_mbs", "disk_write_mbs",
                        "disk_util_pct", "net_rx_mbs", "net_tx_mbs", "process_cpu_pct"}) {
    h.push_back(c);
  }
  return fmt::format("{}\n", fmt::join(h, ","));
}

std::string TimelineCsvRow(const MonitorSample& s, const MonitorSample& first) {
  std::vector<std::string> row = {FormatUtc(s.unix_time), F(s.elapsed_s)};
  double mem = 0, power = 0;
  bool any_power = false;
  for (const GpuSample& g : s.gpus) {
    mem += g.mem_used_gib;
    if (g.power_w) {
      power += *g.power_w;
      any_power = true;
    }
  }
  row.push_back(s.gpus.empty() ? "" : F(s.MeanGpuUtil()));
  row.push_back(s.gpus.empty() ? "" : F(mem));
  row.push_back(any_power ? F(power) : "");
  // Columns follow the header; a GPU or core that disappeared leaves its cells empty.
  for (size_t i = 0; i < first.gpus.size(); ++i) {
    if (i < s.gpus.size()) {
      row.push_back(F(s.gpus[i].util_pct));
      row.push_back(F(s.gpus[i].mem_used_gib));
      row.push_back(F(s.gpus[i].power_w));
    } else {
      row.insert(row.end(), {"", "", ""});
    }
  }
  row.push_back(F(s.cpu_util_pct));
  row.push_back(F(s.cpu_iowait_pct));
  row.push_back(F(s.MaxCorePct()));
  for (size_t i = 0; i < first.core_util_pct.size(); ++i) {
    row.push_back(i < s.core_util_pct.size() ? F(s.core_util_pct[i]) : "");
  }
  for (double v : {s.mem_used_gib, s.mem_total_gib, s.disk_read_mbs, s.disk_write_mbs,
                   s.disk_util_pct, s.net_rx_mbs, s.net_tx_mbs}) {
    row.push_back(F(v));
  }
  row.push_back(F(s.process_cpu_pct));
  return fmt::format("{}\n", fmt::join(row, ","));
}

std::string TimelineJsonLine(const MonitorSample& s) {
  using nlohmann::json;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
  json gpus = json::array();
  for (const GpuSample& g : s.gpus) {
    gpus.push_back({{"index", g.index},
                    {"util_pct", g.util_pct},
                    {"mem_util_pct", g.mem_util_pct},
                    {"mem_used_gib", g.mem_used_gib},
                    {"mem_total_gib", g.mem_total_gib},
                    {"power_w", opt(g.power_w)},
                    {"power_limit_w", opt(g.power_limit_w)}});
  }
  json j = {{"type", "sample"},
            {"time_utc", FormatUtc(s.unix_time)},
            {"elapsed_s", s.elapsed_s},
            {"gpus", gpus},
            {"cpu",
             {{"util_pct", s.cpu_util_pct},
              {"iowait_pct", s.cpu_iowait_pct},
              {"cores_pct", s.core_util_pct}}},
            {"mem", {{"used_gib", s.mem_used_gib}, {"total_gib", s.mem_total_gib}}},
            {"disk",
             {{"read_mbs", s.disk_read_mbs},
              {"write_mbs", s.disk_write_mbs},
              {"util_pct", s.disk_util_pct}}},
            {"net", {{"rx_mbs", s.net_rx_mbs}, {"tx_mbs", s.net_tx_mbs}}},
            {"process_cpu_pct", opt(s.process_cpu_pct)}};
  return j.dump() + "\n";
}

std::string DiagnosisJsonLine(const Diagnosis& d) {
  using nlohmann::json;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
  json findings = json::array();
  for (const Finding& f : d.findings) {
    findings.push_back({{"id", f.id},
                        {"severity", f.severity},
                        {"title", f.title},
                        {"evidence", f.evidence},
                        {"advice", f.advice}});
  }
  json j = {{"type", "diagnosis"},
            {"verdict", d.verdict},
            {"samples", d.samples},
            {"gpu_util_mean_pct", opt(d.gpu_util_mean_pct)},
            {"gpu_power_fraction_mean", opt(d.gpu_power_fraction_mean)},
            {"gpu_memory_peak_fraction", opt(d.gpu_memory_peak_fraction)},
            {"cpu_util_mean_pct", d.cpu_util_mean_pct},
            {"max_core_mean_pct", d.max_core_mean_pct},
            {"cpu_iowait_mean_pct", d.cpu_iowait_mean_pct},
            {"disk_util_mean_pct", d.disk_util_mean_pct},
            {"net_mean_gbps", d.net_mean_gbps},
            {"findings", findings}};
  return j.dump() + "\n";
}

std::string RenderDiagnosis(const Diagnosis& d) {
  std::string out = fmt::format("diagnosis: {} ({} samples)\n", d.verdict, d.samples);
  for (const Finding& f : d.findings) {
    out += fmt::format("  [{}] {}\n      evidence: {}\n      advice: {}\n", f.severity, f.title,
                       f.evidence, f.advice);
  }
  return out;
}

namespace {

// The process monitoring follows: a command it started (`child`), a --pid, or none (0).
struct Watched {
  int pid = 0;
  bool child = false;
  std::optional<int> child_exit;  // once the command has exited
  bool forwarded = false;         // a stop request was passed on to the command
};

// Sleeps to `next` in short steps, so an exited command or a stop request ends the wait at once
// instead of after a whole interval. True when monitoring should end.
bool WaitForTick(MonitorEnvironment& env, Watched& w, double next) {
  Clock& clock = *env.clock;
  while (clock.MonotonicSeconds() < next) {
    if (w.child) {
      if (std::optional<WaitOutcome> outcome = PollChild(w.pid)) {
        w.child_exit = outcome->exit_code;
        return true;
      }
    } else if (w.pid > 0 && CheckProcess(w.pid, env.proc->root()) == ProcessState::kGone) {
      return true;
    }
    if (env.stop && env.stop->load()) {
      if (!w.child)
        return true;
      if (!w.forwarded) {  // let the command stop itself; its exit ends monitoring
        kill(w.pid, SIGTERM);
        w.forwarded = true;
      }
    }
    clock.SleepFor(std::min(0.05, next - clock.MonotonicSeconds()));
  }
  return false;
}

// The GPUs' readings into `s`; a failure is logged once.
void AddGpuReadings(MonitorEnvironment& env, MonitorSample& s, bool* error_logged) {
  if (!env.gpus)
    return;
  Result<std::vector<GpuSample>> g = env.gpus->Sample();
  if (g.ok()) {
    s.gpus = std::move(*g);
  } else if (!*error_logged) {
    *env.log << "gpuplan monitor: GPU sample failed: " << g.status().message() << "\n";
    *error_logged = true;
  }
}

// One timeline line: JSON, or a CSV row (after the header, before the first).
void WriteTimeline(const MonitorOptions& o, MonitorEnvironment& env, const MonitorSample& s,
                   const std::vector<MonitorSample>& earlier) {
  if (o.json) {
    *env.timeline << TimelineJsonLine(s);
  } else {
    if (earlier.empty())
      *env.timeline << TimelineCsvHeader(s);
    *env.timeline << TimelineCsvRow(s, earlier.empty() ? s : earlier.front());
  }
  env.timeline->flush();
}

// Samples every interval until the process ends, a stop request, max_samples or a read error.
void SampleUntilDone(const MonitorOptions& o, MonitorEnvironment& env, Watched& w,
                     MonitorResult& result) {
  Clock& clock = *env.clock;
  Result<HostSnapshot> prev = Snapshot(*env.proc, w.pid, clock.MonotonicSeconds());
  if (!prev.ok()) {
    *env.log << "gpuplan monitor: " << prev.status().message() << "\n";
    result.exit_code = 1;
    return;
  }
  const double start = clock.MonotonicSeconds();
  bool gpu_error_logged = false;
  for (long n = 0;; ++n) {
    if (WaitForTick(env, w, start + static_cast<double>(n + 1) * o.interval_seconds))
      return;
    Result<HostSnapshot> cur = Snapshot(*env.proc, w.pid, clock.MonotonicSeconds());
    if (!cur.ok()) {
      *env.log << "gpuplan monitor: " << cur.status().message() << "\n";
      result.exit_code = 1;
      return;
    }
    MonitorSample s = SampleBetween(*prev, *cur, o.ticks_per_second);
    s.elapsed_s = cur->t - start;
    s.unix_time = clock.UnixSeconds();
    AddGpuReadings(env, s, &gpu_error_logged);
    WriteTimeline(o, env, s, result.samples);
    result.samples.push_back(std::move(s));
    prev = std::move(cur);
    if (o.max_samples > 0 && static_cast<long>(result.samples.size()) >= o.max_samples)
      return;
  }
}

}  // namespace

MonitorResult RunMonitor(const MonitorOptions& o, MonitorEnvironment& env) {
  MonitorResult result;
  std::ostream& log = *env.log;
  Watched w{.pid = o.pid, .child = false, .child_exit = std::nullopt, .forwarded = false};
  if (!o.command.empty()) {
    Result<pid_t> spawned = Spawn(o.command, /*new_process_group=*/false);
    if (!spawned.ok()) {
      log << "gpuplan monitor: " << spawned.status().message() << "\n";
      result.exit_code = 127;
      return result;
    }
    w.pid = *spawned;
    w.child = true;
  }
  if (!env.gpus)
    log << "gpuplan monitor: no GPU telemetry: " << env.gpus_error << "\n";
  SampleUntilDone(o, env, w, result);
  if (w.child && !w.child_exit) {
    // Sampling ended first (max samples, a read error): the command keeps running to its end.
    w.child_exit = WaitForChild(w.pid, -1, 0, *env.clock).exit_code;
  }
  result.diagnosis = Diagnose(result.samples, o.diagnosis);
  if (o.json)
    *env.timeline << DiagnosisJsonLine(result.diagnosis);
  env.timeline->flush();
  log << RenderDiagnosis(result.diagnosis);
  if (w.child_exit)
    result.exit_code = *w.child_exit;
  return result;
}

}  // namespace gpuplan::agent
