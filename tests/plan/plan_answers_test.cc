// Answers a user can act on (issue 12): unpriced types stay in the plan, services are billed and
// laid out as services, prices say how old and how trusted they are, regions are checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gpuplan/plan.h"
#include "testing/embedded_data.h"

namespace gpuplan::planner {
namespace {

Plan PlanYaml(const std::string& yaml, int top = 200) {
  PlanOptions options;
  options.today = "2026-12-01";
  options.top_n = top;
  return testing::PlanFromYaml(yaml, options);
}

bool HasAdvice(const Candidate& c, const std::string& rule) {
  return std::any_of(c.advice.begin(), c.advice.end(),
                     [&](const rules::Advice& a) { return a.rule == rule; });
}

const Candidate* Find(const Plan& p, const std::string& instance) {
  auto it = std::find_if(p.candidates.begin(), p.candidates.end(),
                         [&](const Candidate& c) { return c.instance == instance; });
  return it == p.candidates.end() ? nullptr : &*it;
}

constexpr char kQwenLora[] = R"(task: finetune
method: lora
model: qwen2.5-7b
tokens: 100M
objective: %s
)";

std::string Lora(const char* objective) {
  std::string s = kQwenLora;
  s.replace(s.find("%s"), 2, objective);
  return s;
}

TEST(PlanAnswersTest, TodaysGpusWithoutAPriceStayInThePlan) {
  struct Case {
    const char* name;
    const char* objective;
  };
  for (const Case& c : {Case{"time", "time"}, Case{"cost", "cost"}}) {
    SCOPED_TRACE(c.name);
    const Plan p = PlanYaml(Lora(c.objective), 5000);
    for (const char* type :
         {"ecs.gn8v-4x.8xlarge", "ecs.gn8is-8x.32xlarge", "ecs.ebmgn8v.48xlarge"}) {
      const Candidate* cand = Find(p, type);
      ASSERT_NE(cand, nullptr) << type
                               << " is a current type with no price: it must stay in the plan";
      EXPECT_FALSE(cand->price_known);
      EXPECT_GT(cand->job_hours, 0) << "its time is known";
      EXPECT_NE(cand->price_hint.find("gpuplan prices add " + std::string(type) +
                                      " AMOUNT --region REGION --billing payg"),
                std::string::npos)
          << cand->price_hint;
      EXPECT_TRUE(HasAdvice(*cand, "price-unknown"));
    }
    for (const Rejection& r : p.rejected) {
      EXPECT_NE(r.reason, "no priced region") << r.instance;
    }
  }
}

TEST(PlanAnswersTest, UnderACostObjectiveUnpricedFollowThePricedAndTimeRanksThemAll) {
  const Plan cost = PlanYaml(Lora("cost"), 5000);
  bool seen_unpriced = false;
  for (const Candidate& c : cost.candidates) {
    if (!c.price_known)
      seen_unpriced = true;
    EXPECT_FALSE(seen_unpriced && c.price_known)
        << c.instance << ": a priced candidate after an unpriced one";
  }
  EXPECT_TRUE(seen_unpriced);
  for (const Candidate& c : cost.pareto) {
    EXPECT_TRUE(c.price_known) << "no cost, no place on the time-vs-cost front";
  }

  const Plan time = PlanYaml(Lora("time"));
  for (size_t i = 1; i < time.candidates.size(); ++i) {
    EXPECT_LE(time.candidates[i - 1].job_hours, time.candidates[i].job_hours + 1e-9)
        << "ranked by time alone";
  }
}

TEST(PlanAnswersTest, WithABudgetAnUnpricedTypeIsRejectedWithHowToPriceIt) {
  std::string yaml = Lora("cost");
  yaml += "constraints: {budget: {amount: 100000, currency: CNY}}\n";
  const Plan p = PlanYaml(yaml, 5000);
  EXPECT_EQ(Find(p, "ecs.gn8v-4x.8xlarge"), nullptr);
  auto r = std::find_if(p.rejected.begin(), p.rejected.end(),
                        [](const Rejection& x) { return x.instance == "ecs.gn8v-4x.8xlarge"; });
  ASSERT_NE(r, p.rejected.end());
  EXPECT_NE(r->reason.find("gpuplan prices add ecs.gn8v-4x.8xlarge AMOUNT"), std::string::npos)
      << r->reason;
  EXPECT_NE(r->reason.find("without a price it cannot be held against the budget"),
            std::string::npos)
      << r->reason;
  for (const Candidate& c : p.candidates) {
    EXPECT_TRUE(c.price_known) << c.instance;
  }
}

constexpr char kLlama70bService[] = R"(task: inference
model: llama-3-70b
inference: {requests_per_s: 10, prompt_tokens: 512, output_tokens: 256, ttft_ms: 2000, tpot_ms: 100}
constraints: {regions: [cn-beijing]%s}
)";

std::string Service(const char* extra) {
  std::string s = kLlama70bService;
  s.replace(s.find("%s"), 2, extra);
  return s;
}

TEST(PlanAnswersTest, AServiceIsBilledPaygOrSubscriptionAndLaidOutAsCopies) {
  const Plan p = PlanYaml(Service(""), 50);
  ASSERT_FALSE(p.candidates.empty());
  for (const Candidate& c : p.candidates) {
    SCOPED_TRACE(c.instance);
    EXPECT_NE(c.billing, cost::Mode::kSpot)
        << "a 24/7 service is not put on spot unless the workload lists it";
    EXPECT_EQ(c.copies * c.gpus_per_copy, c.gpus) << "copies x GPUs per copy = GPUs";
    EXPECT_FALSE(HasAdvice(c, "multi-node-needs-erdma"))
        << "independent copies need no network between them";
    const double weights_gib = c.estimate.memory.breakdown.weights * c.gpus_per_copy;
    if (c.storage.kind != "local_nvme") {
      EXPECT_GE(c.storage.size_gib, weights_gib + 50);
    }
    EXPECT_LE(c.estimate.memory.per_gpu_gib, 0.9 * c.estimate.memory.capacity_gib + 1e-9)
        << "vLLM keeps 10% free";
    if (c.copies > 1) {
      EXPECT_TRUE(HasAdvice(c, "service-load-balancer"));
    }
  }
  // The issue's example: one 8 x A100 80 GB instance with two tp4 copies serves it.
  const Candidate* ex = Find(p, "ecs.ebmgn7ex.32xlarge");
  ASSERT_NE(ex, nullptr);
  EXPECT_EQ(ex->nodes, 1);
  EXPECT_EQ(ex->copies, 2);
  EXPECT_EQ(ex->gpus_per_copy, 4);
  EXPECT_NE(p.candidates[0].why.find("model copies of"), std::string::npos) << p.candidates[0].why;
}

// An instance of a service keeps the checkpoint once on its disk: DeepSeek-R1 served as released
// (FP8 layers, BF16 embeddings and head) is 641 GiB however its copy is laid out, where the sum
// of its ranks' weights repeats what attention data parallelism replicates on each rank.
TEST(PlanAnswersTest, AServiceDiskHoldsTheCheckpointOnceNotEveryRanksReplica) {
  const Plan p =
      PlanYaml("task: inference\nmodel: deepseek-r1\ninference: {requests_per_s: 2}\n", 5);
  ASSERT_FALSE(p.candidates.empty());
  for (const Candidate& c : p.candidates) {
    SCOPED_TRACE(c.instance);
    if (c.storage.kind == "local_nvme")
      continue;
    EXPECT_NE(c.storage.why.find("the model's 641.25 GiB of weights"), std::string::npos)
        << c.storage.why;
    EXPECT_GE(c.storage.size_gib, 641.25 + 50);
  }
}

TEST(PlanAnswersTest, SpotForAServiceOnlyWhenListedAndThenWithSpares) {
  const Plan p = PlanYaml(Service(", billing: [spot]"), 20);
  ASSERT_FALSE(p.candidates.empty());
  for (const Candidate& c : p.candidates) {
    SCOPED_TRACE(c.instance);
    if (!c.price_known)
      continue;
    EXPECT_EQ(c.billing, cost::Mode::kSpot);
    EXPECT_GE(c.spare_instances, 1);
    EXPECT_EQ(c.copies * c.gpus_per_copy, c.gpus) << "the spares are copies too";
    EXPECT_TRUE(HasAdvice(c, "spot-service-spare-copies"));
  }
}

TEST(PlanAnswersTest, PricesAsOfIsTheOldestPriceUsedAndStalePricesAreMarked) {
  const Plan p = PlanYaml(Lora("cost"), 10);
  ASSERT_FALSE(p.prices_as_of.empty());
  for (const Candidate& c : p.candidates) {
    if (const cost::PriceQuote* q = PriceUsed(c)) {
      EXPECT_GE(q->as_of, p.prices_as_of);
    }
  }
  // The built-in list is of 2024-12-30: 701 days before 2026-12-01, stale.
  const auto note = std::find_if(p.notes.begin(), p.notes.end(),
                                 [](const std::string& n) { return n.rfind("prices: ", 0) == 0; });
  ASSERT_NE(note, p.notes.end());
  EXPECT_NE(note->find("as of " + p.prices_as_of + " (the oldest used"), std::string::npos)
      << *note;
  EXPECT_EQ(note->find("as of 2026-12-01"), std::string::npos) << "not today's date";
  if (p.prices_age_days && *p.prices_age_days > kStalePriceDays) {
    EXPECT_NE(note->find("stale"), std::string::npos);
  }
}

TEST(PlanAnswersTest, PriceTrustNamesWhatAPriceIs) {
  struct Case {
    const char* name;
    PriceSource source;
    const char* trust;
    const char* basis;
    bool derived;
    const char* want;
  };
  const Case kCases[] = {
      {"list", PriceSource::kBuiltin, "high", "C1", false, "list"},
      {"user", PriceSource::kUser, "high", "user", false, "user"},
      {"bill", PriceSource::kBuiltin, "medium", "BT1; 2x L20; single-account bill", false,
       "published bill (medium)"},
      {"quote", PriceSource::kBuiltin, "medium", "Q1; quote", false, "published figure (medium)"},
      {"derived", PriceSource::kBuiltin, "high", "0.66 x PAYG", true, "derived (high)"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    cost::PriceQuote q;
    q.source = c.source;
    q.trust = c.trust;
    q.basis = c.basis;
    q.derived = c.derived;
    EXPECT_EQ(PriceTrust(q), c.want);
  }
  cost::PriceQuote old;
  old.age_days = 91;
  EXPECT_TRUE(PriceStale(old));
  old.age_days = 90;
  EXPECT_FALSE(PriceStale(old));
}

TEST(PlanAnswersTest, UnknownRegionIsAnErrorWithTheNearestAndTheList) {
  Status s = CheckRegions({"cn-hangzhou", "cn-hangzhuo"}, testing::EmbeddedCatalog(), {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(
      s.message().rfind("field \"constraints.regions\": unknown region \"cn-hangzhuo\"; did you "
                        "mean cn-hangzhou? "
                        "Known regions (those with a price or stock record): ap-northeast-1, ",
                        0),
      0u)
      << s.message();
  EXPECT_TRUE(CheckRegions({"cn-beijing", "us-east-1"}, testing::EmbeddedCatalog(), {}).ok());
  // A region only the market data names is known too.
  cost::MarketData market;
  cost::StockRecord r;
  r.region = "me-central-1";
  market.stock.push_back(r);
  EXPECT_TRUE(CheckRegions({"me-central-1"}, testing::EmbeddedCatalog(), market).ok());
}

}  // namespace
}  // namespace gpuplan::planner
