// The serving search (src/core/serving_search.h).
#include "serving_search.h"

#include <cmath>
#include <tuple>

#include "gpuplan/strings.h"

namespace gpuplan::planner {

std::vector<int> ServingBatches(const Workload& w, const Calibration& cal) {
  if (w.inference.batch)
    return {*w.inference.batch};
  // Continuous-batching engines run at most their max_num_seqs / max_batch_size; static
  // batches (HF generate, a TorchScript loop) are what the caller builds, up to the search bound.
  const int limit = w.inference.ContinuousBatching()
                        ? cal.MaxConcurrentSequences(w.inference.engine)
                        : static_cast<int>(cal.static_max_batch);
  std::vector<int> out;
  for (int b = 1; b < limit; b *= 2)
    out.push_back(b);
  out.push_back(std::max(limit, 1));
  return out;
}

namespace {

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

}  // namespace

ServingSetup SearchServing(const Workload& w, const ModelArch& arch, const perf::Hardware& hw,
                           const Calibration& cal, int* evaluated) {
  ServingSetup best;
  const InferenceSpec& spec = w.inference;
  const std::vector<int> batches = ServingBatches(w, cal);
  const int pp = hw.nodes;
  for (int tp = 1; tp <= hw.gpus_per_node; tp *= 2) {
    if (hw.gpus_per_node % tp != 0 || (arch.heads > 0 && arch.heads % tp != 0))
      continue;
    if (tp > 1 && !arch.IsTransformer())
      break;
    // A copy spans nodes only when it needs every GPU of each (multi-node only when needed).
    if (pp > 1 && tp != hw.gpus_per_node)
      continue;
    for (int batch : batches) {
      Workload wb = w;
      wb.inference.batch = batch;
      perf::Layout layout;
      layout.tp = tp;
      layout.pp = pp;
      layout.dp = hw.Gpus() / (tp * pp);
      layout.micro_batch = batch;
      Result<perf::Estimate> e = perf::EstimateRun(wb, arch, hw, layout, cal);
      ++*evaluated;
      if (!e.ok()) {
        if (best.reason.empty())
          best.reason = e.status().message();
        break;
      }
      best.min_memory_gib = std::min(best.min_memory_gib, e->memory.per_gpu_gib);
      if (!e->memory.fits)
        break;  // Larger batches need more KV cache.
      const perf::InferenceTimes& inf = *e->inference;
      Note(best.fastest_tpot, inf.tpot_ms, layout);
      Note(best.fastest_ttft, inf.ttft_ms, layout);
      if ((spec.ttft_ms && inf.ttft_ms > *spec.ttft_ms) ||
          (spec.tpot_ms && inf.tpot_ms > *spec.tpot_ms)) {
        break;  // Larger batches only wait longer.
      }
      if (inf.requests_per_s <= 0)
        continue;
      ServingSetup s;
      s.ok = true;
      s.layout = layout;
      s.estimate = *e;
      s.copies_per_group = layout.dp;
      s.gpus_per_copy = tp * pp;
      s.groups = spec.requests_per_s
                     ? static_cast<int>(std::ceil(*spec.requests_per_s / inf.requests_per_s - 1e-9))
                     : 1;
      s.min_memory_gib = best.min_memory_gib;
      if (!best.ok || Rank(s) < Rank(best)) {
        s.reason = best.reason;
        s.fastest_tpot = best.fastest_tpot;
        s.fastest_ttft = best.fastest_ttft;
        best = s;
      }
    }
  }
  if (best.MissedTargets())
    best.reason = MissReason(spec, best);
  return best;
}

}  // namespace gpuplan::planner
