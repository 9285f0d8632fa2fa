// The layout search over frameworks that time the same layout differently (internal to
// src/core/perf; layout_search.cc calls it).
//
// `--framework auto` lets full training run on every row of data/frameworks.csv, and the rows
// do not all run a layout alike: Megatron-Core's cuDNN attention is faster on Hopper than the
// FlashAttention-2 of the PyTorch stacks, its fp32 main gradients take memory, torchtitan's
// selective recomputation keeps more, DeepSpeed's ZeRO-3 fetches module by module, the losses
// hold the logits differently. The search proper gives each layout to the first row that runs
// it; so that the pick is the fastest the model knows, the frameworks are split into spaces of
// rows that estimate every layout alike (time and memory, hence the fit), each
// space is searched, and the fastest wins (a tie goes to the row earlier in the table: the
// simpler stack, as `auto` prefers).
#ifndef GPUPLAN_SRC_CORE_PERF_FRAMEWORK_SPACES_H_
#define GPUPLAN_SRC_CORE_PERF_FRAMEWORK_SPACES_H_

#include <functional>
#include <memory>
#include <vector>

#include "gpuplan/workload.h"
#include "perf/layout_search_cutoff.h"

namespace gpuplan::perf::internal {

// One space: the workload restricted to frameworks that time every layout alike.
struct FrameworkSpace {
  Workload w;                        // frameworks = the space's rows, in the table's order
  LayoutPins pins;                   // the caller's, with the space's capabilities
  std::vector<int> rows;             // their indices in the caller's Workload::frameworks
  std::unique_ptr<LayoutMemo> memo;  // bound to w and pins (and the caller's model)
};
using FrameworkSpaces = std::vector<std::unique_ptr<FrameworkSpace>>;

// The spaces of a training workload whose frameworks time layouts differently, in the order of
// their first rows; empty when they all time them alike (or the workload does not train).
FrameworkSpaces SplitFrameworks(const Workload& w, const ModelArch& arch, const LayoutPins& pins);

// One space's search, given the fastest step the spaces before it found (kNoBest: none fits
// yet): it may stop (cut off) once nothing it could still find beats that.
inline constexpr double kNoBest = -1;
using SpaceSearch = std::function<LayoutSearch(const FrameworkSpace&, double best_step_s)>;

// The fastest of `search` over the spaces: the pick names its framework by its index in the
// caller's frameworks (Layout::framework); the counters add up; when nothing fits anywhere, the
// least-memory layout, and a cut-off when a space was cut off at a floor below the pick.
LayoutSearch SearchSpaces(const FrameworkSpaces& spaces, const SpaceSearch& search);

}  // namespace gpuplan::perf::internal

#endif  // GPUPLAN_SRC_CORE_PERF_FRAMEWORK_SPACES_H_
