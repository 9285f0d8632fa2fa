// Instance types on which what a piece costs depends on no other choice (internal to the core):
// types only one piece of a campaign can use, and types on which no commitment can pay for
// itself (bought by the hour, a piece's cost there is its own hours). Each option on such a type
// is priced alone, with its own best commitments, and enters the joint program as a constant: the
// program keeps hours only for the types pieces share and may commit. Exact without a savings
// plan (a plan's budget spans every type in an hour, so with one nothing is priced alone).
#ifndef GPUPLAN_SRC_CORE_CAMPAIGN_EXCLUSIVE_H_
#define GPUPLAN_SRC_CORE_CAMPAIGN_EXCLUSIVE_H_

#include <optional>
#include <vector>

#include "campaign/problem.h"

namespace gpuplan::campaign {

struct PricedAlone {
  double cost = 0;    // over the horizon
  Problem problem;    // the piece with this one option
  Timeline timeline;  // of `problem`
  Decision decision;  // its commitments (on its exclusive type) and start
};

struct ExclusivePrices {
  std::vector<bool> exclusive;  // per resource
  // Per piece and option: the option priced alone when its type is exclusive, else nullopt.
  std::vector<std::vector<std::optional<PricedAlone>>> service, job;
};

// kUnsupported/kInternal from the solver.
Result<ExclusivePrices> PriceExclusiveTypes(const Problem& p, const MipSolver& solver);

// Where pay-as-you-go is the only way to pay in an optimum, per resource. Both are all false
// with a savings plan (its budget spans every type in an hour).
struct ByTheHour {
  // No commitment on it can pay for itself, even if one instance of it were used by every piece
  // that can use the type, as much as each can (services at their largest option, every job's
  // run on it): it is bought by the hour in every optimum.
  std::vector<bool> type;
  // Jobs on it pay by the hour in some optimum, wherever they run: every service option on it
  // uses a flat whole number of instances (so a commitment beyond the services' instances is
  // idle but for jobs) and the jobs' hours on it cannot pay for one more instance. A job there
  // costs its own pay-as-you-go hours and its start does not matter.
  std::vector<bool> jobs;
};
ByTheHour BoughtByTheHour(const Problem& p);

// Pieces that share no instance type (through any option) fall into separate groups whose
// costs add up independently (types bought by the hour only, ByTheHour::type, join nothing): each
// group, as indices of services (0..S-1) and then jobs (S..), in order. One group when a savings
// plan is priced (its budget spans every type).
std::vector<std::vector<int>> IndependentGroups(const Problem& p);

// The part of `p` with only `group`'s pieces (same resources, months and prices).
Problem PartOf(const Problem& p, const std::vector<int>& group);

// Adds `from`'s commitments (a decision of another problem over the same resources and months)
// to `to`: monthly counts month by month, yearly and reserved counts and the savings plan by
// 12-month block.
void AddCommitments(const Decision& from, const Timeline& from_t, const Timeline& to_t,
                    Decision& to);

}  // namespace gpuplan::campaign

#endif  // GPUPLAN_SRC_CORE_CAMPAIGN_EXCLUSIVE_H_
