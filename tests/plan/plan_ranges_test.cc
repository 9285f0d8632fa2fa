// The planner with an uncertainty table: ranges on candidates, and deadline and budget checks at
// Workload::confidence.
#include "gpuplan/plan_ranges.h"

#include <gtest/gtest.h>

#include <cmath>

#include "gpuplan/plan.h"
#include "io/calibration_csv.h"
#include "io/catalog_loader.h"
#include "io/model_zoo.h"
#include "io/workload_yaml.h"

namespace gpuplan::planner {
namespace {

constexpr char kInstance[] = "ecs.gn7i-c8g1.2xlarge";

// A LoRA fine-tune on one A10 instance, PAYG, with `extra` YAML lines.
std::string Yaml(const std::string& extra) {
  return "task: finetune\nmethod: lora\nmodel: llama-2-7b\nseq_len: 2048\nglobal_batch: 32\n"
         "tokens: 50M\nconstraints: {regions: [cn-hangzhou], billing: [payg], max_nodes: 1" +
         extra + "}\n";
}

// Every time regime: true / predicted between 0.9 (p10) and 1.5 (p90), median 1.
uncertainty::Table WideTable() {
  std::vector<uncertainty::Sample> s;
  for (double r : {0.9, 0.9, 1.0, 1.0, 1.0, 1.5, 1.5})
    s.push_back({{"time"}, r, "x"});
  for (double r : {1.0, 1.0})
    s.push_back({{"memory"}, r, "x"});
  uncertainty::Table t = uncertainty::Fit(s, 1, 1);
  t.regimes.at("time").p10 = 0.9, t.regimes.at("time").p50 = 1.0, t.regimes.at("time").p90 = 1.5;
  return t;
}

// Every time regime as WideTable; memory true / predicted `p10`, `p50`, `p90`.
uncertainty::Table MemoryTable(double p10, double p50, double p90) {
  uncertainty::Table t = WideTable();
  uncertainty::Band& m = t.regimes.at("memory");
  m.p10 = p10, m.p50 = p50, m.p90 = p90;
  return t;
}

Result<Plan> PlanOn(const std::string& yaml, double confidence, uncertainty::Table table,
                    const cost::MarketData& market = {}) {
  Result<Catalog> catalog = io::LoadCatalog("");
  Result<ModelZoo> zoo = io::LoadModelZoo();
  Result<Calibration> cal = io::LoadCalibration();
  if (!catalog.ok() || !zoo.ok() || !cal.ok())
    return Status::InvalidArgument("embedded data");
  Result<Workload> w = io::ParseWorkloadYaml(yaml, "test.yaml");
  if (!w.ok())
    return w.status();
  // The time and cost checks and the memory fit at the same percentile, as these tests were
  // written before the fit had a confidence of its own (issue 31).
  w->confidence = confidence;
  w->memory_confidence = confidence;
  Result<ModelArch> arch = PlanModel(*w, *zoo);
  if (!arch.ok())
    return arch.status();
  PlanOptions options;
  options.today = "2026-11-30";
  options.only_instance = kInstance;
  options.market = market;
  options.uncertainty = std::move(table);
  return MakePlan(*w, *arch, *catalog, *cal, options);
}

Result<Plan> PlanWith(const std::string& yaml, double confidence, bool with_table = true,
                      const cost::MarketData& market = {}) {
  return PlanOn(yaml, confidence, with_table ? WideTable() : uncertainty::Table{}, market);
}

TEST(PlanRangesTest, CandidatesCarryTimeCostAndMemoryRanges) {
  Result<Plan> p = PlanWith(Yaml(""), 0.5);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_FALSE(p->candidates.empty());
  const Candidate& c = p->candidates[0];
  ASSERT_TRUE(c.ranges.has_value());
  EXPECT_NEAR(c.ranges->job_hours.p10, 0.9 * c.job_hours, 1e-6 * c.job_hours);
  EXPECT_NEAR(c.ranges->job_hours.p90, 1.5 * c.job_hours, 1e-6 * c.job_hours);
  // PAYG bills by the second: cost scales with hours.
  EXPECT_NEAR(c.ranges->cost.p90, 1.5 * c.cost.total.amount(), 1e-6 * c.cost.total.amount());
  EXPECT_NEAR(c.ranges->step_s.p90, 1.5 * c.estimate.time.step_s, 1e-9);
  EXPECT_EQ(c.ranges->time.regime, "time/lora/Ampere/1node/dense");
  EXPECT_EQ(c.ranges->time.from, "time");
}

TEST(PlanRangesTest, DeadlineMetAtMedianIsMissedAtNinetyPercentConfidence) {
  Result<Plan> free = PlanWith(Yaml(""), 0.5, /*with_table=*/false);
  ASSERT_TRUE(free.ok() && !free->candidates.empty());
  const double hours = free->candidates[0].job_hours;
  // Between the median (1.0 x) and the p90 (1.5 x) of the job's hours.
  const std::string deadline = ", deadline_hours: " + std::to_string(1.2 * hours);

  Result<Plan> median = PlanWith(Yaml(deadline), 0.5);
  ASSERT_TRUE(median.ok()) << median.status().message();
  ASSERT_FALSE(median->candidates.empty());
  EXPECT_NE(median->candidates[0].why.find("deadline with 50% confidence: p50"), std::string::npos)
      << median->candidates[0].why;

  Result<Plan> sure = PlanWith(Yaml(deadline), 0.9);
  ASSERT_TRUE(sure.ok()) << sure.status().message();
  EXPECT_TRUE(sure->candidates.empty());
  ASSERT_FALSE(sure->rejected.empty());
  EXPECT_NE(sure->rejected[0].reason.find("(p90 "), std::string::npos) << sure->rejected[0].reason;
}

TEST(PlanRangesTest, BudgetIsCheckedAtTheConfidencePercentile) {
  Result<Plan> free = PlanWith(Yaml(""), 0.5, /*with_table=*/false);
  ASSERT_TRUE(free.ok() && !free->candidates.empty());
  const double cost = free->candidates[0].cost.total.amount();
  const std::string budget =
      ", budget: {amount: " + std::to_string(1.2 * cost) + ", currency: CNY}";
  Result<Plan> median = PlanWith(Yaml(budget), 0.5);
  ASSERT_TRUE(median.ok() && !median->candidates.empty());
  EXPECT_NE(median->candidates[0].why.find("budget with 50% confidence"), std::string::npos);
  Result<Plan> sure = PlanWith(Yaml(budget), 0.9);
  ASSERT_TRUE(sure.ok());
  EXPECT_TRUE(sure->candidates.empty());
}

TEST(PlanRangesTest, SpotRangeRunsOverTheReclaimBracket) {
  cost::MarketData market;
  cost::SpotAdvice advice;
  advice.instance = kInstance;
  advice.region = "cn-hangzhou";
  advice.zone = "cn-hangzhou-h";
  advice.interruption_rate = 0.04;
  advice.interrupt_rate_desc = "3-5%";
  advice.as_of = "2026-11-30";
  market.spot_advice.push_back(advice);
  std::string yaml = Yaml("");
  yaml.replace(yaml.find("billing: [payg]"), 15, "billing: [spot]");
  Result<Plan> p = PlanWith(yaml, 0.5, true, market);
  market.spot_advice[0].interrupt_rate_desc = "";  // the 30-day average alone: no bracket
  Result<Plan> q = PlanWith(yaml, 0.5, true, market);
  ASSERT_TRUE(p.ok() && q.ok());
  ASSERT_FALSE(p->candidates.empty() || q->candidates.empty());
  const Candidate& c = p->candidates[0];
  const Candidate& point_rate = q->candidates[0];
  ASSERT_EQ(c.billing, cost::Mode::kSpot);
  ASSERT_TRUE(c.ranges && c.ranges->reclaim_rate_per_hour);
  EXPECT_NEAR(c.ranges->reclaim_rate_per_hour->first, ReclaimBracketPerHour("3-5%")->first, 1e-15);
  EXPECT_NEAR(c.job_hours, point_rate.job_hours, 1e-12);  // the point uses the average
  // The bracket widens the range beyond what the time spread alone gives.
  EXPECT_GT(c.ranges->job_hours.p90, point_rate.ranges->job_hours.p90);
  EXPECT_LT(c.ranges->job_hours.p10, point_rate.ranges->job_hours.p10);
  EXPECT_GT(c.ranges->cost.p90, point_rate.ranges->cost.p90);
}

TEST(PlanRangesTest, TheLayoutFitsAtTheConfidenceWithTheModelsMemoryError) {
  // Memory true / predicted 0.95 (p10), 1.05 (p50), 1.15 (p90): the pick's predicted memory
  // times the band at the workload's confidence stays within the GPU, and the why shows the
  // headroom left there.
  struct Case {
    const char* name;
    double confidence;
    double ratio;
    const char* percentile;
  };
  const Case kCases[] = {
      {"median", 0.5, 1.05, "at p50"},
      {"ninety_percent", 0.9, 1.15, "at p90"},
      {"seventy_percent_interpolates", 0.7, 1.10, "at p70"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Plan> p = PlanOn(Yaml(""), c.confidence, MemoryTable(0.95, 1.05, 1.15));
    ASSERT_TRUE(p.ok()) << p.status().message();
    ASSERT_FALSE(p->candidates.empty());
    const perf::Estimate::Memory& m = p->candidates[0].estimate.memory;
    EXPECT_NEAR(m.checked_gib, m.per_gpu_gib * c.ratio, 1e-9);
    EXPECT_LE(m.checked_gib, m.capacity_gib);
    EXPECT_TRUE(m.fits);
    const std::string& why = p->candidates[0].why;
    EXPECT_NE(why.find(c.percentile + std::string(" of the model's memory error")),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("GiB headroom"), std::string::npos) << why;
  }
}

TEST(PlanRangesTest, HardwareThatFitsOnlyAtThePointIsRejectedSayingSo) {
  // A 7B LoRA fits one A10 at the point; three times the predicted memory fits nothing (no
  // offload: the frozen weights stay on the GPU). The rejection says it fits at the point and
  // that a lower confidence accepts the risk, rather than dropping the hardware as too small.
  const std::string yaml = "offload: none\n" + Yaml("");
  Result<Plan> point = PlanOn(yaml, 0.5, MemoryTable(1, 1, 1));
  ASSERT_TRUE(point.ok() && !point->candidates.empty());
  Result<Plan> p = PlanOn(yaml, 0.5, MemoryTable(2.5, 3, 3.5));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(p->candidates.empty());
  ASSERT_FALSE(p->rejected.empty());
  const std::string& why = p->rejected[0].reason;
  EXPECT_NE(why.find("fits only at the point estimate"), std::string::npos) << why;
  EXPECT_NE(why.find("at p50 of the model's memory error (+200%, data/uncertainty.csv)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("a lower memory_confidence (now 0.5, --memory-confidence) accepts the risk"),
            std::string::npos)
      << why;
}

TEST(PlanRangesTest, ReclaimBracketReadsTheAdviceText) {
  std::optional<std::pair<double, double>> b = ReclaimBracketPerHour("3-5%");
  ASSERT_TRUE(b.has_value());
  EXPECT_NEAR(b->first, -std::log1p(-0.03) / 720, 1e-12);
  EXPECT_NEAR(b->second, -std::log1p(-0.05) / 720, 1e-12);
  EXPECT_FALSE(ReclaimBracketPerHour(">20%").has_value());
  EXPECT_FALSE(ReclaimBracketPerHour("").has_value());
}

}  // namespace
}  // namespace gpuplan::planner

namespace gpuplan::planner {
namespace {

// A service's cost range is priced in whole instances: the copies a rate needs at the slow and
// fast ends of the engine's time band, not the point cost scaled by the band.
TEST(ServiceCostRangeTest, PricesTheInstancesEachEndNeeds) {
  uncertainty::Band band;
  band.p10 = 0.8, band.p50 = 1.0, band.p90 = 1.25;
  struct Case {
    const char* name;
    double rate, group_rate;
    int nodes_per_group;
    bool spares;
    double point, p10, p90;  // in instances x 1000 per month
  };
  const Case cases[] = {
      // 5 req/s on groups of 6: one group even at p10; p90 needs 5 x 1.25 = 6.25 -> two.
      {"slow end adds a group", 5, 6, 1, false, 1000, 1000, 2000},
      // 10 on 6: two groups at the point (1.67), two at p10 (1.33), three at p90 (2.08).
      {"two groups", 10, 6, 1, false, 2000, 2000, 3000},
      // 2-instance groups: each group is two instances.
      {"multi-node copies", 10, 6, 2, false, 4000, 4000, 6000},
      // 2.2 groups at the point (three), 1.76 at p10 (two), 2.75 at p90 (three).
      {"fast end needs fewer", 22, 10, 1, false, 3000, 2000, 3000},
      // Spot keeps one spare instance per ten (at least one) at each end.
      {"spot spares", 10, 6, 1, true, 3000, 3000, 4000},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const uncertainty::Range r = ServiceCostRange(
        band, c.rate, c.group_rate, c.nodes_per_group, 1000,
        c.spares ? +[](int groups) { return std::max(1, (groups + 9) / 10); } : nullptr);
    EXPECT_DOUBLE_EQ(r.point, c.point);
    EXPECT_DOUBLE_EQ(r.p10, c.p10);
    EXPECT_DOUBLE_EQ(r.p90, c.p90);
  }
}

}  // namespace
}  // namespace gpuplan::planner
