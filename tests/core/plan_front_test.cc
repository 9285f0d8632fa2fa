// The planner over a small in-memory catalog: what it ranks first under each objective and the
// time-vs-cost Pareto front it reports, with hardware whose trade-off is known by construction
// (one A10, cheap and slow; eight A100s on NVLink, dear and fast). Prices are test inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpuplan/plan.h"
#include "testing/catalog_builder.h"
#include "testing/embedded_calibration.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::planner {
namespace {

using testing::CatalogBuilder;

constexpr char kA10[] = "ecs.gn7i-c8g1.2xlarge";
constexpr char kA100x4[] = "ecs.gn7e-c16g1.16xlarge";
constexpr char kA100x8[] = "ecs.ebmgn7ex.32xlarge";

const Catalog& TradeOffCatalog() {
  static const Catalog* c = new Catalog(
      CatalogBuilder()
          .AddGpu(testing::GpuA10())
          .AddGpu(testing::GpuA100())
          .AddInstance({.name = kA10, .gpu = "A10-24G", .vcpu = 8, .ram_gib = 30})
          .AddInstance({.name = kA100x4,
                        .gpu = "A100-80G-SXM",
                        .gpus = 4,
                        .vcpu = 64,
                        .ram_gib = 500,
                        .network_gbps = 32,
                        .interconnect = Interconnect::kNvlink})
          .AddInstance(testing::Ebmgn7ex32xlarge())
          .AddPrice(kA10, "cn-hangzhou", Billing::kPayg, 10)
          // Dearer per GPU than the eight-GPU type, so it is dominated: slower and dearer.
          .AddPrice(kA100x4, "cn-hangzhou", Billing::kPayg, 800)
          .AddPrice(kA100x8, "cn-hangzhou", Billing::kPayg, 600)
          .Build());
  return *c;
}

Workload Lora7b(Objective objective) {
  Workload w;
  w.task = Task::kFinetune;
  w.method = Method::kLora;
  w.model_name = "llama-2-7b";
  w.seq_len = 2048;
  w.global_batch = 32;
  w.tokens = 50e6;
  w.constraints.regions = {"cn-hangzhou"};
  w.constraints.billing = {Billing::kPayg};
  w.constraints.max_nodes = 1;
  w.objective = objective;
  return w;
}

Plan PlanOn(const Workload& w) {
  PlanOptions options;
  options.today = "2026-11-30";
  Result<Plan> plan =
      MakePlan(w, testing::Llama2_7B(), TradeOffCatalog(), testing::EmbeddedCalibration(), options);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.ok() ? *plan : Plan{};
}

const Candidate* Find(const std::vector<Candidate>& cs, const std::string& instance) {
  auto it = std::find_if(cs.begin(), cs.end(),
                         [&](const Candidate& c) { return c.instance == instance; });
  return it == cs.end() ? nullptr : &*it;
}

bool Dominates(const Candidate& a, const Candidate& b) {
  const double ca = a.cost.total.amount(), cb = b.cost.total.amount();
  return a.job_hours <= b.job_hours && ca <= cb && (a.job_hours < b.job_hours || ca < cb);
}

TEST(PlanFrontTest, EachObjectiveRanksItsWinnerFirst) {
  struct Case {
    const char* name;
    Objective objective;
    const char* want_first;
  };
  const Case kCases[] = {
      {"cost_picks_the_cheap_slow_card", Objective::kCost, kA10},
      {"time_picks_eight_a100s", Objective::kTime, kA100x8},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const Plan p = PlanOn(Lora7b(c.objective));
    ASSERT_GE(p.candidates.size(), 2u) << "every type of the catalog can run a 7B LoRA";
    EXPECT_EQ(p.candidates[0].instance, c.want_first);
    for (size_t i = 1; i < p.candidates.size(); ++i)
      EXPECT_LE(p.candidates[i - 1].score, p.candidates[i].score) << "ranked best first";
  }
}

TEST(PlanFrontTest, ParetoFrontHoldsTheTradeOffAndDropsTheDominatedType) {
  const Plan p = PlanOn(Lora7b(Objective::kCost));
  ASSERT_EQ(p.candidates.size(), 3u);
  const Candidate* a10 = Find(p.candidates, kA10);
  const Candidate* x4 = Find(p.candidates, kA100x4);
  const Candidate* x8 = Find(p.candidates, kA100x8);
  ASSERT_TRUE(a10 && x4 && x8);
  // The construction: the A10 is cheapest and slowest, the 8-GPU type fastest, the 4-GPU type
  // slower and dearer than the 8-GPU one.
  ASSERT_GT(a10->job_hours, x8->job_hours);
  ASSERT_LT(a10->cost.total.amount(), x8->cost.total.amount());
  ASSERT_TRUE(Dominates(*x8, *x4));

  ASSERT_EQ(p.pareto.size(), 2u) << "the cheap and the fast type; the dominated one is not on it";
  EXPECT_EQ(p.pareto[0].instance, kA100x8) << "fastest first";
  EXPECT_EQ(p.pareto[1].instance, kA10);
  EXPECT_LT(p.pareto[1].cost.total.amount(), p.pareto[0].cost.total.amount());
  EXPECT_TRUE(a10->pareto);
  EXPECT_TRUE(x8->pareto);
  EXPECT_FALSE(x4->pareto);
  // No candidate dominates an entry of the front.
  for (const Candidate& front : p.pareto) {
    for (const Candidate& c : p.candidates)
      EXPECT_FALSE(Dominates(c, front)) << c.instance << " dominates " << front.instance;
  }
}

TEST(PlanFrontTest, AConstraintNoTypeMeetsGivesReasonsNotCandidates) {
  Workload w = Lora7b(Objective::kCost);
  w.constraints.min_gpu_memory_gib = 100;  // more than any GPU of the catalog
  const Plan p = PlanOn(w);
  EXPECT_TRUE(p.candidates.empty());
  EXPECT_TRUE(p.pareto.empty());
  ASSERT_FALSE(p.rejected.empty());
  for (const Rejection& r : p.rejected)
    EXPECT_FALSE(r.reason.empty()) << r.instance;
}

}  // namespace
}  // namespace gpuplan::planner
