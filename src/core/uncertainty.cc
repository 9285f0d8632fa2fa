#include "gpuplan/uncertainty.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace gpuplan::uncertainty {
namespace {

// The task kind of a run, the first level of a regime under its quantity.
std::string KindOf(const Workload& w) {
  if (w.task == Task::kPretrain)
    return "pretrain";
  if (w.task == Task::kFinetune)
    return std::string(MethodName(w.method));  // full, lora, qlora
  if (w.task == Task::kInference) {
    const Engine e = w.inference.engine;
    if (e == Engine::kVllm || e == Engine::kTrtllm)
      return "serving";
    return w.inference.output_tokens == 0 ? "prefill" : "decode";
  }
  return std::string(TaskName(w.task));
}

// Training: one node, or how the nodes talk (the link decides the exposed gradient traffic).
// Inference: the engine (its per-pass overhead is what the model knows least).
std::string ScaleOf(const Workload& w, const perf::Hardware& hw) {
  if (w.task == Task::kInference)
    return std::string(EngineName(w.inference.engine));
  if (hw.nodes <= 1)
    return "1node";
  return hw.rdma ? "multinode-rdma" : "multinode-tcp";
}

// Dense or mixture-of-experts. The architecture on this branch has no experts yet; every
// model is dense until ModelArch carries them.
std::string DensityOf(const ModelArch& arch) { return arch.IsMoe() ? "moe" : "dense"; }

std::vector<std::string> RegimeOf(std::string quantity, const Workload& w, const ModelArch& arch,
                                  const perf::Hardware& hw) {
  const std::string gpu_arch =
      hw.gpu != nullptr && !hw.gpu->architecture.empty() ? hw.gpu->architecture : "unknown";
  return {std::move(quantity), KindOf(w), gpu_arch, ScaleOf(w, hw), DensityOf(arch)};
}

}  // namespace

double Band::At(double p) const {
  p = std::clamp(p, 0.1, 0.9);
  if (p <= 0.5)
    return p10 + (p50 - p10) * (p - 0.1) / 0.4;
  return p50 + (p90 - p50) * (p - 0.5) / 0.4;
}

double Band::ChanceAtMost(double ratio) const {
  if (ratio >= p90)
    return 0.9;
  if (ratio <= p10)
    return 0.1;
  if (ratio <= p50)
    return p50 > p10 ? 0.1 + 0.4 * (ratio - p10) / (p50 - p10) : 0.5;
  return p90 > p50 ? 0.5 + 0.4 * (ratio - p50) / (p90 - p50) : 0.5;
}

double Percentile(std::vector<double>& values, double q) {
  std::sort(values.begin(), values.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
}

std::string Join(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& p : path)
    out += (out.empty() ? "" : "/") + p;
  return out;
}

Table Fit(const std::vector<Sample>& samples, int min_rows, int min_sources) {
  // Every sample counts in each prefix of its path.
  std::map<std::string, std::vector<double>> ratios;
  std::map<std::string, std::set<std::string>> sources;
  std::map<std::string, std::string> parent;
  for (const Sample& s : samples) {
    std::vector<std::string> prefix;
    std::string up;
    for (const std::string& level : s.path) {
      prefix.push_back(level);
      const std::string key = Join(prefix);
      ratios[key].push_back(s.ratio);
      sources[key].insert(s.source);
      parent.emplace(key, up);
      up = key;
    }
  }
  Table t;
  t.min_rows = min_rows;
  t.min_sources = min_sources;
  // Parents sort before their children ("a" < "a/b"), so an ancestor's band is ready first.
  for (auto& [key, values] : ratios) {
    Band b;
    b.regime = key;
    b.rows = static_cast<int>(values.size());
    b.sources = static_cast<int>(sources[key].size());
    const std::string& up = parent[key];
    if ((b.rows < min_rows || b.sources < min_sources) && !up.empty()) {
      const Band& a = t.regimes.at(up);
      b.from = a.from;
      b.from_rows = a.from_rows;
      b.p10 = a.p10, b.p50 = a.p50, b.p90 = a.p90;
    } else {
      b.from = key;
      b.from_rows = b.rows;
      b.p10 = Percentile(values, 0.1);
      b.p50 = Percentile(values, 0.5);
      b.p90 = Percentile(values, 0.9);
    }
    t.regimes.emplace(key, std::move(b));
  }
  return t;
}

Band Lookup(const Table& table, const std::vector<std::string>& path) {
  for (size_t n = path.size(); n > 0; --n) {
    const std::vector<std::string> prefix(path.begin(), path.begin() + static_cast<long>(n));
    auto it = table.regimes.find(Join(prefix));
    if (it == table.regimes.end())
      continue;
    Band b = it->second;
    if (n < path.size()) {
      // The validation sets never saw this regime: its nearest ancestor speaks for it.
      b.regime = Join(path);
      b.rows = 0;
      b.sources = 0;
    }
    return b;
  }
  Band none;
  none.regime = path.empty() ? "none" : Join(path);
  none.from = "none";
  return none;
}

std::vector<std::string> TimeRegime(const Workload& w, const ModelArch& arch,
                                    const perf::Hardware& hw) {
  return RegimeOf("time", w, arch, hw);
}

std::vector<std::string> MemoryRegime(const Workload& w, const ModelArch& arch,
                                      const perf::Hardware& hw) {
  return RegimeOf("memory", w, arch, hw);
}

Range Scale(double point, const Band& b) { return {point, point * b.p10, point * b.p90}; }

}  // namespace gpuplan::uncertainty
