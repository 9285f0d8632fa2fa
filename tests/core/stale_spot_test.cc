// Spot prices the ranking may rest on (gpuplan/plan.h SpotPriceRankable): a stale or derived
// spot price is ranked at its PAYG cap unless the workload asks for spot alone, and the plan
// shows it as an alternative with how to refresh it. In-memory catalog; prices are test inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gpuplan/plan.h"
#include "testing/catalog_builder.h"
#include "testing/embedded_calibration.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::planner {
namespace {

using testing::CatalogBuilder;

constexpr char kA10[] = "ecs.gn7i-c8g1.2xlarge";
constexpr char kToday[] = "2026-12-01";

// One A10 type at PAYG 10/h (read 2026-11-01, fresh) and, unless `spot_as_of` is "", a spot
// price of 3/h read on that date.
Catalog A10Catalog(const std::string& spot_as_of) {
  CatalogBuilder b;
  b.AddGpu(testing::GpuA10())
      .AddInstance({.name = kA10, .gpu = "A10-24G", .vcpu = 8, .ram_gib = 30})
      .AddPrice(kA10, "cn-hangzhou", Billing::kPayg, 10);
  if (!spot_as_of.empty())
    b.AddPrice(kA10, "cn-hangzhou", Billing::kSpot, 3);
  Catalog c = b.Build();
  for (Price& p : c.prices) {
    if (p.billing == Billing::kSpot) {
      p.as_of = spot_as_of;
      p.trust = "medium";
    }
  }
  return c;
}

// A 7B LoRA job of a few hours: spot at 3/h is far cheaper than PAYG at 10/h, if it holds.
Workload Job(std::vector<Billing> billing) {
  Workload w;
  w.task = Task::kFinetune;
  w.method = Method::kLora;
  w.model_name = "llama-2-7b";
  w.tokens = 20e6;
  w.constraints.regions = {"cn-hangzhou"};
  w.constraints.max_nodes = 1;
  w.constraints.billing = std::move(billing);
  return w;
}

const Candidate* Of(const Plan& p, Billing b) {
  auto it = std::find_if(p.candidates.begin(), p.candidates.end(),
                         [&](const Candidate& c) { return c.billing == b; });
  return it == p.candidates.end() ? nullptr : &*it;
}

TEST(StaleSpotTest, OnlyASpotPriceTheUserCanActOnWinsOnItsOwnStrength) {
  struct Case {
    const char* name;
    std::string spot_as_of;  // "" = no spot price listed: derived from PAYG
    std::vector<Billing> billing;
    Billing want_first;
    bool spot_ranked_at_cap;
  };
  const Case kCases[] = {
      {"fresh_payg_beats_a_cheaper_stale_spot_price", "2024-10-09", {}, Billing::kPayg, true},
      {"fresh_payg_beats_a_spot_price_derived_from_it", "", {}, Billing::kPayg, true},
      {"a_fresh_spot_price_still_wins", "2026-11-20", {}, Billing::kSpot, false},
      {"billing_spot_alone_ranks_the_stale_price",
       "2024-10-09",
       {Billing::kSpot},
       Billing::kSpot,
       false},
      {"payg_and_spot_listed_is_not_spot_alone",
       "2024-10-09",
       {Billing::kPayg, Billing::kSpot},
       Billing::kPayg,
       true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    PlanOptions options;
    options.today = kToday;
    const Catalog catalog = A10Catalog(c.spot_as_of);
    Result<Plan> p = MakePlan(Job(c.billing), testing::Llama2_7B(), catalog,
                              testing::EmbeddedCalibration(), options);
    ASSERT_TRUE(p.ok()) << p.status().message();
    ASSERT_FALSE(p->candidates.empty());
    const Candidate& first = p->candidates[0];
    EXPECT_EQ(first.billing, c.want_first) << first.why;
    const Candidate* spot = Of(*p, Billing::kSpot);
    ASSERT_NE(spot, nullptr);
    // The case: at its own price spot is the cheaper job.
    const Candidate* payg = Of(*p, Billing::kPayg);
    if (payg != nullptr) {
      ASSERT_LT(spot->cost.total.amount(), payg->cost.total.amount());
    }
    EXPECT_EQ(spot->spot_ranked_at_payg > 0, c.spot_ranked_at_cap);
    const bool noted = std::any_of(p->notes.begin(), p->notes.end(), [](const std::string& n) {
      return n.find("spot not ranked on its price") != std::string::npos &&
             n.find("gpuplan prices refresh --region cn-hangzhou") != std::string::npos;
    });
    EXPECT_EQ(noted, c.spot_ranked_at_cap) << "the alternative and how to refresh it";
    EXPECT_EQ(p->spot_alternative.has_value(), c.spot_ranked_at_cap);
    if (c.spot_ranked_at_cap) {
      EXPECT_DOUBLE_EQ(spot->spot_ranked_at_payg, 10) << "ranked at the PAYG cap";
      EXPECT_LT(spot->score_at_quote, first.score) << "it would have come first at its price";
      EXPECT_NE(first.why.find("spot looks cheaper only at a price that cannot be relied on"),
                std::string::npos)
          << first.why;
      EXPECT_TRUE(std::any_of(spot->advice.begin(), spot->advice.end(), [](const rules::Advice& a) {
        return a.rule == "spot-price-not-ranked";
      }));
    }
  }
}

TEST(StaleSpotTest, RankableSpotPrices) {
  struct Case {
    const char* name;
    bool derived;
    std::optional<int> age_days;
    bool rankable;
  };
  const Case kCases[] = {
      {"listed_and_fresh", false, 30, true},
      {"listed_age_unknown", false, std::nullopt, true},
      {"listed_but_stale", false, 783, false},
      {"derived_from_payg", true, 30, false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    cost::PriceQuote q;
    q.billing = Billing::kSpot;
    q.derived = c.derived;
    q.age_days = c.age_days;
    EXPECT_EQ(SpotPriceRankable(q), c.rankable);
  }
}

}  // namespace
}  // namespace gpuplan::planner
