// The planner's two shortcuts, each of which changes nothing a plan shows, and the switch that
// turns each off so the tests can prove it (tests/plan/plan_pruning_test.cc and
// plan_regions_test.cc plan with and without them). Internal to the core: the public MakePlan
// (gpuplan/plan.h) always takes them.
#ifndef GPUPLAN_SRC_CORE_PLAN_SHORTCUTS_H_
#define GPUPLAN_SRC_CORE_PLAN_SHORTCUTS_H_

#include "gpuplan/plan.h"

namespace gpuplan::planner {

struct Shortcuts {
  // Stop a training layout search once its hardware can no longer be shown (a lower bound of
  // its step, priced, cannot enter the top_n, the time-cost front or the spot alternative):
  // the shown candidates, front and alternative are the same either way; only the rejections
  // of the unshown hardware and Plan::evaluated differ. Off: every hardware searched to the end.
  bool prune_hardware = true;
  // Price a candidate in every region and billing mode, also where another region is cheaper in
  // every measure the plan ranks on (Pricing::Prices skips those): the plan is the same either
  // way.
  bool price_dominated_regions = false;
};

// MakePlan with the shortcuts given.
Result<Plan> MakePlan(const Workload& w, const ModelArch& arch, const Catalog& catalog,
                      const Calibration& cal, const PlanOptions& options,
                      const Shortcuts& shortcuts);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_PLAN_SHORTCUTS_H_
