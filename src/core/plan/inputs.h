// What one plan is made from (internal to the core): the workload (with the latency targets in
// force), the model, the catalog, the calibration and the options. Every room of the planner
// reads them and none owns them: they outlive the MakePlan call that builds them.
#ifndef GPUPLAN_SRC_CORE_PLAN_INPUTS_H_
#define GPUPLAN_SRC_CORE_PLAN_INPUTS_H_

#include "gpuplan/calibration.h"
#include "gpuplan/catalog.h"
#include "gpuplan/model.h"
#include "gpuplan/plan.h"
#include "gpuplan/workload.h"

namespace gpuplan::planner {

struct PlanInputs {
  const Workload& w;
  const ModelArch& arch;
  const Catalog& catalog;
  const Calibration& cal;
  const PlanOptions& options;
};

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_PLAN_INPUTS_H_
