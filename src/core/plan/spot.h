// Spot prices that cannot decide a plan (internal to the core): a spot price that is stale or
// derived from PAYG (SpotPriceRankable in gpuplan/plan.h) ranks a cost-ranked plan at its PAYG
// cap, the most spot can cost, unless the workload asks for spot alone; what the candidate's
// advice and the plan's note say about it.
#ifndef GPUPLAN_SRC_CORE_PLAN_SPOT_H_
#define GPUPLAN_SRC_CORE_PLAN_SPOT_H_

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/cost.h"
#include "gpuplan/plan.h"

namespace gpuplan::planner {

// `rates` with the spot price raised to the PAYG cap (Alibaba never charges spot above PAYG),
// when `c`'s spot price cannot rank the plan: not SpotPriceRankable, no spot ratio of the
// caller's (options.spot.spot_ratio), constraints.billing not spot alone, and the plan ranked by
// cost (`ranked_by_time` false). nullopt when it can rank as it is.
std::optional<cost::BillingRates> SpotAtPaygCap(const Workload& w, const PlanOptions& options,
                                                bool ranked_by_time,
                                                const cost::BillingRates& rates,
                                                const Candidate& c);

// Of `all` (every region, before ranking), the spot candidate ranked at its PAYG cap
// (Candidate::spot_ranked_at_payg) that would rank best at its own price; nullopt when none.
std::optional<Candidate> CheapestSpotAtQuote(const std::vector<Candidate>& all);

// The spot-price-not-ranked advice of `c` (Candidate::spot_ranked_at_payg > 0).
std::string SpotNotRankedWhy(const Candidate& c);

// The plan note on `alt`, the spot option that would come first at its own price, beside `top`.
std::string SpotAlternativeNote(const Candidate& alt, const Candidate& top);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_PLAN_SPOT_H_
