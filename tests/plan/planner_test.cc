#include <gtest/gtest.h>

#include <algorithm>

#include "gpuplan/layout_search.h"
#include "gpuplan/plan.h"
#include "testing/embedded_data.h"

namespace gpuplan::planner {
namespace {

Plan PlanYaml(const std::string& yaml, std::string only = "", const cost::MarketData& market = {}) {
  PlanOptions options;
  options.today = "2026-11-30";
  options.only_instance = only;
  options.market = market;
  return testing::PlanFromYaml(yaml, options);
}

const Rejection* RejectionOf(const Plan& p, const std::string& instance) {
  auto it = std::find_if(p.rejected.begin(), p.rejected.end(),
                         [&](const Rejection& r) { return r.instance == instance; });
  return it == p.rejected.end() ? nullptr : &*it;
}

bool HasAdvice(const Candidate& c, const std::string& rule) {
  return std::any_of(c.advice.begin(), c.advice.end(),
                     [&](const rules::Advice& a) { return a.rule == rule; });
}

constexpr char kLora7bPayg[] = R"(task: finetune
method: lora
model: llama-2-7b
precision: bf16
seq_len: 2048
global_batch: 32
tokens: 50M
constraints: {regions: [cn-hangzhou], billing: [payg]}
objective: cost
)";

TEST(PlannerTest, LoraOf7bFitsOneA10AndTheCheapestA10SetupWinsOnCost) {
  Plan p = PlanYaml(kLora7bPayg);
  ASSERT_FALSE(p.candidates.empty());
  const Candidate& best = p.candidates[0];
  EXPECT_EQ(best.gpu, "A10-24G") << "the cheapest GPU that does the job";
  EXPECT_TRUE(best.estimate.memory.fits);
  EXPECT_GT(best.job_hours, 0);
  EXPECT_EQ(best.region, "cn-hangzhou");
  // One A10 type must be among the feasible candidates.
  Plan a10 = PlanYaml(kLora7bPayg, "ecs.gn7i-c8g1.2xlarge");
  ASSERT_FALSE(a10.candidates.empty()) << (a10.rejected.empty() ? "" : a10.rejected[0].reason);
  EXPECT_LT(a10.candidates[0].estimate.memory.per_gpu_gib, 22.2);
  // The search over the whole catalog is never dearer than one A10 on its own (a 2-stage
  // pipeline avoids the full recomputation one 24 GB card needs).
  EXPECT_LE(best.cost.total.amount(), a10.candidates[0].cost.total.amount());
  // Candidates are ranked by cost (many GPU types can run a 7B LoRA: the loop has pairs).
  ASSERT_GE(p.candidates.size(), 2u);
  for (size_t i = 1; i < p.candidates.size(); ++i) {
    EXPECT_LE(p.candidates[i - 1].score, p.candidates[i].score);
  }
}

// Under a time objective every region of a type scores alike (the same hours): the plan must
// still show it where it is cheapest. (It used to keep the alphabetically first region: 8 x
// ebmgn7e.32xlarge PAYG in ap-northeast-1 at CNY 297.48/h, not cn-wulanchabu at 250.14/h.)
TEST(PlannerTest, UnderATimeObjectiveEachCandidateIsInItsCheapestRegion) {
  const Plan p = PlanYaml(R"(task: pretrain
model: llama-2-13b
seq_len: 4096
global_batch: 256
tokens: 2B
constraints: {max_nodes: 2, billing: [payg], exclude_families: [sccgn7ex]}
objective: time
)");
  ASSERT_FALSE(p.candidates.empty());
  int compared = 0;
  for (const Candidate& c : p.candidates) {
    if (!c.price_known)
      continue;
    SCOPED_TRACE(c.instance + " in " + c.region);
    for (const Price& row : testing::EmbeddedCatalog().prices) {
      if (row.instance != c.instance || row.billing != Billing::kPayg || row.unit != "hour" ||
          row.currency != "CNY" || !(row.amount > 0)) {
        continue;
      }
      ++compared;
      EXPECT_LE(c.cost.rate_per_hour.amount(), row.amount + 1e-9) << "cheaper in " << row.region;
    }
  }
  EXPECT_GT(compared, static_cast<int>(p.candidates.size())) << "types priced in several regions";
}

// The why names a shown job that nearly ties the top pick on the objective (within 2%) and is
// far better on the other measure (at least 20%), and only then: a user asking for the cheapest
// 7B LoRA would rather pay CNY 0.34 more to finish in half the time.
TEST(PlannerTest, TheWhyFlagsANearTieWorthTakingInstead) {
  struct Case {
    const char* name;
    const char* yaml;
    bool expect_tie;
  };
  const Case cases[] = {
      {"qwen_lora_by_cost_has_one", R"(task: finetune
method: lora
model: qwen2.5-7b
tokens: 100M
)",
       true},
      {"lora_in_one_region_by_cost", kLora7bPayg, true},
      // Spot takes 0.8% longer than PAYG (its reclaims come on top of the stops both meet)
      // for 65% less: worth taking instead. (The unpriced SCC twin of ebmgn7ex is left out: a
      // tie is between two prices.)
      {"llama13b_by_time_with_spot", R"(task: pretrain
model: llama-2-13b
seq_len: 4096
global_batch: 256
tokens: 2B
constraints: {max_nodes: 2, billing: [payg, spot], exclude_families: [sccgn7ex]}
objective: time
)",
       true},
      {"llama13b_by_time_payg_only", R"(task: pretrain
model: llama-2-13b
seq_len: 4096
global_batch: 256
tokens: 2B
constraints: {max_nodes: 2, billing: [payg], exclude_families: [sccgn7ex]}
objective: time
)",
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Plan p = PlanYaml(c.yaml);
    ASSERT_GE(p.candidates.size(), 2u);
    const Candidate& best = p.candidates[0];
    const bool by_time = std::string(c.yaml).find("objective: time") != std::string::npos;
    const Candidate* tie = nullptr;
    for (size_t i = 1; i < p.candidates.size() && tie == nullptr; ++i) {
      const Candidate& o = p.candidates[i];
      if (!o.price_known || o.job_hours <= 0)
        continue;
      const double dh = o.job_hours / best.job_hours,
                   dc = o.cost.total.amount() / best.cost.total.amount();
      if (by_time ? (dh <= 1.02 && dc <= 0.8) : (dc <= 1.02 && dh <= 0.8))
        tie = &o;
    }
    EXPECT_EQ(tie != nullptr, c.expect_tie);
    const size_t at = best.why.find("near tie: ");
    if (tie == nullptr) {
      EXPECT_EQ(at, std::string::npos) << best.why;
      continue;
    }
    ASSERT_NE(at, std::string::npos) << best.why;
    EXPECT_NE(best.why.find(std::to_string(tie->nodes) + " x " + tie->instance, at),
              std::string::npos)
        << best.why;
  }
}

// An unpriced type left out of a cost-ranked plan is rejected for its missing price first, with
// how to bring one: H20 (gn8v) has no price, and its speed is not why it is not shown.
TEST(PlannerTest, AnUnpricedTypeLeftOutSaysItLacksAPriceAndHowToAddOne) {
  const Plan p = PlanYaml(R"(task: finetune
method: lora
model: qwen2.5-7b
tokens: 200M
constraints: {regions: [cn-hangzhou]}
)");
  ASSERT_FALSE(p.candidates.empty());
  const Rejection* h20 = RejectionOf(p, "ecs.gn8v-8x.16xlarge");
  ASSERT_NE(h20, nullptr);
  EXPECT_EQ(h20->reason.rfind("price unknown, so it ranks after every priced type", 0), 0u)
      << h20->reason;
  EXPECT_NE(h20->reason.find("prices add"), std::string::npos) << h20->reason;
  // A priced type cut for its speed says only that.
  for (const Rejection& r : p.rejected) {
    if (r.reason.find("every layout takes at least") == std::string::npos)
      continue;
    const InstanceType* t = testing::EmbeddedCatalog().FindInstance(r.instance);
    ASSERT_NE(t, nullptr) << r.instance;
    const bool priced = std::any_of(testing::EmbeddedCatalog().prices.begin(),
                                    testing::EmbeddedCatalog().prices.end(),
                                    [&](const Price& row) { return row.instance == t->name; });
    EXPECT_EQ(r.reason.find("price unknown") == std::string::npos, priced) << r.instance;
  }
}

TEST(PlannerTest, FullFinetuneOf70bIsRejectedOn24GbCardsWithTheReason) {
  Plan p = PlanYaml(R"(task: finetune
method: full
model: llama-2-70b
precision: bf16
seq_len: 2048
global_batch: 64
tokens: 100M
constraints: {max_nodes: 2, billing: [payg]}
objective: cost
)");
  const Rejection* a10 = RejectionOf(p, "ecs.gn7i-c8g1.2xlarge");
  ASSERT_NE(a10, nullptr);
  EXPECT_NE(a10->reason.find("GiB per GPU"), std::string::npos) << a10->reason;
  ASSERT_FALSE(p.candidates.empty());
  for (const Candidate& c : p.candidates) {
    // Small cards appear only with the optimizer in host RAM (tried when nothing else fits).
    if (c.estimate.memory.capacity_gib < 40) {
      EXPECT_NE(c.layout.offload, perf::Offload::kNone) << c.instance << " fits only with offload";
      EXPECT_GT(c.estimate.memory.host_gib, 0) << c.instance;
      EXPECT_LE(c.estimate.memory.host_gib, c.estimate.memory.host_capacity_gib) << c.instance;
    }
    EXPECT_GE(c.gpus, 8) << c.instance;
  }
}

TEST(PlannerTest, Fp64HpcAvoidsGpusWithoutRealFp64) {
  Plan p = PlanYaml(R"(task: hpc
precision: fp64
constraints: {billing: [payg]}
)");
  ASSERT_FALSE(p.candidates.empty());
  for (const Candidate& c : p.candidates) {
    EXPECT_TRUE(c.gpu.rfind("A100", 0) == 0 || c.gpu.rfind("V100", 0) == 0 ||
                c.gpu.rfind("P100", 0) == 0 || c.gpu.rfind("A30", 0) == 0)
        << c.gpu;
  }
  for (const char* t : {"ecs.gn7i-c8g1.2xlarge", "ecs.gn6i-c4g1.xlarge", "ecs.gn8is.2xlarge"}) {
    const Rejection* r = RejectionOf(p, t);
    ASSERT_NE(r, nullptr) << t;
    EXPECT_NE(r->reason.find("FP64"), std::string::npos) << r->reason;
  }
}

TEST(PlannerTest, MultiNodeWithoutErdmaGetsTheWarning) {
  const Candidate* two = nullptr;
  Plan all = PlanYaml(R"(task: pretrain
model: llama-2-13b
precision: bf16
seq_len: 4096
global_batch: 256
tokens: 1B
constraints: {max_nodes: 2, billing: [payg], include_families: [gn7]}
objective: time
)");
  for (const Candidate& c : all.candidates) {
    if (c.nodes == 2)
      two = &c;
  }
  ASSERT_NE(two, nullptr) << "a 2-node gn7 candidate";
  EXPECT_TRUE(HasAdvice(*two, "multi-node-needs-erdma"));
}

TEST(PlannerTest, ImpossibleConstraintsGiveAnEmptyPlanWithReasons) {
  Plan p = PlanYaml(R"(task: pretrain
model: llama-2-70b
precision: bf16
seq_len: 4096
global_batch: 1024
tokens: 1T
constraints: {max_gpus: 8, deadline_hours: 24, billing: [payg]}
objective: cost
)");
  EXPECT_TRUE(p.candidates.empty());
  EXPECT_FALSE(p.rejected.empty());
  for (const Rejection& r : p.rejected)
    EXPECT_FALSE(r.reason.empty()) << r.instance;
}

constexpr char kLora7b[] = R"(task: finetune
method: lora
model: llama-2-7b
precision: bf16
seq_len: 2048
global_batch: 32
tokens: 50M
constraints: {regions: [cn-hangzhou], max_gpus: 1, billing: [spot]}
)";

TEST(PlannerTest, SpotCandidatesCarryCheckpointAdvice) {
  Plan p = PlanYaml(kLora7b);
  ASSERT_FALSE(p.candidates.empty());
  EXPECT_EQ(p.candidates[0].billing, cost::Mode::kSpot);
  EXPECT_TRUE(HasAdvice(p.candidates[0], "spot-needs-checkpoints"));
}

TEST(PlannerTest, ParetoFrontIsNonDominated) {
  Plan p = PlanYaml(R"(task: finetune
method: full
model: llama-2-7b
precision: bf16
seq_len: 2048
global_batch: 64
tokens: 200M
constraints: {max_nodes: 4, billing: [payg]}
)");
  // A full 7B fine-tune on up to 4 nodes trades time for money: more GPUs finish sooner and cost
  // more, so the front has several entries, fastest first, each cheaper than the one before.
  ASSERT_GE(p.pareto.size(), 2u);
  for (size_t i = 1; i < p.pareto.size(); ++i) {
    EXPECT_GE(p.pareto[i].job_hours, p.pareto[i - 1].job_hours);
    EXPECT_LT(p.pareto[i].cost.total.amount(), p.pareto[i - 1].cost.total.amount());
  }
  // Non-dominated: no ranked candidate is both at least as fast and cheaper than a front entry.
  ASSERT_FALSE(p.candidates.empty());
  for (const Candidate& front : p.pareto) {
    EXPECT_TRUE(front.pareto) << front.instance;
    for (const Candidate& c : p.candidates) {
      const bool faster_or_same = c.job_hours <= front.job_hours;
      const bool cheaper = c.cost.total.amount() < front.cost.total.amount();
      EXPECT_FALSE(faster_or_same && cheaper) << c.instance << " dominates " << front.instance;
    }
  }
}

TEST(PlannerTest, IssueServingExampleIsOneEightGpuInstanceAsTwoTp4Copies) {
  // Issue 12: Llama-3-70B, 10 requests/s, 512 in / 256 out, TTFT <= 2 s, TPOT <= 100 ms. One
  // ebmgn7ex.32xlarge (8 x A100 80G) must do it with two tp4 copies, each within vLLM's 90% of
  // GPU memory.
  Plan p = PlanYaml(R"(task: inference
model: llama-3-70b
inference: {requests_per_s: 10, prompt_tokens: 512, output_tokens: 256, ttft_ms: 2000, tpot_ms: 100}
constraints: {billing: [payg]}
)",
                    "ecs.ebmgn7ex.32xlarge");
  ASSERT_EQ(p.candidates.size(), 1u) << (p.rejected.empty() ? "" : p.rejected[0].reason);
  const Candidate& c = p.candidates[0];
  EXPECT_EQ(c.nodes, 1);
  EXPECT_EQ(c.gpus_per_copy, 4);
  EXPECT_EQ(c.copies_per_instance_group, 2);
  EXPECT_LE(c.estimate.memory.per_gpu_gib, 0.9 * c.estimate.memory.capacity_gib + 1e-9);
}

TEST(PlannerTest, MarketDataExcludesSoldOutTypesAndPricesSpotRisk) {
  cost::MarketData market;
  cost::StockRecord sold_out;
  sold_out.instance = "ecs.gn7i-c8g1.2xlarge";
  sold_out.region = "cn-hangzhou";
  sold_out.zone = "cn-hangzhou-h";
  sold_out.status = "SoldOut";
  sold_out.status_category = "WithoutStock";
  sold_out.as_of = "2026-11-30";
  market.stock.push_back(sold_out);
  cost::SpotAdvice advice;
  advice.instance = "ecs.gn7i-c16g1.4xlarge";
  advice.region = "cn-hangzhou";
  advice.zone = "cn-hangzhou-h";
  advice.interruption_rate = 0.05;
  advice.as_of = "2026-11-30";
  market.spot_advice.push_back(advice);
  Plan p = PlanYaml(kLora7b, "", market);
  const Rejection* r = RejectionOf(p, "ecs.gn7i-c8g1.2xlarge");
  ASSERT_NE(r, nullptr) << "a sold-out type is excluded";
  for (const Candidate& c : p.candidates)
    EXPECT_NE(c.instance, "ecs.gn7i-c8g1.2xlarge");
  auto it = std::find_if(p.candidates.begin(), p.candidates.end(),
                         [](const Candidate& c) { return c.instance == "ecs.gn7i-c16g1.4xlarge"; });
  ASSERT_NE(it, p.candidates.end());
  EXPECT_FALSE(it->cost.lower_bound) << "a known reclaim rate prices the interruptions";
  ASSERT_TRUE(it->cost.checkpoint_interval_hours.has_value());
  EXPECT_GT(*it->cost.checkpoint_interval_hours, 0);
}

}  // namespace
}  // namespace gpuplan::planner

namespace gpuplan::planner {
namespace {

// The issue's 70B example: full fine-tuning at seq 4096 on two 8 x A100 eRDMA nodes. The plan's
// pick must be the layout the estimator finds best on the same hardware (one search for both),
// and at least as fast as the hand-written tp2 pp8 full-recompute layout the issue found
// (55.2 s) that the old search could not reach.
TEST(PlannerTest, PlanAndEstimateAgreeOnTheSameHardwareAndBeatTheIssuesLayout) {
  const std::string yaml = R"(task: finetune
method: full
model: llama-2-70b
precision: bf16
seq_len: 4096
global_batch: 64
tokens: 100M
constraints: {max_nodes: 2, billing: [payg], include_families: [ebmgn7ex]}
objective: time
)";
  Plan p = PlanYaml(yaml);
  ASSERT_FALSE(p.candidates.empty()) << (p.rejected.empty() ? "" : p.rejected[0].reason);
  const Candidate& best = p.candidates[0];
  EXPECT_EQ(best.nodes, 2);
  const InstanceType* type = testing::EmbeddedCatalog().FindInstance(best.instance);
  ASSERT_NE(type, nullptr);
  Result<perf::Hardware> hw = perf::HardwareFor(testing::EmbeddedCatalog(), *type, best.nodes);
  ASSERT_TRUE(hw.ok());
  Result<Workload> w = io::ParseWorkloadYaml(yaml, "test.yaml");
  ASSERT_TRUE(w.ok());
  const ModelArch* arch = testing::EmbeddedZoo().Find("llama-2-70b");
  ASSERT_NE(arch, nullptr);
  const perf::LayoutSearch s =
      perf::SearchLayout(*w, *arch, *hw, testing::EmbeddedCalibration(), perf::PinsFrom(*w));
  ASSERT_TRUE(s.ok);
  EXPECT_DOUBLE_EQ(best.estimate.time.step_s, s.estimate.time.step_s);
  EXPECT_EQ(perf::DescribeLayout(best.layout), perf::DescribeLayout(s.layout));
  perf::Layout issue;
  issue.tp = 2;
  issue.pp = 8;
  issue.micro_batch = 1;
  issue.recompute = Recompute::kFull;
  issue.sequence_parallel = true;
  Result<perf::Estimate> hand =
      perf::EstimateRun(*w, *arch, *hw, issue, testing::EmbeddedCalibration());
  ASSERT_TRUE(hand.ok()) << hand.status().message();
  EXPECT_LE(best.estimate.time.step_s, hand->time.step_s);
}

}  // namespace
}  // namespace gpuplan::planner
