// The advice, storage and image of a shown candidate (internal to the core): the rules
// (gpuplan/rules.h) over the candidate's numbers, the disk it reads from and the image it boots,
// plus the advice only a plan can give (load balancer, spot spares, unknown price, latency).
#ifndef GPUPLAN_SRC_CORE_PLAN_ANNOTATE_H_
#define GPUPLAN_SRC_CORE_PLAN_ANNOTATE_H_

#include "gpuplan/plan.h"
#include "plan/inputs.h"

namespace gpuplan::planner {

// Fills `c`'s advice, storage and image; `targets` are the plan's latency targets.
void Annotate(const PlanInputs& in, const LatencyTargets& targets, Candidate& c);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_PLAN_ANNOTATE_H_
