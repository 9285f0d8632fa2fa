// The serving search (src/core/serving/search.h).
#include "serving/search.h"

#include <cmath>
#include <map>
#include <tuple>

#include "gpuplan/strings.h"
#include "largest.h"

namespace gpuplan::serving {

int MaxServingBatch(const Workload& w, const Calibration& cal) {
  if (w.inference.batch)
    return *w.inference.batch;
  // Continuous-batching engines run at most their max_num_seqs / max_batch_size; static
  // batches (HF generate, a TorchScript loop) are what the caller builds, up to the search bound.
  const int limit = w.inference.ContinuousBatching()
                        ? cal.MaxConcurrentSequences(w.inference.engine)
                        : static_cast<int>(cal.static_max_batch);
  return std::max(limit, 1);
}

namespace {

std::vector<int> Divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0)
      out.push_back(d);
  }
  return out;
}

// Expert parallelism with attention data parallel: each rank runs attention on its own batch
// and the routed experts are sharded over every rank (SGLang --enable-dp-attention --ep-size,
// vLLM --data-parallel-size with --enable-expert-parallel, TensorRT-LLM attention DP). The
// eager engines (HF, TorchScript) have no such mode.
bool RunsExpertParallel(const Workload& w, const ModelArch& arch) {
  return arch.IsMoe() &&
         (w.inference.engine == Engine::kVllm || w.inference.engine == Engine::kTrtllm);
}

// Lower is better: the fewest instance groups for a service, then the most requests per second
// per group (headroom), then fewer GPUs per copy (less communication).
auto Rank(const ServingSetup& s) {
  return std::make_tuple(s.groups, -s.estimate.inference->requests_per_s, s.gpus_per_copy);
}

// Keeps the lower of `f` and `ms` seen at `layout`.
void Note(ServingSetup::Fastest& f, double ms, const perf::Layout& layout) {
  if (ms < f.ms)
    f = {ms, layout.tp, layout.pp, layout.micro_batch};
}

std::string Where(const ServingSetup::Fastest& f) {
  return "tp " + std::to_string(f.tp) + (f.pp > 1 ? " pp " + std::to_string(f.pp) : "") +
         " batch " + std::to_string(f.batch);
}

// "misses TPOT <= 20 ms: at best 27.3 ms (tp 4 batch 1)", for the targets that were missed.
std::string MissReason(const InferenceSpec& spec, const ServingSetup& s) {
  std::string why;
  auto miss = [&](const char* name, const std::optional<double>& target,
                  const ServingSetup::Fastest& f) {
    if (!target || f.ms <= *target)
      return;
    why += std::string(why.empty() ? "misses " : "; ") + name + " <= " + strings::Num(*target) +
           " ms: at best " + strings::Num(f.ms) + " ms (" + Where(f) + ")";
  };
  miss("TTFT", spec.ttft_ms, s.fastest_ttft);
  miss("TPOT", spec.tpot_ms, s.fastest_tpot);
  // Each target alone is reachable, but not both in one setup.
  return why.empty() ? "no setup meets TTFT and TPOT targets together" : why;
}

// One layout's batches: estimates by batch, and what the search has seen on the way.
class BatchProbe {
 public:
  BatchProbe(const Workload& w, const ModelArch& arch, const perf::Hardware& hw,
             const Calibration& cal, const perf::Layout& layout, ServingSetup& seen, int* evaluated)
      : w_(w),
        arch_(arch),
        hw_(hw),
        cal_(cal),
        layout_(layout),
        seen_(seen),
        evaluated_(evaluated) {}

  // Whether `batch` fits and meets the targets (the estimate is kept for Best).
  bool Serves(int batch) {
    const Result<perf::Estimate>& e = At(batch);
    if (!e.ok() || !e->memory.fits)
      return false;
    const InferenceSpec& spec = w_.inference;
    const perf::InferenceTimes& inf = *e->inference;
    return !(spec.ttft_ms && inf.ttft_ms > *spec.ttft_ms) &&
           !(spec.tpot_ms && inf.tpot_ms > *spec.tpot_ms);
  }

  const Result<perf::Estimate>& At(int batch) {
    auto it = tried_.find(batch);
    if (it != tried_.end())
      return it->second;
    Workload wb = w_;
    wb.inference.batch = batch;
    perf::Layout l = layout_;
    l.micro_batch = batch;
    Result<perf::Estimate> e = perf::EstimateRun(wb, arch_, hw_, l, cal_);
    ++*evaluated_;
    if (!e.ok()) {
      if (seen_.reason.empty())
        seen_.reason = e.status().message();
    } else {
      seen_.min_memory_gib = std::min(seen_.min_memory_gib, e->memory.per_gpu_gib);
      if (e->memory.fits) {
        Note(seen_.fastest_tpot, e->inference->tpot_ms, l);
        Note(seen_.fastest_ttft, e->inference->ttft_ms, l);
      }
    }
    return tried_.emplace(batch, std::move(e)).first->second;
  }

 private:
  const Workload& w_;
  const ModelArch& arch_;
  const perf::Hardware& hw_;
  const Calibration& cal_;
  const perf::Layout& layout_;
  ServingSetup& seen_;
  int* evaluated_;
  std::map<int, Result<perf::Estimate>> tried_;
};

}  // namespace

std::vector<perf::Layout> ServingLayouts(const Workload& w, const ModelArch& arch,
                                         const perf::Hardware& hw) {
  std::vector<perf::Layout> out;
  const int gpus = hw.Gpus();
  const bool transformer = arch.IsTransformer();
  for (int tp : Divisors(hw.gpus_per_node)) {
    if ((tp > 1 && !transformer) || (arch.heads > 0 && arch.heads % tp != 0))
      continue;
    for (int pp : Divisors(gpus / tp)) {
      if (pp > 1 && (!transformer || pp > arch.layers))
        continue;
      perf::Layout l;
      l.tp = tp;
      l.pp = pp;
      l.dp = gpus / (tp * pp);
      l.flash_attention = w.flash_attention;
      // A copy spans nodes only when it needs them: on more than one node, the copy takes every
      // GPU of the group (dp 1) unless expert parallelism ties the ranks together (below).
      if (hw.nodes == 1 || l.dp == 1)
        out.push_back(l);
      // Experts over every rank of a stage (tp x dp), attention data parallel: only where the
      // ranks are more than the tensor-parallel group already sharding the experts, and no
      // more than the experts.
      const int ep = tp * l.dp;
      if (RunsExpertParallel(w, arch) && l.dp > 1 && ep <= arch.moe.experts) {
        l.ep = ep;
        out.push_back(l);
      }
    }
  }
  return out;
}

ServingSetup SearchServing(const Workload& w, const ModelArch& arch, const perf::Hardware& hw,
                           const Calibration& cal, int* evaluated) {
  ServingSetup best;
  const InferenceSpec& spec = w.inference;
  const std::optional<double> rate = spec.PeakRps();
  const int limit = MaxServingBatch(w, cal);
  for (const perf::Layout& layout : ServingLayouts(w, arch, hw)) {
    BatchProbe probe(w, arch, hw, cal, layout, best, evaluated);
    // A fixed batch is the only one tried; else the largest that serves, by bisection.
    const int batch = spec.batch ? (probe.Serves(*spec.batch) ? *spec.batch : 0)
                                 : LargestWhere(limit, [&](int b) { return probe.Serves(b); });
    if (batch == 0)
      continue;
    const perf::Estimate& e = *probe.At(batch);
    const perf::InferenceTimes& inf = *e.inference;
    if (inf.requests_per_s <= 0)
      continue;
    ServingSetup s;
    s.ok = true;
    s.layout = layout;
    s.layout.micro_batch = batch;
    s.estimate = e;
    s.copies_per_group = CopiesPerGroup(layout);
    s.gpus_per_copy = hw.Gpus() / s.copies_per_group;
    s.groups = rate ? static_cast<int>(std::ceil(*rate / inf.requests_per_s - 1e-9)) : 1;
    if (!best.ok || Rank(s) < Rank(best)) {
      s.reason = best.reason;
      s.min_memory_gib = best.min_memory_gib;
      s.fastest_tpot = best.fastest_tpot;
      s.fastest_ttft = best.fastest_ttft;
      best = s;
    }
  }
  if (best.MissedTargets())
    best.reason = MissReason(spec, best);
  return best;
}

}  // namespace gpuplan::serving
