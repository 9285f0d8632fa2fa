// The top pick's one-paragraph why (internal to the core): what, where, billed how, why it fits,
// what it costs, how sure, a near tie worth taking instead, and the runner-up.
#ifndef GPUPLAN_SRC_CORE_PLAN_WHY_H_
#define GPUPLAN_SRC_CORE_PLAN_WHY_H_

#include <string>

#include "gpuplan/plan.h"
#include "plan/inputs.h"

namespace gpuplan::planner {

// The why of plan.candidates[0] (REQUIRES: the plan has a candidate), from the plan's shown
// candidates, latency targets and spot alternative; `currency` is the plan's.
std::string WhyBest(const PlanInputs& in, const Plan& plan, const std::string& currency);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_PLAN_WHY_H_
