// ShowBar (src/core/plan/show_bar.h): whether hardware whose candidates are no better than some
// floors could still be shown by a plan: among the top_n of the ranking, on the time-cost front
// or as the spot alternative. Each case holds a plan's candidates so far and one hardware's
// floors; "could" must be true whenever a candidate at least as bad as the floors could be
// shown, and false only when none can.
#include "plan/show_bar.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpuplan::planner {
namespace {

// A candidate of `instance` x `nodes` in `region`: `score` ranks, `hours` and `cost` sweep.
Candidate Make(const std::string& instance, int nodes, Billing billing, double score, double hours,
               double cost, const std::string& region = "cn-hangzhou") {
  Candidate c;
  c.instance = instance;
  c.nodes = nodes;
  c.billing = billing;
  c.region = region;
  c.score = c.score_at_quote = score;
  c.job_hours = hours;
  c.cost.total = Money(cost, Currency::kCny);
  return c;
}

Candidate Unpriced(Candidate c) {
  c.price_known = false;
  c.cost.total = Money(0, Currency::kCny);
  return c;
}

Candidate SpotAtCap(Candidate c, double quoted_score) {
  c.spot_ranked_at_payg = 10;
  c.score_at_quote = quoted_score;
  return c;
}

struct BarCase {
  std::string name;
  Objective objective = Objective::kTime;
  int top_n = 2;
  std::vector<std::vector<Candidate>> plan;  // per hardware, as the planner adds them
  std::vector<Candidate> floors;
  bool could = false;
};

class ShowBarCases : public ::testing::TestWithParam<BarCase> {};

TEST_P(ShowBarCases, SaysWhetherFloorsCouldBeShown) {
  const BarCase& c = GetParam();
  Workload w;
  w.objective = c.objective;
  ShowBar bar(w, c.top_n);
  for (const std::vector<Candidate>& hardware : c.plan)
    bar.Add(hardware);
  EXPECT_EQ(bar.CouldShow(c.floors), c.could);
}

const Billing kPayg = Billing::kPayg, kSpot = Billing::kSpot;

INSTANTIATE_TEST_SUITE_P(
    Rules, ShowBarCases,
    ::testing::Values(
        // Two faster and cheaper candidates fill the top 2 and dominate it: nothing to show.
        BarCase{"BeatenEverywhere",
                Objective::kTime,
                2,
                {{Make("a", 1, kPayg, 10, 10, 100)}, {Make("b", 1, kPayg, 20, 20, 100)}},
                {Make("x", 1, kPayg, 30, 30, 200)},
                false},
        // Only one candidate ranks before it: it can still be second.
        BarCase{"RoomInTheTopN",
                Objective::kTime,
                2,
                {{Make("a", 1, kPayg, 10, 10, 100)}},
                {Make("x", 1, kPayg, 30, 30, 200)},
                true},
        // Equal scores are ranked by what the floor cannot tell: could.
        BarCase{"TieInScore",
                Objective::kTime,
                2,
                {{Make("a", 1, kPayg, 10, 10, 100)}, {Make("b", 1, kPayg, 30, 20, 100)}},
                {Make("x", 1, kPayg, 30, 30, 200)},
                true},
        // Cheaper than everything at least as fast: on the front, whatever its rank.
        BarCase{"CheaperThanTheFaster",
                Objective::kTime,
                2,
                {{Make("a", 1, kPayg, 10, 10, 100)}, {Make("b", 1, kPayg, 20, 20, 100)}},
                {Make("x", 1, kPayg, 30, 30, 90)},
                true},
        // As cheap as the faster one is not off the front for sure.
        BarCase{"EqualCostIsNotDominated",
                Objective::kTime,
                2,
                {{Make("a", 1, kPayg, 10, 10, 100)}, {Make("b", 1, kPayg, 20, 20, 100)}},
                {Make("x", 1, kPayg, 30, 30, 100)},
                true},
        // Two billing modes: the spot floor still ranks second.
        BarCase{"OneModeCanEnter",
                Objective::kTime,
                2,
                {{Make("a", 1, kPayg, 10, 10, 100)}, {Make("b", 1, kPayg, 20, 20, 100)}},
                {Make("x", 1, kPayg, 30, 30, 200), Make("x", 1, kSpot, 15, 15, 200)},
                true},
        // Spot ranked at its PAYG cap but quoted below every spot so far: may be the
        // alternative.
        BarCase{
            "SpotQuoteBelowTheBest",
            Objective::kTime,
            2,
            {{Make("a", 1, kPayg, 10, 10, 100)},
             {Make("b", 1, kPayg, 20, 20, 100), SpotAtCap(Make("b", 1, kSpot, 20, 20, 100), 9)}},
            {SpotAtCap(Make("x", 1, kSpot, 30, 30, 200), 8)},
            true},
        BarCase{
            "SpotQuoteAboveTheBest",
            Objective::kTime,
            2,
            {{Make("a", 1, kPayg, 10, 10, 100)},
             {Make("b", 1, kPayg, 20, 20, 100), SpotAtCap(Make("b", 1, kSpot, 20, 20, 100), 9)}},
            {SpotAtCap(Make("x", 1, kSpot, 30, 30, 200), 12)},
            false},
        // Ranked by cost, the unpriced follow every priced candidate and are on no front.
        BarCase{"UnpricedAfterPriced",
                Objective::kCost,
                2,
                {{Make("a", 1, kPayg, 100, 10, 100)}, {Make("b", 1, kPayg, 100, 20, 100)}},
                {Unpriced(Make("x", 1, kPayg, 5, 5, 0))},
                false},
        // ... and a priced floor comes before every unpriced candidate.
        BarCase{
            "PricedBeforeUnpriced",
            Objective::kCost,
            2,
            {{Unpriced(Make("a", 1, kPayg, 1, 1, 0))}, {Unpriced(Make("b", 1, kPayg, 2, 2, 0))}},
            {Make("x", 1, kPayg, 500, 30, 500)},
            true},
        // Of one hardware's regions only the best-scored stays, as in the ranking: a cheaper
        // region with a worse score is not on the front and cannot dominate the floor.
        BarCase{"OnlyTheRankedRegionSweeps",
                Objective::kTime,
                1,
                {{Make("a", 1, kPayg, 10, 10, 100, "cn-hangzhou"),
                  Make("a", 1, kPayg, 11, 11, 50, "cn-beijing")}},
                {Make("x", 1, kPayg, 30, 30, 80)},
                true}),
    [](const ::testing::TestParamInfo<BarCase>& param) { return param.param.name; });

}  // namespace
}  // namespace gpuplan::planner
