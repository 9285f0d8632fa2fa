// Campaigns on the embedded catalog: the issue's 7B example (fine-tunes twice a week beside a
// service), a fine-tune that fills a day-and-night service's idle nights, the campaign file's
// errors, and the JSON fields the issue names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gpuplan/campaign.h"
#include "io/campaign_render.h"
#include "io/campaign_yaml.h"
#include "solver/glpk_mip.h"
#include "testing/embedded_data.h"

namespace gpuplan::campaign {
namespace {

Result<CampaignPlan> Plan(const std::string& yaml, const Catalog& catalog) {
  Result<CampaignSpec> spec = io::ParseCampaignYaml(yaml, "campaign.yaml");
  if (!spec.ok())
    return spec.status();
  CampaignOptions options{.plan = {}, .solver = solver::GlpkSolver()};
  options.plan.today = "2026-12-03";
  return PlanCampaign(*spec, testing::EmbeddedZoo(), catalog, testing::EmbeddedCalibration(),
                      options);
}

constexpr char kSevenB[] = R"(months: 1
timezone: Asia/Shanghai
jobs:
  - name: twice-weekly-lora
    every: 2/week
    interruptible: true
    task: finetune
    method: lora
    model: qwen2.5-7b
    tokens: 25M
    constraints: {regions: [cn-heyuan]}
services:
  - name: chat
    task: inference
    model: qwen2.5-7b
    inference: {requests_per_s: 3, engine: vllm}
    constraints: {regions: [cn-heyuan]}
)";

void ExpectAtOrBelowSimpleAnswers(const CampaignPlan& p) {
  EXPECT_LE(p.best.month_cost, p.vs_all_payg + 1e-6);
  EXPECT_LE(p.best.month_cost, p.vs_separate + 1e-6);
}

TEST(CampaignPlanTest, SevenBFineTunesRunOnSpotWhenItsPriceIsFresh) {
  // As after `gpuplan prices refresh`: today's spot price for the A10 type in the region.
  Catalog catalog = testing::EmbeddedCatalog();
  catalog.prices.push_back({.instance = "ecs.gn7i-c8g1.2xlarge",
                            .region = "cn-heyuan",
                            .zone = "cn-heyuan-a",
                            .billing = Billing::kSpot,
                            .currency = "CNY",
                            .amount = 2.5,
                            .unit = "hour",
                            .as_of = "2026-12-01",
                            .trust = "high",
                            .origin = PriceSource::kApi,
                            .notes = "test",
                            .provenance = {}});
  Result<CampaignPlan> p = Plan(kSevenB, catalog);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->best.schedule.size(), 1u);
  const ScheduledRun& run = p->best.schedule[0];
  // The service keeps its one A10 busy all day, so the fine-tunes go to spot.
  EXPECT_TRUE(run.billing == Billing::kSpot || run.covered_share > 0.99) << run.when;
  EXPECT_NEAR(run.runs_per_month, 2 * 730.0 / 168, 1e-9);
  ExpectAtOrBelowSimpleAnswers(*p);
  // The service's instance is worth subscribing: used all month, above the 482 h break-even.
  ASSERT_FALSE(p->best.commitments.empty());
  EXPECT_EQ(p->best.commitments[0].kind, Billing::kSubscriptionMonth);
  EXPECT_LT(p->best.month_cost, p->vs_all_payg);
}

TEST(CampaignPlanTest, SevenBWithOnlyAStaleSpotPriceDoesNotBetOnSpot) {
  // The built-in spot prices are a 2024 snapshot: weighed at their PAYG cap, as `plan` does.
  Result<CampaignPlan> p = Plan(kSevenB, testing::EmbeddedCatalog());
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->best.schedule.size(), 1u);
  EXPECT_NE(p->best.schedule[0].billing, Billing::kSpot);
  ExpectAtOrBelowSimpleAnswers(*p);
}

TEST(CampaignPlanTest, NightlyFineTuneFillsTheServicesIdleNights) {
  // By day the service needs 3 instances, at night 1; a nightly fine-tune runs on the
  // subscribed instances the night leaves idle, at no extra cost.
  constexpr char kYaml[] = R"(months: 1
jobs:
  - name: nightly-lora
    every: daily
    window: "00:00-07:00"
    task: finetune
    method: lora
    model: qwen2.5-7b
    tokens: 8M
    constraints: {regions: [cn-heyuan], include_families: [gn7i]}
services:
  - name: chat
    task: inference
    model: qwen2.5-7b
    inference:
      traffic: {base_rps: 1, peak_rps: 25, peak_hours: "8-24", timezone: Asia/Shanghai}
      engine: vllm
    constraints: {regions: [cn-heyuan], include_families: [gn7i]}
)";
  Result<CampaignPlan> p = Plan(kYaml, testing::EmbeddedCatalog());
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->best.schedule.size(), 1u);
  const ScheduledRun& run = p->best.schedule[0];
  EXPECT_GT(run.covered_share, 0.99) << io::CampaignText({}, *p);
  EXPECT_LT(run.cost_per_month, 1.0);
  EXPECT_LT(p->best.month_cost, p->vs_separate);
  ExpectAtOrBelowSimpleAnswers(*p);
}

TEST(CampaignPlanTest, AServiceAloneCostsWhatItsPlansFleetCosts) {
  // The same day-and-night service planned by `plan` (its fleet) and as a one-piece campaign.
  constexpr char kService[] = R"(task: inference
model: qwen2.5-32b
inference:
  traffic: {base_rps: 2, peak_rps: 30, peak_hours: "19-22", timezone: Asia/Shanghai}
  prompt_tokens: {mean: 512, p90: 2048}
  output_tokens: 256
  engine: vllm
constraints: {billing: [subscription_month, payg]}
)";
  planner::PlanOptions options;
  options.today = "2026-12-03";
  const planner::Plan plan = testing::PlanFromYaml(kService, options);
  ASSERT_FALSE(plan.candidates.empty());
  ASSERT_TRUE(plan.candidates[0].fleet.has_value());
  std::string campaign = "months: 1\nservices:\n  - name: chat\n";
  std::string indented;
  for (char ch : std::string(kService)) {
    indented += ch;
    if (ch == '\n')
      indented += "    ";
  }
  campaign += "    " + indented;
  Result<CampaignPlan> p = Plan(campaign, testing::EmbeddedCatalog());
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->best.services.size(), 1u);
  EXPECT_EQ(p->best.services[0].instance, plan.candidates[0].instance);
  const serving::Fleet& f = *plan.candidates[0].fleet;
  EXPECT_NEAR(p->best.month_cost, f.month_cost, 0.01 * f.month_cost);
  EXPECT_NEAR(p->vs_all_payg, f.vs_all_payg, 0.01 * f.vs_all_payg);
}

TEST(CampaignPlanTest, JsonHasTheFieldsTheIssueNames) {
  Result<CampaignSpec> spec = io::ParseCampaignYaml(kSevenB, "campaign.yaml");
  ASSERT_TRUE(spec.ok());
  Result<CampaignPlan> p = Plan(kSevenB, testing::EmbeddedCatalog());
  ASSERT_TRUE(p.ok());
  const nlohmann::json j = io::CampaignJson(*spec, *p);
  for (const char* key : {"commitments", "schedule", "months", "coverage", "utilisation",
                          "month_cost", "vs_all_payg", "vs_separate"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  ASSERT_FALSE(j["commitments"].empty());
  for (const char* key : {"kind", "instance", "region", "count", "term", "payment", "month_cost"})
    EXPECT_TRUE(j["commitments"][0].contains(key)) << key;
  for (const char* key : {"job", "instance", "count", "billing", "start", "hours"})
    EXPECT_TRUE(j["schedule"][0].contains(key)) << key;
  EXPECT_EQ(j["months"][0]["month"], 1);
}

TEST(CampaignPlanTest, AnEcsComputeSavingsPlanCoversOnlyItsFamilyAndRegion) {
  // A flat service on gn7i in cn-heyuan all month. A quoted ECS compute plan on gn7i there at
  // 45% off beats the monthly subscription (0.55 < 0.66 of pay-as-you-go); the same plan on
  // another family covers nothing the campaign uses, so none is bought.
  auto campaign = [](const std::string& family) {
    return "months: 12\nsavings_plan: {rate: 0.45, type: ecs_compute, term_years: 1, payment: "
           "all_upfront, family: " +
           family +
           ", region: cn-heyuan}\nservices:\n  - name: chat\n    task: inference\n    model: "
           "qwen2.5-7b\n    inference: {requests_per_s: 3, engine: vllm}\n    constraints: "
           "{regions: [cn-heyuan], include_families: [gn7i]}\n";
  };
  Result<CampaignPlan> covered = Plan(campaign("gn7i"), testing::EmbeddedCatalog());
  ASSERT_TRUE(covered.ok()) << covered.status().message();
  ASSERT_FALSE(covered->best.commitments.empty());
  const Commitment& c = covered->best.commitments[0];
  EXPECT_EQ(c.kind, Billing::kSavingsPlan) << io::CampaignText({}, *covered);
  EXPECT_EQ(c.instance, "gn7i");
  EXPECT_EQ(c.region, "cn-heyuan");
  EXPECT_NE(c.price_basis.find("ECS compute plan on gn7i"), std::string::npos) << c.price_basis;
  Result<CampaignPlan> elsewhere = Plan(campaign("gn8is"), testing::EmbeddedCatalog());
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.status().message();
  for (const Commitment& k : elsewhere->best.commitments)
    EXPECT_NE(k.kind, Billing::kSavingsPlan) << io::CampaignText({}, *elsewhere);
  EXPECT_LT(covered->best.month_cost, elsewhere->best.month_cost);
}

TEST(CampaignPlanTest, AnUnknownSavingsPlanFamilyNamesTheNearestOne) {
  Result<CampaignPlan> p = Plan(
      "months: 12\nsavings_plan: {rate: 0.4, type: ecs_compute, family: gn7x, region: "
      "cn-heyuan}\nservices:\n  - name: chat\n    task: inference\n    model: qwen2.5-7b\n    "
      "inference: {requests_per_s: 1}\n",
      testing::EmbeddedCatalog());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("no instance family \"gn7x\""), std::string::npos)
      << p.status().message();
  EXPECT_NE(p.status().message().find("did you mean gn7"), std::string::npos)
      << p.status().message();
}

struct BadCampaign {
  std::string name;
  std::string yaml;
  std::string expected;  // in the message
};

class CampaignFileErrorTest : public ::testing::TestWithParam<BadCampaign> {};

TEST_P(CampaignFileErrorTest, NamesTheLineAndTheField) {
  Result<CampaignSpec> spec = io::ParseCampaignYaml(GetParam().yaml, "c.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find(GetParam().expected), std::string::npos)
      << spec.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CampaignFileErrorTest,
    ::testing::Values(
        BadCampaign{"months_out_of_range", "months: 40\njobs: []\n",
                    "c.yaml:1:9: field \"months\""},
        BadCampaign{"unknown_key_suggests", "monhts: 2\n", "did you mean \"months\""},
        BadCampaign{"no_pieces", "months: 2\n", "at least one job or service"},
        BadCampaign{"bad_every",
                    "jobs:\n  - name: a\n    every: fortnightly\n    task: finetune\n"
                    "    model: qwen2.5-7b\n    tokens: 1M\n",
                    "c.yaml:3:12: field \"jobs[0].every\""},
        BadCampaign{"missing_every",
                    "jobs:\n  - name: a\n    task: finetune\n    model: qwen2.5-7b\n"
                    "    tokens: 1M\n",
                    "expected how often it runs"},
        BadCampaign{"bad_window",
                    "jobs:\n  - name: a\n    every: daily\n    window: night\n"
                    "    task: finetune\n    model: qwen2.5-7b\n    tokens: 1M\n",
                    "field \"jobs[0].window\""},
        BadCampaign{"workload_error_keeps_its_line",
                    "jobs:\n  - name: a\n    every: daily\n    task: finetune\n"
                    "    model: qwen2.5-7b\n    seq_len: long\n",
                    "c.yaml:6:14: field \"seq_len\""},
        BadCampaign{"duplicate_names",
                    "jobs:\n  - {name: a, every: daily, task: finetune, model: qwen2.5-7b, "
                    "tokens: 1M}\n  - {name: a, every: daily, task: finetune, model: "
                    "qwen2.5-7b, tokens: 1M}\n",
                    "field \"jobs[1].name\""},
        BadCampaign{"service_without_rate",
                    "services:\n  - name: s\n    task: inference\n    model: qwen2.5-7b\n",
                    "field \"services[0].task\""},
        BadCampaign{"bad_savings_rate", "savings_plan_rate: 3\njobs: []\n",
                    "field \"savings_plan_rate\""},
        BadCampaign{"savings_rate_given_twice",
                    "savings_plan_rate: 0.3\nsavings_plan: {rate: 0.3}\njobs: []\n",
                    "c.yaml:2:15: field \"savings_plan\": give the rate once"},
        BadCampaign{"savings_plan_without_rate", "savings_plan: {type: general}\njobs: []\n",
                    "field \"savings_plan.rate\""},
        BadCampaign{"savings_plan_two_year_term",
                    "savings_plan: {rate: 0.3, term_years: 2}\nservices:\n  - name: s\n    "
                    "task: inference\n    model: qwen2.5-7b\n    inference: {requests_per_s: "
                    "1}\n",
                    "c.yaml:1:39: field \"savings_plan.term_years\": expected 1 or 3"},
        BadCampaign{"ecs_compute_plan_without_family",
                    "savings_plan: {rate: 0.3, type: ecs_compute, region: cn-beijing}\nservices:"
                    "\n  - name: s\n    task: inference\n    model: qwen2.5-7b\n    inference: "
                    "{requests_per_s: 1}\n",
                    "field \"savings_plan.family\""},
        BadCampaign{"savings_plan_bad_payment",
                    "savings_plan: {rate: 0.3, payment: monthly}\nservices:\n  - name: s\n    "
                    "task: inference\n    model: qwen2.5-7b\n    inference: {requests_per_s: "
                    "1}\n",
                    "expected all_upfront, partial_upfront or no_upfront"}),
    [](const auto& c) { return c.param.name; });

}  // namespace
}  // namespace gpuplan::campaign
