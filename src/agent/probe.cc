#include "agent/probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "agent/clock.h"
#include "agent/metadata_client.h"
#include "agent/proc_reader.h"
#include "gpuplan/catalog.h"
#include "gpuplan/strings.h"
#include "io/table.h"

namespace gpuplan::agent {
namespace {

using strings::Num;

constexpr const char* kInstanceTypePath = "/latest/meta-data/instance/instance-type";

struct MetricDef {
  const char* id;
  const char* label;
  const char* unit;
};
// Per-GPU metrics, in table order. Ids are shared with the CUDA plugin (cuda/cuda_probe.cu).
constexpr MetricDef kGpuMetrics[] = {
    {"gpu_memory_gib", "GPU memory", "GiB"},
    {"pcie_gen", "PCIe generation", "gen"},
    {"gemm_fp32_tflops", "GEMM FP32", "TFLOPS"},
    {"gemm_tf32_tflops", "GEMM TF32 (tensor)", "TFLOPS"},
    {"gemm_bf16_tflops", "GEMM BF16 (tensor)", "TFLOPS"},
    {"gemm_fp16_tflops", "GEMM FP16 (tensor)", "TFLOPS"},
    {"memory_bandwidth_gbs", "Device memory copy", "GB/s"},
    {"h2d_gbs", "Host to device (pinned)", "GB/s"},
    {"d2h_gbs", "Device to host (pinned)", "GB/s"},
};
// Metrics that only exist between GPUs.
constexpr MetricDef kMultiGpuMetrics[] = {
    {"p2p_gbs", "GPU 0 to GPU n copy", "GB/s"},
    {"allreduce_busbw_gbs", "NCCL all-reduce bus bw", "GB/s"},
};

const MetricDef* FindDef(std::string_view id) {
  for (const MetricDef& d : kGpuMetrics) {
    if (d.id == id)
      return &d;
  }
  for (const MetricDef& d : kMultiGpuMetrics) {
    if (d.id == id)
      return &d;
  }
  return nullptr;
}

ProbeMetric Make(const char* id, const char* label, const char* unit, int gpu) {
  ProbeMetric m;
  m.id = id;
  m.label = label;
  m.unit = unit;
  m.gpu = gpu;
  return m;
}

// An instance type name as the metadata service returns it: "ecs.gn8v.4xlarge".
bool PlausibleInstanceName(const std::string& s) {
  if (s.empty() || s.size() > 64)
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
  });
}

// The catalog GPU for a driver name such as "NVIDIA H200" or "Tesla T4".
const Gpu* MatchGpu(const Catalog& catalog, std::string name) {
  for (const char* prefix : {"NVIDIA ", "Tesla "}) {
    if (name.rfind(prefix, 0) == 0)
      name = name.substr(std::string_view(prefix).size());
  }
  if (const Gpu* g = catalog.FindGpu(name))
    return g;
  const size_t space = name.find(' ');
  if (space != std::string::npos)
    return catalog.FindGpu(name.substr(0, space));
  return nullptr;
}

void DetectInstance(const ProbeOptions& o, ProbeEnvironment& env, const Catalog& catalog,
                    ProbeReport& r, const InstanceType** type) {
  if (!o.instance.empty()) {
    r.instance_type = o.instance;
    r.instance_source = "flag";
  } else if (env.metadata) {
    MetadataReply reply = env.metadata->Get(kInstanceTypePath);
    std::string body = reply.body;
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r'))
      body.pop_back();
    if (reply.kind == MetadataReply::Kind::kOk && PlausibleInstanceName(body)) {
      r.instance_type = body;
      r.instance_source = "metadata";
    } else {
      r.instance_source = "unknown";
      r.notes.push_back(fmt::format(
          "instance type unknown (metadata service: {}); pass --instance to compare with the "
          "catalog",
          reply.kind == MetadataReply::Kind::kOk ? "reply is not an instance type name"
                                                 : reply.error));
    }
  } else {
    r.instance_source = "unknown";
    r.notes.push_back("instance type unknown (" + env.metadata_error +
                      "); pass --instance to compare with the catalog");
  }
  if (r.instance_type.empty())
    return;
  *type = catalog.FindInstance(r.instance_type);
  r.instance_in_catalog = *type != nullptr;
  if (!*type) {
    std::vector<std::string> near = catalog.SuggestInstances(r.instance_type);
    r.notes.push_back(
        fmt::format("instance type \"{}\" is not in the catalog{}", r.instance_type,
                    near.empty() ? "" : fmt::format("; did you mean {}?", fmt::join(near, ", "))));
  } else {
    r.instance_type = (*type)->name;
  }
}

// The devices NVML lists, with the driver version.
void AddNvmlDevices(ProbeEnvironment& env, ProbeReport& r, std::map<int, ProbeDevice>& devices,
                    bool* count_known) {
  if (!env.telemetry) {
    r.notes.push_back("no NVML: " + env.telemetry_error);
    return;
  }
  Result<std::vector<GpuInfo>> infos = env.telemetry->Devices();
  if (!infos.ok()) {
    r.notes.push_back("NVML: " + infos.status().message());
    return;
  }
  *count_known = true;
  for (const GpuInfo& g : *infos) {
    devices[g.index] = ProbeDevice{.index = g.index,
                                   .name = g.name,
                                   .memory_gib = g.memory_total_gib,
                                   .compute_capability = "",
                                   .pcie_gen_max = g.pcie_gen_max,
                                   .pcie_width_max = g.pcie_width_max,
                                   .power_limit_w = g.power_limit_w};
    r.driver_version = g.driver_version;
  }
}

// Runs the CUDA plugin; what it saw fills in the devices (NVML's name and memory win).
CudaProbeResult RunCuda(const ProbeOptions& o, ProbeEnvironment& env,
                        std::map<int, ProbeDevice>& devices, bool* count_known) {
  CudaProbeResult cuda;
  if (!env.cuda) {
    cuda.skipped.push_back({-1, "*", env.cuda_error});
    return cuda;
  }
  cuda = env.cuda->Run(o.cuda);
  for (const CudaDevice& c : cuda.devices) {
    ProbeDevice& d = devices[c.index];
    d.index = c.index;
    if (d.name.empty())
      d.name = c.name;
    if (d.memory_gib <= 0)
      d.memory_gib = c.memory_gib;
    d.compute_capability = fmt::format("{}.{}", c.cc_major, c.cc_minor);
  }
  if (!cuda.devices.empty())
    *count_known = true;
  return cuda;
}

// The catalog GPU: the instance type's, else the one the driver names; notes when neither
// matches or the two disagree.
const Gpu* IdentifyGpu(const Catalog& catalog, const InstanceType* type, ProbeReport& r) {
  const Gpu* gpu = type ? &catalog.GpuOf(*type) : nullptr;
  const Gpu* seen = r.devices.empty() ? nullptr : MatchGpu(catalog, r.devices.front().name);
  if (!gpu)
    gpu = seen;
  if (gpu)
    r.gpu_model = gpu->name;
  if (!gpu && !r.devices.empty()) {
    r.notes.push_back(fmt::format("GPU \"{}\" not matched to the catalog; pass --instance",
                                  r.devices.front().name));
  }
  if (type && gpu && seen && seen->name != gpu->name) {
    r.notes.push_back(fmt::format("the driver reports \"{}\" but the catalog says {} has {}",
                                  r.devices.front().name, type->name, gpu->name));
  }
  return gpu;
}

// Why the CUDA plugin skipped `id` on GPU `g` (or on every GPU), or "".
std::string SkipReason(const CudaProbeResult& cuda, int g, std::string_view id) {
  for (const CudaSkip& s : cuda.skipped) {
    if ((s.gpu == g || s.gpu == -1) && (s.metric == id || s.metric == "*"))
      return s.reason;
  }
  return "";
}

// The CUDA plugin's value of `m` (its id and GPU), with how it was measured.
void FillFromCuda(const CudaProbeResult& cuda, ProbeMetric& m) {
  for (const CudaMeasurement& c : cuda.measurements) {
    if (c.gpu == m.gpu && c.metric == m.id) {
      m.measured = c.value;
      m.note = c.how;
    }
  }
}

ProbeMetric GpuCountMetric(bool count_known, const ProbeReport& r, const CudaProbeResult& cuda) {
  ProbeMetric count = Make("gpu_count", "GPUs visible", "count", -1);
  if (count_known) {
    count.measured = static_cast<double>(r.devices.size());
    return count;
  }
  std::string cuda_why;
  for (const CudaSkip& s : cuda.skipped) {
    if (s.gpu == -1 && s.metric == "*")
      cuda_why = s.reason;
  }
  count.note = "cannot count GPUs: no NVML" + (cuda_why.empty() ? "" : "; " + cuda_why);
  return count;
}

// One row per GPU and metric; with no GPU one row per metric says why it is missing.
void AddPerGpuMetrics(const ProbeEnvironment& env, const CudaProbeResult& cuda, ProbeReport& r) {
  std::vector<int> gpu_rows;
  for (const ProbeDevice& d : r.devices)
    gpu_rows.push_back(d.index);
  if (gpu_rows.empty())
    gpu_rows.push_back(-1);
  for (int g : gpu_rows) {
    const ProbeDevice* d = nullptr;
    for (const ProbeDevice& x : r.devices) {
      if (x.index == g)
        d = &x;
    }
    for (const MetricDef& def : kGpuMetrics) {
      ProbeMetric m = Make(def.id, def.label, def.unit, g);
      if (m.id == "gpu_memory_gib") {
        if (d && d->memory_gib > 0)
          m.measured = d->memory_gib;
      } else if (m.id == "pcie_gen") {
        if (d && d->pcie_gen_max)
          m.measured = *d->pcie_gen_max;
        if (!m.measured)
          m.note = env.telemetry ? "NVML did not report it" : "needs NVML";
      } else {
        FillFromCuda(cuda, m);
      }
      if (!m.measured && m.note.empty()) {
        m.note = SkipReason(cuda, g, m.id);
        if (m.note.empty())
          m.note = g < 0 ? "no GPU found" : "not reported by the CUDA probe";
      }
      r.metrics.push_back(std::move(m));
    }
  }
}

// GPU-to-GPU rows: one p2p row per peer of GPU 0, one all-reduce row; then anything else the
// plugin measured (a newer plugin), kept as informational.
void AddMultiGpuMetrics(const CudaProbeResult& cuda, ProbeReport& r) {
  bool any_peer = false;
  for (const CudaMeasurement& c : cuda.measurements) {
    if (c.metric != "p2p_gbs")
      continue;
    any_peer = true;
    ProbeMetric m = Make("p2p_gbs", "GPU 0 to GPU n copy", "GB/s", c.gpu);
    FillFromCuda(cuda, m);
    r.metrics.push_back(std::move(m));
  }
  if (!any_peer) {
    ProbeMetric m = Make("p2p_gbs", "GPU 0 to GPU n copy", "GB/s", -1);
    m.note = SkipReason(cuda, -1, "p2p_gbs");
    if (m.note.empty())
      m.note = "needs at least 2 GPUs";
    r.metrics.push_back(std::move(m));
  }
  ProbeMetric all_reduce = Make("allreduce_busbw_gbs", "NCCL all-reduce bus bw", "GB/s", -1);
  for (const CudaMeasurement& c : cuda.measurements) {
    if (c.metric == all_reduce.id) {
      all_reduce.measured = c.value;
      all_reduce.note = c.how;
    }
  }
  if (!all_reduce.measured) {
    all_reduce.note = SkipReason(cuda, -1, all_reduce.id);
    if (all_reduce.note.empty())
      all_reduce.note = "needs at least 2 GPUs";
  }
  r.metrics.push_back(std::move(all_reduce));
  for (const CudaMeasurement& c : cuda.measurements) {
    if (FindDef(c.metric))
      continue;
    ProbeMetric m = Make(c.metric.c_str(), c.metric.c_str(), "", c.gpu);
    m.measured = c.value;
    m.note = c.how;
    r.metrics.push_back(std::move(m));
  }
}

// vCPUs and scalar FP64 throughput on one core and on all.
void AddCpuMetrics(const ProbeOptions& o, ProbeReport& r) {
  ProbeMetric vcpu = Make("vcpu_count", "vCPUs online", "count", -1);
  ProbeMetric one = Make("cpu_gflops_one_core", "CPU FP64 one core (scalar)", "GFLOPS", -1);
  ProbeMetric all = Make("cpu_gflops_all_cores", "CPU FP64 all cores (scalar)", "GFLOPS", -1);
  if (!o.skip_cpu) {
    CpuProbeResult cpu = MeasureCpu(o.cpu_seconds);
    vcpu.measured = cpu.online_cpus;
    one.measured = cpu.gflops_one_core;
    all.measured = cpu.gflops_all_cores;
    one.note = all.note = "8 multiply-add chains per thread";
  } else {
    vcpu.note = one.note = all.note = "skipped (--no-cpu)";
  }
  r.metrics.push_back(vcpu);
  r.metrics.push_back(one);
  r.metrics.push_back(all);
}

// Host memory (/proc/meminfo), the dataset disk's read speed, and the network (needs a peer).
void AddHostMetrics(const ProbeOptions& o, ProbeEnvironment& env, ProbeReport& r) {
  ProbeMetric mem = Make("host_memory_gib", "Host memory", "GiB", -1);
  if (env.proc) {
    Result<MemInfo> info = env.proc->ReadMemInfo();
    if (info.ok()) {
      mem.measured = static_cast<double>(info->total_kib) / (1024.0 * 1024.0);
    } else {
      mem.note = info.status().message();
    }
  } else {
    mem.note = "no /proc";
  }
  r.metrics.push_back(mem);
  ProbeMetric seq = Make("disk_seq_read_mbs", "Disk sequential read", "MB/s", -1);
  ProbeMetric iops = Make("disk_random_read_iops", "Disk 4 KiB random read", "IOPS", -1);
  if (o.disk_path.empty()) {
    seq.note = iops.note = "not measured: pass --path DIR on the dataset disk";
  } else if (Result<DiskProbeResult> disk = MeasureDiskRead(o.disk_path, o.disk); disk.ok()) {
    seq.measured = disk->seq_read_mbs;
    iops.measured = disk->random_read_iops;
    seq.note = iops.note = disk->note;
  } else {
    seq.note = iops.note = disk.status().message();
  }
  r.metrics.push_back(seq);
  r.metrics.push_back(iops);
  ProbeMetric net = Make("network_gbps", "Network (VPC)", "Gbit/s", -1);
  net.note = "needs a peer: run iperf3 -P 8 between two instances of the type";
  r.metrics.push_back(net);
}

}  // namespace

ProbeReport RunProbe(const ProbeOptions& o, ProbeEnvironment& env, const Catalog& catalog) {
  ProbeReport r;
  r.measured_at = FormatUtc(env.clock->UnixSeconds());
  const InstanceType* type = nullptr;
  DetectInstance(o, env, catalog, r, &type);
  // Devices: NVML first (no CUDA context needed), then what the CUDA plugin saw.
  std::map<int, ProbeDevice> devices;
  bool count_known = false;
  AddNvmlDevices(env, r, devices, &count_known);
  const CudaProbeResult cuda = RunCuda(o, env, devices, &count_known);
  for (auto& [index, d] : devices)
    r.devices.push_back(d);
  const Gpu* gpu = IdentifyGpu(catalog, type, r);
  r.metrics.push_back(GpuCountMetric(count_known, r, cuda));
  AddPerGpuMetrics(env, cuda, r);
  AddMultiGpuMetrics(cuda, r);
  AddCpuMetrics(o, r);
  AddHostMetrics(o, env, r);
  ApplyExpectations(gpu, type, r.metrics);
  return r;
}

nlohmann::json ProbeReportJson(const ProbeReport& r) {
  using nlohmann::json;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  auto str_or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  json j;
  j["measured_at"] = r.measured_at;
  j["instance_type"] = str_or_null(r.instance_type);
  j["instance_source"] = r.instance_source;
  j["instance_in_catalog"] = r.instance_in_catalog;
  j["gpu_model"] = str_or_null(r.gpu_model);
  j["driver_version"] = str_or_null(r.driver_version);
  j["devices"] = json::array();
  for (const ProbeDevice& d : r.devices) {
    j["devices"].push_back({{"index", d.index},
                            {"name", d.name},
                            {"memory_gib", d.memory_gib},
                            {"compute_capability", str_or_null(d.compute_capability)},
                            {"pcie_gen_max", d.pcie_gen_max ? json(*d.pcie_gen_max) : json()},
                            {"pcie_width_max", d.pcie_width_max ? json(*d.pcie_width_max) : json()},
                            {"power_limit_w", opt(d.power_limit_w)}});
  }
  j["metrics"] = json::array();
  j["not_measured"] = json::array();
  std::map<std::string, int> summary;
  for (const ProbeMetric& m : r.metrics) {
    json row = {{"id", m.id},
                {"label", m.label},
                {"gpu", m.gpu >= 0 ? json(m.gpu) : json()},
                {"unit", m.unit},
                {"measured", opt(m.measured)},
                {"peak", opt(m.peak)},
                {"expected", opt(m.expected)},
                {"ratio_to_peak",
                 m.measured && m.peak && *m.peak > 0 ? json(*m.measured / *m.peak) : json()},
                {"verdict", VerdictName(m.verdict)},
                {"basis", m.basis},
                {"note", m.note}};
    j["metrics"].push_back(row);
    ++summary[std::string(VerdictName(m.verdict))];
    if (!m.measured) {
      j["not_measured"].push_back(
          {{"id", m.id}, {"gpu", m.gpu >= 0 ? json(m.gpu) : json()}, {"reason", m.note}});
    }
  }
  j["summary"] = json::object();
  for (Verdict v : {Verdict::kOk, Verdict::kLow, Verdict::kBad, Verdict::kHigh,
                    Verdict::kNoExpectation, Verdict::kNotMeasured}) {
    const std::string name(VerdictName(v));
    j["summary"][name] = summary.count(name) ? summary[name] : 0;
  }
  j["notes"] = r.notes;
  return j;
}

std::string RenderProbeTable(const ProbeReport& r) {
  std::string out = fmt::format(
      "instance: {} ({}){}\ngpu: {}{}\n\n", r.instance_type.empty() ? "unknown" : r.instance_type,
      r.instance_source, r.instance_type.empty() || r.instance_in_catalog ? "" : ", not in catalog",
      r.gpu_model.empty() ? "unknown" : r.gpu_model,
      r.devices.empty() ? ", none visible"
                        : fmt::format(", {} x {}", r.devices.size(), r.devices.front().name));
  io::Table t{{"metric", "gpu", "measured", "expected", "peak", "unit", "verdict", "note"}, {}};
  auto num = [](const std::optional<double>& v) { return v ? Num(*v) : std::string("-"); };
  for (const ProbeMetric& m : r.metrics) {
    t.rows.push_back({m.label, m.gpu >= 0 ? std::to_string(m.gpu) : "all", num(m.measured),
                      num(m.expected), num(m.peak), m.unit, std::string(VerdictName(m.verdict)),
                      m.note.substr(0, 90)});
  }
  out += io::RenderAligned(t);
  if (!r.notes.empty()) {
    out += "\nnotes:\n";
    for (const std::string& n : r.notes)
      out += "  - " + n + "\n";
  }
  return out;
}

}  // namespace gpuplan::agent
