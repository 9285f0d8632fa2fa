// What a user sees of a plan, for tests that hold two ways of planning to the same answer
// (pruned or not, every region priced or not): its candidates, time-cost front, spot
// alternative, notes and why.
#ifndef GPUPLAN_TESTS_TESTING_SHOWN_PLAN_H_
#define GPUPLAN_TESTS_TESTING_SHOWN_PLAN_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuplan/plan.h"

namespace gpuplan::testing {

// One candidate as the plan shows it: hardware, billing, region, layout, hours, cost, score and
// the cost's notes.
inline std::string Shown(const planner::Candidate& c) {
  std::string notes;
  for (const std::string& n : c.cost.notes)
    notes += " | " + n;
  return c.instance + " x" + std::to_string(c.nodes) + " " +
         std::string(cost::ModeName(c.billing)) + " " + c.region + " " +
         perf::DescribeLayout(c.layout) + " " + std::to_string(c.job_hours) + " h " +
         (c.price_known ? c.cost.total.ToString() : "unpriced") + " score " +
         std::to_string(c.score) + notes;
}

inline std::vector<std::string> Shown(const std::vector<planner::Candidate>& cs) {
  std::vector<std::string> out;
  out.reserve(cs.size());
  for (const planner::Candidate& c : cs)
    out.push_back(Shown(c));
  return out;
}

// `got` shows what `want` shows.
inline void ExpectShowsTheSame(const planner::Plan& got, const planner::Plan& want) {
  ASSERT_FALSE(want.candidates.empty());
  EXPECT_EQ(Shown(got.candidates), Shown(want.candidates));
  EXPECT_EQ(Shown(got.pareto), Shown(want.pareto));
  ASSERT_EQ(got.spot_alternative.has_value(), want.spot_alternative.has_value());
  if (want.spot_alternative) {
    EXPECT_EQ(Shown(*got.spot_alternative), Shown(*want.spot_alternative));
  }
  EXPECT_EQ(got.notes, want.notes);
  ASSERT_FALSE(got.candidates.empty());
  EXPECT_EQ(got.candidates.front().why, want.candidates.front().why);
}

}  // namespace gpuplan::testing

#endif  // GPUPLAN_TESTS_TESTING_SHOWN_PLAN_H_
