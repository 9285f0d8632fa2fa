// From a campaign spec to the optimisation problem (internal to the core): each piece planned
// by the planner, its best instance types kept as options, and every type's prices.
#ifndef GPUPLAN_SRC_CORE_CAMPAIGN_PIECES_H_
#define GPUPLAN_SRC_CORE_CAMPAIGN_PIECES_H_

#include <string>
#include <vector>

#include "campaign/problem.h"

namespace gpuplan::campaign {

struct BuiltProblem {
  Problem problem;
  Currency currency = Currency::kCny;
  std::vector<std::string> notes;           // assumptions and sources met on the way
  std::vector<planner::Rejection> dropped;  // types left out (another currency, no price)
};

// Plans every piece and gathers its options. kUnsupported naming the piece when it has no
// priced candidate, with the planner's first reasons.
Result<BuiltProblem> BuildProblem(const CampaignSpec& spec, const ModelZoo& zoo,
                                  const Catalog& catalog, const Calibration& cal,
                                  const CampaignOptions& options);

// The campaign's offset from UTC in hours (the spec's, else UTC+8).
double CampaignUtcOffset(const CampaignSpec& spec);

}  // namespace gpuplan::campaign

#endif  // GPUPLAN_SRC_CORE_CAMPAIGN_PIECES_H_
