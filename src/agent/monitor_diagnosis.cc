#include "agent/monitor_diagnosis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gpuplan/strings.h"

namespace gpuplan::agent {
namespace {

using strings::Num;

double Mean(const std::vector<double>& v) {
  if (v.empty())
    return 0;
  double s = 0;
  for (double x : v)
    s += x;
  return s / static_cast<double>(v.size());
}

std::string Pct(double v) { return Num(std::round(v)) + "%"; }

Finding DataLoading(const Diagnosis& d, const DiagnosisOptions& o, bool cpu, bool one_core,
                    bool disk) {
  Finding f;
  f.id = "data-loading-bound";
  f.severity = "warning";
  f.title = "Data-loading bound: the GPU waits for input";
  std::vector<std::string> ev = {fmt::format("GPU utilisation {}", Pct(*d.gpu_util_mean_pct))};
  std::vector<std::string> advice;
  // Each bottleneck seen: its evidence and what to do about it.
  struct Sign {
    bool seen;
    std::string evidence;
    const char* advice;
  };
  const Sign signs[] = {
      {cpu,
       fmt::format("CPU {} (saturated at {})", Pct(d.cpu_util_mean_pct), Pct(o.cpu_saturated_pct)),
       "choose a type with more vCPU per GPU and raise DataLoader num_workers; "
       "move decoding/augmentation to the GPU (DALI) or pre-process offline"},
      {one_core,
       fmt::format("busiest core {} while the average is {}", Pct(d.max_core_mean_pct),
                   Pct(d.cpu_util_mean_pct)),
       "one core is saturated: the loader runs in the main process; set "
       "num_workers > 0 and pin_memory=True"},
      {disk,
       fmt::format("disk utilisation {}, iowait {}", Pct(d.disk_util_mean_pct),
                   Pct(d.cpu_iowait_mean_pct)),
       "the disk is saturated: use a faster disk (ESSD PL2/PL3 or the type's "
       "local NVMe), cache the dataset locally, or store it in larger shards"},
  };
  for (const Sign& s : signs) {
    if (!s.seen)
      continue;
    ev.push_back(s.evidence);
    advice.push_back(s.advice);
  }
  f.evidence = fmt::format("{}", fmt::join(ev, "; "));
  f.advice = fmt::format("{}", fmt::join(advice, "; "));
  return f;
}

constexpr const char* kCommunicationAdvice =
    "use an eRDMA-capable type (or NVLink/NVSwitch inside one node for tensor parallelism), "
    "accumulate gradients over more micro-batches, overlap communication with compute "
    "(DDP bucket sizes, FSDP prefetch), or use fewer, larger nodes";

// The samples as series, one value per sample (per GPU for `per_gpu`).
struct Series {
  std::vector<double> gpu_util, power_frac, cpu, max_core, iowait, disk, net, host_mem;
  double mem_peak = -1;  // the highest GPU memory fraction; -1 = no GPU memory seen
  std::map<int, std::vector<double>> per_gpu;
};

Series Collect(const std::vector<MonitorSample>& samples) {
  Series v;
  for (const MonitorSample& s : samples) {
    v.cpu.push_back(s.cpu_util_pct);
    v.max_core.push_back(s.MaxCorePct());
    v.iowait.push_back(s.cpu_iowait_pct);
    v.disk.push_back(s.disk_util_pct);
    v.net.push_back((s.net_rx_mbs + s.net_tx_mbs) * 8 / 1000);  // MB/s -> Gbit/s
    if (s.mem_total_gib > 0)
      v.host_mem.push_back(s.mem_used_gib / s.mem_total_gib);
    if (std::optional<double> u = s.MeanGpuUtil())
      v.gpu_util.push_back(*u);
    for (const GpuSample& g : s.gpus) {
      v.per_gpu[g.index].push_back(g.util_pct);
      if (g.mem_total_gib > 0)
        v.mem_peak = std::max(v.mem_peak, g.mem_used_gib / g.mem_total_gib);
      if (g.power_w && g.power_limit_w && *g.power_limit_w > 0) {
        v.power_frac.push_back(*g.power_w / *g.power_limit_w);
      }
    }
  }
  return v;
}

void SetMeans(const Series& v, Diagnosis& d) {
  d.cpu_util_mean_pct = Mean(v.cpu);
  d.max_core_mean_pct = Mean(v.max_core);
  d.cpu_iowait_mean_pct = Mean(v.iowait);
  d.disk_util_mean_pct = Mean(v.disk);
  d.net_mean_gbps = Mean(v.net);
  if (!v.gpu_util.empty())
    d.gpu_util_mean_pct = Mean(v.gpu_util);
  if (!v.power_frac.empty())
    d.gpu_power_fraction_mean = Mean(v.power_frac);
  if (v.mem_peak >= 0)
    d.gpu_memory_peak_fraction = v.mem_peak;
}

// Which host resources are saturated on average.
struct HostStrain {
  bool cpu = false;
  bool one_core = false;  // one core saturated while the average is not
  bool disk = false;
  bool net = false;
  bool InputPipeline() const { return cpu || one_core || disk; }
};

HostStrain StrainOf(const Diagnosis& d, const DiagnosisOptions& o) {
  HostStrain h;
  h.cpu = d.cpu_util_mean_pct >= o.cpu_saturated_pct;
  h.one_core = !h.cpu && d.max_core_mean_pct >= o.core_saturated_pct;
  h.disk =
      d.disk_util_mean_pct >= o.disk_saturated_pct || d.cpu_iowait_mean_pct >= o.iowait_high_pct;
  h.net = o.network_gbps && *o.network_gbps > 0 &&
          d.net_mean_gbps >= *o.network_gbps * o.network_saturated_fraction;
  return h;
}

// No GPU telemetry: the host side still tells whether an input pipeline would starve a GPU.
void NoGpuVerdict(const HostStrain& h, Diagnosis& d) {
  d.verdict = "no-gpu-data";
  d.findings.push_back({"no-gpu-data", "info", "No GPU telemetry",
                        "NVML was not available, so GPU utilisation is unknown",
                        "run on the GPU instance with the NVIDIA driver installed"});
  if (h.InputPipeline()) {
    d.findings.push_back(
        {"host-saturated", "warning", "The host is saturated",
         fmt::format("CPU {}, busiest core {}, disk {}, iowait {}", Pct(d.cpu_util_mean_pct),
                     Pct(d.max_core_mean_pct), Pct(d.disk_util_mean_pct),
                     Pct(d.cpu_iowait_mean_pct)),
         "a GPU job with this input pipeline would wait for data: more vCPU, more loader "
         "workers or a faster disk"});
  }
}

// Busy GPUs: GPU-bound, unless several draw little power (NCCL waits count as busy).
void BusyVerdict(const DiagnosisOptions& o, size_t gpus, Diagnosis& d) {
  if (d.gpu_power_fraction_mean && *d.gpu_power_fraction_mean < o.low_power_fraction && gpus > 1) {
    d.verdict = "communication-bound";
    d.findings.push_back(
        {"communication-bound", "warning",
         "Communication bound (suspected): GPUs look busy but draw little power",
         fmt::format("GPU utilisation {} at {} of the power limit; NCCL kernels waiting for "
                     "peers count as busy",
                     Pct(*d.gpu_util_mean_pct), Pct(100 * *d.gpu_power_fraction_mean)),
         kCommunicationAdvice});
    return;
  }
  d.verdict = "gpu-bound";
  d.findings.push_back({"gpu-bound", "info", "GPU-bound: the GPUs are the bottleneck",
                        fmt::format("GPU utilisation {}", Pct(*d.gpu_util_mean_pct)),
                        "good: you pay for GPUs and use them; to go faster use mixed "
                        "precision, flash attention, or more/faster GPUs"});
}

// Idle GPUs: what they wait for (input, network) or, with nothing saturated, what else to look at.
void IdleVerdict(const DiagnosisOptions& o, const HostStrain& h, Diagnosis& d) {
  if (h.InputPipeline()) {
    d.verdict = "data-loading-bound";
    d.findings.push_back(DataLoading(d, o, h.cpu, h.one_core, h.disk));
  } else if (h.net) {
    d.verdict = "communication-bound";
    d.findings.push_back(
        {"communication-bound", "warning",
         "Communication bound: the GPU waits while the network is near its limit",
         fmt::format("GPU utilisation {}; network {} of {} Gbit/s", Pct(*d.gpu_util_mean_pct),
                     Num(d.net_mean_gbps), Num(*o.network_gbps)),
         kCommunicationAdvice});
  } else {
    d.verdict = "underutilised";
    d.findings.push_back(
        {"underutilised", "warning", "GPU underutilised with no saturated host resource",
         fmt::format("GPU utilisation {}, CPU {}, disk {}, network {} Gbit/s",
                     Pct(*d.gpu_util_mean_pct), Pct(d.cpu_util_mean_pct), Pct(d.disk_util_mean_pct),
                     Num(d.net_mean_gbps)),
         "the job may be too small for this GPU (raise the batch size, or rent a smaller "
         "GPU), synchronising often (.item(), logging every step), or waiting on something "
         "outside the machine; profile a few steps with torch.profiler"});
  }
}

// Between idle and busy: partly GPU-bound, with the input pipeline's strain if any.
void MixedVerdict(const DiagnosisOptions& o, const HostStrain& h, Diagnosis& d) {
  d.verdict = "mixed";
  d.findings.push_back(
      {"mixed", "info", "Partly GPU-bound",
       fmt::format("GPU utilisation {} (between {} and {})", Pct(*d.gpu_util_mean_pct),
                   Pct(o.gpu_idle_pct), Pct(o.gpu_busy_pct)),
       h.InputPipeline() ? "input pipeline shows strain: see the data-loading finding"
                         : "some steps wait; overlap data loading and communication with compute"});
  if (h.InputPipeline())
    d.findings.push_back(DataLoading(d, o, h.cpu, h.one_core, h.disk));
}

// Data-parallel ranks do the same work; a 25-point spread means one rank waits for others.
void AddImbalance(const std::map<int, std::vector<double>>& per_gpu, Diagnosis& d) {
  if (per_gpu.size() < 2)
    return;
  double lo = 101, hi = -1;
  int lo_i = 0, hi_i = 0;
  for (const auto& [i, v] : per_gpu) {
    const double m = Mean(v);
    if (m < lo)
      lo = m, lo_i = i;
    if (m > hi)
      hi = m, hi_i = i;
  }
  if (hi - lo >= 25) {
    d.findings.push_back(
        {"gpu-imbalance", "warning", "GPUs are unevenly used",
         fmt::format("GPU {} at {}, GPU {} at {}", hi_i, Pct(hi), lo_i, Pct(lo)),
         "check that every GPU runs a rank (CUDA_VISIBLE_DEVICES, torchrun --nproc_per_node) "
         "and that pipeline stages are balanced"});
  }
}

// GPU memory left unused (a bigger micro-batch fits) or nearly full (a spike will OOM), and
// host memory nearly full.
void AddMemoryFindings(const Series& v, const DiagnosisOptions& o, Diagnosis& d) {
  if (d.gpu_memory_peak_fraction) {
    const double f = *d.gpu_memory_peak_fraction;
    if (f < o.memory_headroom_fraction) {
      d.findings.push_back(
          {"memory-headroom", "info", "GPU memory headroom left",
           fmt::format("peak GPU memory {} of the total", Pct(100 * f)),
           "raise the micro-batch size (fewer steps, better GEMM efficiency), turn off "
           "activation recomputation, or rent a GPU with less memory for this job"});
    } else if (f >= o.memory_full_fraction) {
      d.findings.push_back(
          {"memory-near-full", "warning", "GPU memory nearly full",
           fmt::format("peak GPU memory {} of the total", Pct(100 * f)),
           "an allocation spike will run out of memory: lower the micro-batch, enable "
           "recomputation or ZeRO/FSDP sharding, or set "
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"});
    }
  }
  if (v.host_mem.empty())
    return;
  const double host_peak = *std::max_element(v.host_mem.begin(), v.host_mem.end());
  if (host_peak >= o.host_memory_full_fraction) {
    d.findings.push_back(
        {"host-memory-near-full", "warning", "Host memory nearly full",
         fmt::format("peak host memory {} of the total", Pct(100 * host_peak)),
         "loader workers may be killed by the OOM killer: fewer workers, smaller prefetch, or "
         "a type with more RAM per GPU"});
  }
}

}  // namespace

Diagnosis Diagnose(const std::vector<MonitorSample>& samples, const DiagnosisOptions& o) {
  Diagnosis d;
  d.samples = static_cast<int>(samples.size());
  if (samples.size() < 2) {
    d.verdict = "too-short";
    d.findings.push_back({"too-short", "info", "Too few samples to diagnose",
                          fmt::format("{} sample(s)", samples.size()),
                          "monitor for at least a few training steps (tens of seconds)"});
    return d;
  }
  const Series v = Collect(samples);
  SetMeans(v, d);
  const HostStrain strain = StrainOf(d, o);
  if (!d.gpu_util_mean_pct) {
    NoGpuVerdict(strain, d);
  } else if (*d.gpu_util_mean_pct >= o.gpu_busy_pct) {
    BusyVerdict(o, v.per_gpu.size(), d);
  } else if (*d.gpu_util_mean_pct < o.gpu_idle_pct) {
    IdleVerdict(o, strain, d);
  } else {
    MixedVerdict(o, strain, d);
  }
  AddImbalance(v.per_gpu, d);
  AddMemoryFindings(v, o, d);
  return d;
}

}  // namespace gpuplan::agent
