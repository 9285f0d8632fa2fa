// The serving search behind `gpuplan plan` for inference (internal to the core).
//
// On one instance type (or a group of `nodes` instances when one copy of the model needs more
// than a node), it tries every tensor x pipeline split of a copy (tp dividing the node's GPUs
// and the attention heads; pp within the node, or pp = nodes when a copy spans nodes), for a
// MoE model expert parallelism over the group's GPUs with attention data parallel (each rank
// serves its own batch: SGLang/vLLM --enable-dp-attention, TensorRT-LLM attention DP), fills
// the group with as many copies as that leaves, and for each the largest batch up to the
// engine's limit that fits and meets the TTFT/TPOT targets. Memory, TTFT and TPOT all grow with
// the batch and requests per second never falls with it (the model's decode step is affine in
// the batch), so the largest such batch is the best: found by bisection, every batch a
// candidate, not only powers of two. It keeps what serves the rate with the fewest instances
// (a service) or the most requests per second per instance (batch inference). Each try is one
// perf::EstimateRun, as `gpuplan estimate` makes with the same degrees.
#ifndef GPUPLAN_SRC_CORE_SERVING_SEARCH_H_
#define GPUPLAN_SRC_CORE_SERVING_SEARCH_H_

#include <limits>
#include <string>
#include <vector>

#include "gpuplan/calibration.h"
#include "gpuplan/estimate.h"
#include "gpuplan/model.h"
#include "gpuplan/workload.h"

namespace gpuplan::serving {

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

// Independent model copies on a group of `layout`: dp, except that expert parallelism over
// data-parallel attention ranks ties them into one (they share the experts).
inline int CopiesPerGroup(const perf::Layout& layout) { return layout.ep > 1 ? 1 : layout.dp; }

// The largest batch the search may try for `w` on its engine: the fixed batch, else the
// engine's concurrent-sequence limit (static-batching engines: Calibration::static_max_batch).
int MaxServingBatch(const Workload& w, const Calibration& cal);

// The copy splits tried on `hw` for `arch`: tp x pp x ep with dp = the group's GPUs / (tp x
// pp), batch unset. In search order.
std::vector<perf::Layout> ServingLayouts(const Workload& w, const ModelArch& arch,
                                         const perf::Hardware& hw);

// The best setup on `hw` (all its GPUs serve; hw.nodes > 1 only when a copy needs more than one
// node: then tp x pp spans every GPU of the group). `*evaluated` counts estimator calls.
ServingSetup SearchServing(const Workload& w, const ModelArch& arch, const perf::Hardware& hw,
                           const Calibration& cal, int* evaluated);

}  // namespace gpuplan::serving

#endif  // GPUPLAN_SRC_CORE_SERVING_SEARCH_H_
