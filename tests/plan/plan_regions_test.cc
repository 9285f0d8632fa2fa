// Which regions a plan prices (Pricing::Prices): outside spot, and for spot under a time
// objective where no region has a reclaim rate, only the region where the mode is cheapest. The
// plan must show exactly what pricing every region shows: candidates, front, spot alternative
// and notes, under each objective, with and without market data.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/plan.h"
#include "io/uncertainty_csv.h"
#include "testing/embedded_data.h"
#include "testing/shown_plan.h"

namespace gpuplan::planner {
namespace {

constexpr char kLlama13bByTime[] = R"(task: pretrain
model: llama-2-13b
seq_len: 4096
global_batch: 256
tokens: 2B
constraints: {max_nodes: 2, billing: [payg, spot]}
objective: time
)";

struct RegionCase {
  std::string name;
  std::string yaml;
  bool market = false;  // reclaim rates known in one region of the types priced there
};

class PlanRegions : public ::testing::TestWithParam<RegionCase> {};

TEST_P(PlanRegions, ShowsWhatPricingEveryRegionShows) {
  const RegionCase& c = GetParam();
  PlanOptions options;
  options.today = "2026-11-30";
  Result<uncertainty::Table> table = io::LoadUncertainty();
  ASSERT_TRUE(table.ok()) << table.status().message();
  options.uncertainty = *table;
  if (c.market) {
    for (const char* instance : {"ecs.gn7i-c8g1.2xlarge", "ecs.gn7e-c16g1.4xlarge",
                                 "ecs.ebmgn7e.32xlarge", "ecs.gn7i-8x.16xlarge"}) {
      cost::SpotAdvice a;
      a.instance = instance;
      a.region = "cn-hangzhou";
      a.zone = "cn-hangzhou-h";
      a.interruption_rate = 0.12;
      a.interrupt_rate_desc = "10-15%";
      a.as_of = "2026-11-29";
      options.market.spot_advice.push_back(a);
    }
  }
  testing::ExpectShowsTheSame(
      testing::PlanFromYaml(c.yaml, options),
      testing::PlanFromYaml(c.yaml, options, {.price_dominated_regions = true}));
}

INSTANTIATE_TEST_SUITE_P(
    EmbeddedCatalog, PlanRegions,
    ::testing::Values(RegionCase{"Llama13bPretrainByTime", kLlama13bByTime},
                      RegionCase{"Llama13bPretrainByTimeWithMarket", kLlama13bByTime, true},
                      RegionCase{"Lora7bByCost", R"(task: finetune
method: lora
model: llama-2-7b
seq_len: 2048
global_batch: 32
tokens: 100M
constraints: {billing: [payg, spot, subscription]}
)"},
                      RegionCase{"Lora7bByCostWithMarket", R"(task: finetune
method: lora
model: llama-2-7b
seq_len: 2048
global_batch: 32
tokens: 100M
)",
                                 true},
                      RegionCase{"Serving8bByCost", R"(task: inference
model: llama-3-8b
inference: {requests_per_s: 5}
constraints: {billing: [payg, subscription, spot]}
)"}),
    [](const ::testing::TestParamInfo<RegionCase>& param) { return param.param.name; });

}  // namespace
}  // namespace gpuplan::planner
