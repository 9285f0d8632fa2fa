// The serving search behind `gpuplan plan` for inference (internal to the core).
//
// On one instance type (or a group of `nodes` instances when one copy of the model needs more
// than a node), it tries every tensor-parallel degree that divides the node's GPUs and the
// attention heads, fills the instance with as many independent model copies as that leaves
// (copies = GPUs / tp), and every batch up to the engine's limit, keeping what serves the
// request rate with the fewest instances (a service) or the most requests per second per
// instance (batch inference). Each try is one perf::EstimateRun; a copy fits when it fits in
// what the engine lets it use (Calibration::EngineMemoryLimitGib) and meets the TTFT/TPOT
// targets.
#ifndef GPUPLAN_SRC_CORE_SERVING_SEARCH_H_
#define GPUPLAN_SRC_CORE_SERVING_SEARCH_H_

#include <limits>
#include <string>

#include "gpuplan/calibration.h"
#include "gpuplan/estimate.h"
#include "gpuplan/model.h"
#include "gpuplan/workload.h"

namespace gpuplan::planner {

struct ServingSetup {
  bool ok = false;
  perf::Layout layout;  // tp x pp GPUs per copy, dp = copies on the `nodes` instances
  perf::Estimate
      estimate;  // of the whole group; estimate.inference->requests_per_s counts all copies
  int copies_per_group = 0;  // model copies on `nodes` instances (layout.dp)
  int gpus_per_copy = 0;     // tp x pp
  // A service: instance groups needed for the request rate (instances = groups x nodes).
  int groups = 0;
  std::string reason;  // why nothing fits or meets the targets
  double min_memory_gib = std::numeric_limits<double>::infinity();  // least per-GPU need seen
  // The lowest TPOT and TTFT of the setups that fit in memory, targets or not, with where they
  // were seen (infinity when nothing fits): how far a missed target is out of reach.
  struct Fastest {
    double ms = std::numeric_limits<double>::infinity();
    int tp = 0, pp = 0, batch = 0;
  };
  Fastest fastest_tpot, fastest_ttft;
  // Some setup fits, but none meets the TTFT/TPOT targets.
  bool MissedTargets() const {
    return !ok && fastest_tpot.ms < std::numeric_limits<double>::infinity();
  }
};

// Batches tried for `w` on its engine: the fixed batch, else powers of two up to the engine's
// concurrent-sequence limit (static-batching engines: up to Calibration::static_max_batch).
std::vector<int> ServingBatches(const Workload& w, const Calibration& cal);

// The best setup on `hw` (all its GPUs serve; hw.nodes > 1 only when a copy needs more than one
// node: then tp = the node's GPUs and pp = nodes). `*evaluated` counts estimator calls.
ServingSetup SearchServing(const Workload& w, const ModelArch& arch, const perf::Hardware& hw,
                           const Calibration& cal, int* evaluated);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_SERVING_SEARCH_H_
