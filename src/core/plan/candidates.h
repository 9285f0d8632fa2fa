// Which instance types a plan considers (internal to the core): the billing modes a workload
// allows, why a type cannot run the workload at all, and the node counts worth trying. The first
// room of `MakePlan` (plan/planner.cc): everything here is decided before any layout is searched.
#ifndef GPUPLAN_SRC_CORE_PLAN_CANDIDATES_H_
#define GPUPLAN_SRC_CORE_PLAN_CANDIDATES_H_

#include <string>
#include <vector>

#include "gpuplan/billing.h"
#include "gpuplan/calibration.h"
#include "gpuplan/catalog.h"
#include "gpuplan/plan.h"
#include "gpuplan/workload.h"

namespace gpuplan::planner {

// The costed modes of the billing table (gpuplan/billing.h) that constraints.billing lists, or
// the table's defaults for a job or a service (Workload::IsService) when it lists none; spot
// only without no_spot. Empty when none can be priced.
std::vector<Billing> AllowedModes(const Workload& w);

// Whether constraints.exclude_vendors lists `v`.
bool VendorExcluded(const Constraints& c, GpuVendor v);

// When constraints.exclude_vendors leaves no GPU in the catalog: one reason for the whole
// catalog instead of one line per type; "" when some GPU is left.
std::string EveryVendorExcluded(const Constraints& c, const Catalog& catalog);

// Why `t` (whose GPU is `g`) cannot run `w` at all, or "" when it may.
std::string Filter(const Workload& w, const Catalog& catalog, const Calibration& cal,
                   const InstanceType& t, const Gpu& g);

// Node counts worth trying for `t`: every count within the workload's limits (max_nodes, or
// options.default_max_nodes; max_gpus). Empty when one instance is already over max_gpus.
std::vector<int> NodeCounts(const Workload& w, const InstanceType& t, const PlanOptions& o);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_PLAN_CANDIDATES_H_
