// What one plan is made from (internal to the core): the workload (with the latency targets in
// force), the model, the catalog, the calibration, the options and the shortcuts. Every room of the
// planner reads them and none owns them: they outlive the MakePlan call that builds them.
#ifndef GPUPLAN_SRC_CORE_PLAN_INPUTS_H_
#define GPUPLAN_SRC_CORE_PLAN_INPUTS_H_

#include "gpuplan/calibration.h"
#include "gpuplan/catalog.h"
#include "gpuplan/model.h"
#include "gpuplan/plan.h"
#include "gpuplan/workload.h"
#include "plan/shortcuts.h"

namespace gpuplan::planner {

struct PlanInputs {
  const Workload& w;
  const ModelArch& arch;
  const Catalog& catalog;
  const Calibration& cal;
  const PlanOptions& options;
  const Shortcuts& shortcuts;
};

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_PLAN_INPUTS_H_
