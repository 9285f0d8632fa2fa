// What a new candidate must beat to change what a plan shows (internal to the core). A plan
// shows the top_n of its ranking (the best region per instance, node count and billing mode),
// the time-cost Pareto front and the spot alternative; ShowBar holds the candidates found so far
// and says whether hardware whose candidates are no better than some floors, in every measure
// the plan ranks, filters or sweeps on, could still be shown. The planner uses it to stop
// searching hardware that cannot be: its floors come from the layout search's lower bound of the
// step time, priced as if it were the step, and every measure grows with the step time.
#ifndef GPUPLAN_SRC_CORE_PLAN_SHOW_BAR_H_
#define GPUPLAN_SRC_CORE_PLAN_SHOW_BAR_H_

#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "gpuplan/plan.h"

namespace gpuplan::planner {

// Whether the objective ranks by time first (else by cost first).
bool RanksByTime(const Workload& w);

// Whether `a` ranks before `b` under `w`'s objective: by score (priced first when ranked by
// cost), then price known, then the other measure (cost when ranked by time, hours when by
// cost), then instance and node count.
bool RanksBefore(const Workload& w, const Candidate& a, const Candidate& b);

// The money a plan's time-cost front compares: the monthly cost of a service, else the total.
double FrontMoney(const Candidate& c);

class ShowBar {
 public:
  ShowBar(const Workload& w, int top_n);

  // The candidates of one hardware (one instance type and node count, every region and billing
  // mode): as the ranking does, only the best of each billing mode (RanksBefore: of equal
  // scores the cheaper or shorter) stays, for the ranking and the front. `w` must outlive it.
  void Add(std::span<const Candidate> hardware);

  // Whether a candidate no better than one of `floors` in score, hours, cost and quoted score
  // (the same hardware in every region and billing mode) could be shown: among the top_n, on
  // the front, or as the spot alternative. Ties count as could.
  bool CouldShow(const std::vector<Candidate>& floors) const;
  // Whether fewer than top_n are ranked so far: then anything could be shown (no floor needed).
  bool Open() const { return best_.size() < static_cast<size_t>(top_n_); }

 private:
  struct Best {  // the best-ranked candidate of one instance, node count and billing mode
    double score = 0;
    bool price_known = true;
  };
  bool SurelyBefore(const Best& a, const Candidate& floor) const;
  bool OffFront(const Candidate& floor) const;

  const Workload& w_;
  int top_n_;
  std::map<std::tuple<std::string, int, Billing>, Best> best_;
  struct FrontPoint {
    double hours, cost, money;
  };
  std::vector<FrontPoint> priced_;    // every priced candidate's front measures
  std::optional<double> spot_quote_;  // the least quoted score of spot ranked at its PAYG cap
};

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_PLAN_SHOW_BAR_H_
