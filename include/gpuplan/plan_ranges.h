// The planner's use of the uncertainty table: the ranges of one candidate, the percentile its
// deadline and budget are checked at, and the sentence the "why" gets about them.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_PLAN_RANGES_H_
#define GPUPLAN_INCLUDE_GPUPLAN_PLAN_RANGES_H_

#include <string>

#include "gpuplan/cost.h"
#include "gpuplan/plan.h"

namespace gpuplan::planner {

// Time and memory ranges of an estimate on `hw` (job hours from `work_hours`, the
// uninterrupted hours; 0 = no amount of work).
CandidateRanges TimeRanges(const uncertainty::Table& table, const Workload& w,
                           const ModelArch& arch, const perf::Hardware& hw, const perf::Estimate& e,
                           double work_hours);

// Adds the cost range (and the job hours with spot overhead) of a priced job candidate: the job
// re-priced with its work hours at p10, p90 and at `r.confidence`; for spot, the reclaim rate
// at the low and high end of the market's interruption bracket. `advice_desc` is the
// DescribeSpotAdvice InterruptRateDesc ("0-3%"; "" = unknown). Errors come from JobCost.
Status PriceRanges(CandidateRanges& r, const cost::BillingRates& rates, const cost::CostOptions& co,
                   double work_hours, int instances, const std::string& advice_desc);

// The monthly cost range of a service that serves `rate` requests/s with groups of
// `nodes_per_group` instances, each group serving `group_rate` at the point estimate: a slower
// engine than predicted (time ratio p90) needs ceil(rate x ratio / group_rate) groups, a faster
// one fewer; whole instances, plus `spare(groups)` spare instances each end. `per_instance_month`
// is one instance's monthly cost in the candidate's billing mode.
uncertainty::Range ServiceCostRange(const uncertainty::Band& time, double rate, double group_rate,
                                    int nodes_per_group, double per_instance_month,
                                    int (*spare)(int groups));

// The interruption bracket of InterruptRateDesc ("0-3%" -> 0.00..0.03 as 30-day release
// shares, read as reclaims per instance-hour like cost::ReclaimRatePerHour); nullopt when the
// text is not such a bracket.
std::optional<std::pair<double, double>> ReclaimBracketPerHour(const std::string& desc);

// The InterruptRateDesc of the spot advice behind cost::ReclaimRatePerHour for the type in the
// region, or "".
std::string SpotAdviceDesc(const cost::MarketData& market, const std::string& instance,
                           const std::string& region);

// "meets the 504 h deadline with 90% confidence: p90 412 h; ..." for the first choice, or "".
std::string ConfidenceWhy(const Workload& w, const Candidate& c, const std::string& currency);

// What a candidate is ranked by, at the plan's confidence when ranges exist.
double HoursForRanking(const Candidate& c);
double CostForRanking(const Candidate& c);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_INCLUDE_GPUPLAN_PLAN_RANGES_H_
