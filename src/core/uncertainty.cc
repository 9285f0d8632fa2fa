#include "gpuplan/uncertainty.h"

#include <algorithm>
#include <cmath>

#include "gpuplan/strings.h"

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

// The 90th percentile of Student's t with `dof` degrees of freedom (dof >= 1); the normal's
// beyond 30. A band estimated from k sources has k - 1 degrees of freedom for the spread
// between them.
double StudentT90(int dof) {
  static constexpr double kT90[] = {3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397,
                                    1.383, 1.372, 1.363, 1.356, 1.350, 1.345, 1.341, 1.337,
                                    1.333, 1.330, 1.328, 1.325, 1.323, 1.321, 1.319, 1.318,
                                    1.316, 1.315, 1.314, 1.313, 1.311, 1.310};
  if (dof < 1)
    return kT90[0];
  return dof <= 30 ? kT90[dof - 1] : 1.2816;
}

// The standard normal's distribution function.
double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Percentiles of true / predicted for a run by a source none of `by_source` came from, from a
// random-effects model of the log ratio: y = mu + u + e, where u is the source's offset (its
// framework, engine, cluster shift all its runs alike; normal with variance tau^2) and e the
// run's own error within its source (taken as measured: the within-source residuals, each
// source counting once, so heavy tails stay heavy). tau^2 is the one-way ANOVA moment estimate
// for unequal group sizes (Searle, Casella & McCulloch 1992, "Variance Components", 3.5), mu
// the precision-weighted mean of the sources' means. A new source's offset is uncertain by
// tau^2 plus mu's own variance; with k sources that spread is itself estimated from k - 1
// degrees of freedom, so it widens by Student's t over the normal (one source: see tau2). The
// percentiles are those of the mixture (each within residual smeared by the offset's normal), found
// by bisection. REQUIRES: by_source non-empty, every ratio > 0.
void FitBand(const std::map<std::string, std::vector<double>>& by_source, Band& b) {
  const double k = static_cast<double>(by_source.size());
  double rows = 0, sum_sq_sizes = 0, grand = 0, within_ss = 0;
  std::vector<double> mean_of, size_of;
  struct Residual {
    double value, weight;
  };
  std::vector<Residual> residuals;
  for (const auto& [source, ratios] : by_source) {
    const double n = static_cast<double>(ratios.size());
    double sum = 0;
    for (double r : ratios)
      sum += std::log(r);
    const double mean = sum / n;
    for (double r : ratios) {
      const double e = std::log(r) - mean;
      within_ss += e * e;
      residuals.push_back({e, 1 / (n * k)});
    }
    mean_of.push_back(mean);
    size_of.push_back(n);
    rows += n, sum_sq_sizes += n * n, grand += sum;
  }
  grand /= rows;
  const double within_var = rows > k ? within_ss / (rows - k) : 0;
  // One source cannot show the spread between sources: it is taken as large as the spread
  // within (on the shipped table the between-source sd is 0.5-0.7 of the within, so this errs
  // wide; only thin fits, such as the held-out halves `validate` checks, have one source).
  double tau2 = within_var;
  if (k > 1) {
    double between_ss = 0;
    for (size_t i = 0; i < mean_of.size(); ++i)
      between_ss += size_of[i] * (mean_of[i] - grand) * (mean_of[i] - grand);
    const double n0 = (rows - sum_sq_sizes / rows) / (k - 1);
    tau2 = std::max(0.0, (between_ss / (k - 1) - within_var) / n0);
  }
  double weight_sum = 0, centre = 0;
  for (size_t i = 0; i < mean_of.size(); ++i) {
    const double v = tau2 + within_var / size_of[i];
    const double w = v > 0 ? 1 / v : 1e12;
    weight_sum += w;
    centre += w * mean_of[i];
  }
  centre /= weight_sum;
  constexpr double kNormal90 = 1.2816;
  const double offset_sd =
      std::sqrt(tau2 + 1 / weight_sum) * StudentT90(static_cast<int>(k) - 1) / kNormal90;
  auto chance_below = [&](double y) {
    double p = 0;
    for (const Residual& r : residuals) {
      const double x = y - centre - r.value;
      p += r.weight * (offset_sd > 1e-12 ? NormalCdf(x / offset_sd) : (x >= 0 ? 1.0 : 0.0));
    }
    return p;
  };
  double lowest = 0, highest = 0;
  for (const Residual& r : residuals)
    lowest = std::min(lowest, r.value), highest = std::max(highest, r.value);
  auto quantile = [&](double q) {
    double lo = centre + lowest - 6 * offset_sd, hi = centre + highest + 6 * offset_sd;
    for (int i = 0; i < 50; ++i) {
      const double mid = (lo + hi) / 2;
      (chance_below(mid) < q ? lo : hi) = mid;
    }
    return std::exp((lo + hi) / 2);
  };
  b.p10 = quantile(0.1);
  b.p50 = quantile(0.5);
  b.p90 = quantile(0.9);
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
  std::map<std::string, std::map<std::string, std::vector<double>>> by_source;
  std::map<std::string, std::string> parent;
  for (const Sample& s : samples) {
    std::vector<std::string> prefix;
    std::string up;
    for (const std::string& level : s.path) {
      prefix.push_back(level);
      const std::string key = Join(prefix);
      ratios[key].push_back(s.ratio);
      by_source[key][s.source].push_back(s.ratio);
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
    b.sources = static_cast<int>(by_source[key].size());
    const std::string& up = parent[key];
    if ((b.rows < min_rows || b.sources < min_sources) && !up.empty()) {
      const Band& a = t.regimes.at(up);
      b.from = a.from;
      b.from_rows = a.from_rows;
      b.p10 = a.p10, b.p50 = a.p50, b.p90 = a.p90;
      // Enough runs but too few sources to fit a spread between them: the ancestor's band,
      // widened to hold the regime's own runs where they scatter wider (B200 MoE pre-training
      // from two sources is off 0.4-2.8x while Hopper and Ampere runs sit within 20%): the
      // ancestor's spread understates a regime whose runs show a larger one.
      if (b.rows >= min_rows) {
        b.p10 = std::min(b.p10, Percentile(values, 0.1));
        b.p90 = std::max(b.p90, Percentile(values, 0.9));
      }
    } else {
      b.from = key;
      b.from_rows = b.rows;
      FitBand(by_source[key], b);
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

double MemoryErrorRatio(const Table& table, const Workload& w, const ModelArch& arch,
                        const perf::Hardware& hw) {
  if (table.regimes.empty())
    return 1;
  return Lookup(table, MemoryRegime(w, arch, hw)).At(w.memory_confidence);
}

std::string ErrorPercent(double ratio) {
  return (ratio >= 1 ? "+" : "") + strings::Num((ratio - 1) * 100) + "%";
}

Range Scale(double point, const Band& b) { return {point, point * b.p10, point * b.p90}; }

}  // namespace gpuplan::uncertainty
