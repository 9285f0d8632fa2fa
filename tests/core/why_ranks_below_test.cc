// Why a candidate lost (issue 31, item 5): planner::WhyRanksBelow says, with the numbers, what
// made a candidate rank below the pick, and names the tie-break rule when the scores are equal.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuplan/plan.h"

namespace gpuplan::planner {
namespace {

Candidate Made(const std::string& instance, double hours, double cost, bool priced = true) {
  Candidate c;
  c.instance = instance;
  c.job_hours = hours;
  c.price_known = priced;
  c.cost.total = Money::Cny(priced ? cost : 0);
  return c;
}

TEST(WhyRanksBelowTest, SaysWhatDecidedWithTheNumbers) {
  struct Case {
    std::string name;
    Objective objective;
    Candidate pick, other;
    std::vector<std::string> want;  // parts of the answer, in order; empty = "" (not below)
  };
  Candidate cheap = Made("ecs.a", 10, 100), dear = Made("ecs.b", 5, 150);
  cheap.score = 100, dear.score = 150;  // cost objective: the score is the cost
  Candidate fast = Made("ecs.a", 5, 150), slow = Made("ecs.b", 10, 100);
  fast.score = 5, slow.score = 10;  // time objective: the score is the hours
  Candidate unpriced = Made("ecs.c", 2, 0, false);
  unpriced.score = 2;
  Candidate tie_a = Made("ecs.a", 10, 100), tie_b = Made("ecs.b", 10, 100);
  tie_a.score = tie_b.score = 100;
  const Case kCases[] = {
      {"cost_objective_names_both_costs_and_the_difference",
       Objective::kCost,
       cheap,
       dear,
       {"it costs CNY 150 against the pick's CNY 100: CNY 50 more (+50%)",
        "; it takes 5 h against 10 h"}},
      {"time_objective_names_both_hours_and_the_difference",
       Objective::kTime,
       fast,
       slow,
       {"it takes 10 h against the pick's 5 h: 5 h longer (+100%)",
        "; it costs CNY 100 against CNY 150"}},
      {"unpriced_under_a_cost_objective_says_it_has_no_price",
       Objective::kCost,
       cheap,
       unpriced,
       {"it has no price, and under a cost objective a type without a price ranks after every "
        "priced one"}},
      {"exact_tie_names_the_rule",
       Objective::kCost,
       tie_a,
       tie_b,
       {"it ties with the pick on CNY 100; the tie-break rule: ", kTieBreakRule}},
      {"the_pick_itself_did_not_lose", Objective::kCost, cheap, cheap, {}},
      {"a_better_candidate_did_not_lose", Objective::kCost, dear, cheap, {}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w;
    w.objective = c.objective;
    const std::string why = WhyRanksBelow(w, c.pick, c.other);
    if (c.want.empty()) {
      EXPECT_EQ(why, "");
      continue;
    }
    size_t at = 0;
    for (const std::string& part : c.want) {
      const size_t found = why.find(part, at);
      EXPECT_NE(found, std::string::npos) << "missing \"" << part << "\" in: " << why;
      if (found != std::string::npos)
        at = found + part.size();
    }
  }
}

}  // namespace
}  // namespace gpuplan::planner
