// The serving search's space estimated point by point, none pruned or bisected: what a test
// holds serving::SearchServing and `gpuplan plan` to.
#ifndef GPUPLAN_TESTS_TESTING_SERVING_BRUTE_FORCE_H_
#define GPUPLAN_TESTS_TESTING_SERVING_BRUTE_FORCE_H_

#include <cmath>

#include "gpuplan/calibration.h"
#include "gpuplan/estimate.h"
#include "gpuplan/model.h"
#include "gpuplan/workload.h"

namespace gpuplan::testing {

struct ServingBest {
  int groups = 0;  // fewest instance groups for the rate; 0 = nothing serves
  double rps = 0;  // the most requests/s of those with that many groups
};

// Every split of `hw` (tp dividing the node's GPUs and the heads, pp dividing the rest up to the
// layers, and for a MoE model also experts over every rank of a stage) at every batch from 1 to
// `max_batch`, each estimated: the best for the workload's rate within its TTFT/TPOT targets.
inline ServingBest BruteForceServing(const Workload& w, const ModelArch& arch,
                                     const perf::Hardware& hw, const Calibration& cal,
                                     int max_batch) {
  ServingBest best;
  const int gpus = hw.Gpus();
  const double rate = w.inference.PeakRps().value_or(0);
  for (int tp = 1; tp <= hw.gpus_per_node; ++tp) {
    if (hw.gpus_per_node % tp != 0 || arch.heads % tp != 0)
      continue;
    for (int pp = 1; pp * tp <= gpus; ++pp) {
      if ((gpus / tp) % pp != 0 || pp > arch.layers)
        continue;
      const int dp = gpus / (tp * pp);
      for (int ep : {1, tp * dp}) {
        if (ep > 1 && (!arch.IsMoe() || dp == 1))
          continue;
        for (int batch = 1; batch <= max_batch; ++batch) {
          Workload wb = w;
          wb.inference.batch = batch;
          perf::Layout l;
          l.tp = tp;
          l.pp = pp;
          l.dp = dp;
          l.ep = ep;
          l.micro_batch = batch;
          Result<perf::Estimate> e = perf::EstimateRun(wb, arch, hw, l, cal);
          if (!e.ok() || !e->memory.fits)
            continue;
          const perf::InferenceTimes& inf = *e->inference;
          if ((w.inference.ttft_ms && inf.ttft_ms > *w.inference.ttft_ms) ||
              (w.inference.tpot_ms && inf.tpot_ms > *w.inference.tpot_ms) ||
              inf.requests_per_s <= 0) {
            continue;
          }
          const int groups = static_cast<int>(std::ceil(rate / inf.requests_per_s - 1e-9));
          if (best.groups == 0 || groups < best.groups ||
              (groups == best.groups && inf.requests_per_s > best.rps)) {
            best = {groups, inf.requests_per_s};
          }
        }
      }
    }
  }
  return best;
}

}  // namespace gpuplan::testing

#endif  // GPUPLAN_TESTS_TESTING_SERVING_BRUTE_FORCE_H_
