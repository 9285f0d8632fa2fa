// What the planner's search over hundreds of hardware adds to the one layout search
// (gpuplan/layout_search.h), and the reference the tests prove it against; internal to the core
// (the planner and the tests), not part of the library's interface:
//   - CutOff: stop a search once nothing it could still find can be shown;
//   - LayoutMemo: share structures and per-GPU memory between searches of one workload;
//   - StepFloorSeconds: the bound the planner rules hardware out on before any search;
//   - ExhaustiveLayoutSearch: every layout, each estimated (tests only).
#ifndef GPUPLAN_SRC_CORE_PERF_LAYOUT_SEARCH_CUTOFF_H_
#define GPUPLAN_SRC_CORE_PERF_LAYOUT_SEARCH_CUTOFF_H_

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "gpuplan/layout_search.h"

namespace gpuplan::perf {

namespace internal {
struct FrameworkSpace;  // perf/framework_spaces.h
}

// A caller's reason to stop a search early. `matters(floor)`: whether a layout whose step takes
// at least `floor` seconds could still matter to the caller (the planner: could be shown among
// a plan's candidates); it must be monotone (once false for a floor, false for every larger
// one). The search asks once a layout fits (with the memory savers it then holds to) and it has
// made `ask_after` evaluations, and again each time the floor has risen by `ask_again` (a
// factor). Asking costs the planner about 45 estimates (pricing the floor), and a search makes
// a few hundred: asking from the first fit made the full-catalog plans cheapest (bench/).
struct CutOff {
  std::function<bool(double floor_step_s)> matters;  // empty: never stop early
  long long ask_after = 0;
  double ask_again = 1.25;
  // No step at or above this matters (another search already found one this fast: the framework
  // spaces, perf/framework_spaces.h). Free to ask, so asked at every bound, fit or not.
  double beat_step_s = std::numeric_limits<double>::infinity();
};

// What the layout searches of one plan share. A plan searches one workload (one model, one
// set of pins) on hundreds of hardware, and hardware of the same shape (GPU count and GPUs per
// node) has the same parallel structures and, layout by layout, the same per-GPU memory; only
// the fit (GPU capacity, memory error, host RAM) differs, and each search checks its own.
// Bound to the workload, model and pins it is made with (by address): a search of other ones
// ignores it. Not thread-safe: one per plan.
class LayoutMemo {
 public:
  LayoutMemo(const Workload& w, const ModelArch& arch, const LayoutPins& pins);
  ~LayoutMemo();
  LayoutMemo(const LayoutMemo&) = delete;
  LayoutMemo& operator=(const LayoutMemo&) = delete;

  struct Shape;  // one hardware shape's share (src/core/perf/layout_search_internal.h)
  // The share of `gpus` GPUs, `gpus_per_node` per node, for a search of (w, arch, pins); null
  // when the memo is bound to others.
  Shape* For(const Workload& w, const ModelArch& arch, const LayoutPins& pins, int gpus,
             int gpus_per_node);
  // The framework spaces of a search of (w, arch, pins) (perf/framework_spaces.h), split once
  // per plan, each with its own memo; null when the memo is bound to others.
  std::vector<std::unique_ptr<internal::FrameworkSpace>>* Spaces(const Workload& w,
                                                                 const ModelArch& arch,
                                                                 const LayoutPins& pins);

 private:
  bool BoundTo(const Workload& w, const ModelArch& arch, const LayoutPins& pins) const {
    return &w == w_ && &arch == arch_ && &pins == pins_;
  }
  const Workload* w_;
  const ModelArch* arch_;
  const LayoutPins* pins_;
  std::map<std::pair<int, int>, std::unique_ptr<Shape>> shapes_;
  std::unique_ptr<std::vector<std::unique_ptr<internal::FrameworkSpace>>> spaces_;
};

// The search of gpuplan/layout_search.h, for the planner: with `cut_off`, it stops as soon as the
// least step it could still find does not matter (LayoutSearch::cut_off). With `memo`, it shares
// structures and memory with the other searches of the memo's workload (the result is the same
// as without).
LayoutSearch SearchLayout(const Workload& w, const ModelArch& arch, const Hardware& hw,
                          const Calibration& cal, const LayoutPins& pins, const CutOff& cut_off,
                          LayoutMemo* memo = nullptr);

// The least step, seconds, that any training layout of `w` on `hw` can take, savers included
// (0: no floor, as for inference): the step's hardware FLOPs at the lightest recomputation,
// spread evenly over every GPU, at the highest fraction of peak the model ever gives GEMMs and
// attention. Every other part of a step only adds to it. One evaluation's worth of work: the
// planner rules out hardware on it before searching any layout.
double StepFloorSeconds(const Workload& w, const ModelArch& arch, const Hardware& hw,
                        const Calibration& cal);

// Every valid training layout of the same space, each estimated: the reference the tests
// compare SearchLayout with on small cases (exponential; never used by the tool).
LayoutSearch ExhaustiveLayoutSearch(const Workload& w, const ModelArch& arch, const Hardware& hw,
                                    const Calibration& cal, const LayoutPins& pins = {});

}  // namespace gpuplan::perf

#endif  // GPUPLAN_SRC_CORE_PERF_LAYOUT_SEARCH_CUTOFF_H_
