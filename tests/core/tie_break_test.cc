// The tie-break of candidates equal on both measures (planner::RanksBefore, kTieBreakRule). A
// service whose every candidate is unpriced is the common case: each runs the month's 730 h
// with no cost, and before this rule the instance name chose, so an invitational preview family
// (ebmgn9gc) was DeepSeek-R1's pick over generally available ones needing no more GPUs.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/plan.h"
#include "plan/show_bar.h"

namespace gpuplan::planner {
namespace {

Candidate Unpriced(const std::string& instance, int gpus, bool preview) {
  Candidate c;
  c.instance = instance;
  c.gpus = gpus;
  c.preview = preview;
  c.job_hours = 730;
  c.score = 730;  // unpriced: ranked by hours
  c.price_known = false;
  return c;
}

TEST(TieBreakTest, EqualCandidatesRankByAvailabilityThenGpuHoursThenName) {
  struct Case {
    std::string name;
    Candidate first, second;  // `first` must rank before `second`
  };
  const Case kCases[] = {
      {"generally_available_before_preview_even_with_more_gpus",
       Unpriced("ecs.gn8v-8x.16xlarge", 48, false), Unpriced("ecs.ebmgn9gc.64xlarge", 16, true)},
      {"fewer_gpu_hours_before_more", Unpriced("ecs.zz.48xlarge", 16, false),
       Unpriced("ecs.aa.16xlarge", 48, false)},
      {"the_name_settles_the_rest", Unpriced("ecs.aa.16xlarge", 16, false),
       Unpriced("ecs.zz.16xlarge", 16, false)},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    for (Objective objective : {Objective::kCost, Objective::kTime}) {
      Workload w;
      w.objective = objective;
      EXPECT_TRUE(RanksBefore(w, c.first, c.second));
      EXPECT_FALSE(RanksBefore(w, c.second, c.first));
    }
  }
}

// A better score still wins over availability: the rule breaks ties only.
TEST(TieBreakTest, APreviewThatIsFasterStillRanksFirstByTime) {
  Workload w;
  w.objective = Objective::kTime;
  Candidate preview = Unpriced("ecs.ebmgn9gc.64xlarge", 16, true);
  preview.job_hours = preview.score = 10;
  Candidate ga = Unpriced("ecs.gn8v-8x.16xlarge", 48, false);
  ga.job_hours = ga.score = 20;
  EXPECT_TRUE(RanksBefore(w, preview, ga));
}

}  // namespace
}  // namespace gpuplan::planner
