// The plan's notes and assumptions (internal to the core): what the workload left unset and the
// plan assumed, how old the prices are, unpriced candidates, vendors, latency targets, a tie at
// the top, and what the numbers do not cover.
#ifndef GPUPLAN_SRC_CORE_PLAN_NOTES_H_
#define GPUPLAN_SRC_CORE_PLAN_NOTES_H_

#include <string>
#include <vector>

#include "gpuplan/billing.h"
#include "gpuplan/defaults.h"
#include "gpuplan/plan.h"
#include "gpuplan/workload.h"
#include "plan/latency.h"

namespace gpuplan::planner {

// What is known about accelerators other than NVIDIA's on Alibaba Cloud, for a plan that
// excludes NVIDIA (data/SOURCES.md V1).
extern const char kNoNvidiaNote[];

// The limits and modes a plan assumes when the workload gives none: the node limit and the
// billing modes `modes` (for the "Assumed:" list), appended to `assumed`.
void AssumePlanLimits(const Workload& w, const PlanOptions& options,
                      const std::vector<Billing>& modes, std::vector<Assumption>& assumed);

// Appends the plan's notes on its shown candidates (plan.candidates, ranked and annotated):
// prices, unpriced candidates, the spot alternative, vendors (`no_nvidia`), latency targets
// (`misses`: the setups that missed them), the amount of work, in `currency`.
void AddNotes(const Workload& w, bool no_nvidia, const std::string& currency,
              const LatencyMisses& misses, Plan& plan);

// The note on an exact tie at the top, decided by kTieBreakRule; "" when there is none.
std::string TieNote(const Plan& plan);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_PLAN_NOTES_H_
