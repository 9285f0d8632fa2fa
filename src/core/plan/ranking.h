// Ranking a plan's candidates (internal to the core): the best region per instance, node count
// and billing mode in the objective's order (RanksBefore, plan/show_bar.h), and the time-cost
// Pareto front.
#ifndef GPUPLAN_SRC_CORE_PLAN_RANKING_H_
#define GPUPLAN_SRC_CORE_PLAN_RANKING_H_

#include <cstddef>
#include <set>
#include <vector>

#include "gpuplan/plan.h"
#include "gpuplan/workload.h"

namespace gpuplan::planner {

// Which of one hardware's candidates (every region and mode) a plan can show: per mode the one
// the ranking keeps (RankCandidates: the first that ranks before the others) and, for spot
// ranked at its PAYG cap, the one with the least score at its own price (CheapestSpotAtQuote:
// the first least). Indices into `hardware`, in their order.
std::set<size_t> Showable(const Workload& w, const std::vector<Candidate>& hardware);

// The best region per (instance, nodes, billing), ranked by the objective: of regions that
// score alike (the same hours under a time objective), the cheapest.
std::vector<Candidate> RankCandidates(const Workload& w, std::vector<Candidate> all);

// The Pareto front on (hours, cost) of the priced candidates: sweep by hours, keep strictly
// cheaper. Marks them in `ranked` too (Candidate::pareto).
std::vector<Candidate> ParetoFront(std::vector<Candidate>& ranked);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_PLAN_RANKING_H_
