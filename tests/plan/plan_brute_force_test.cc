// The plan's pick against brute force on its own hardware: for training, every layout the
// estimator can run (perf::ExhaustiveLayoutSearch: every parallel structure, micro-batch,
// recomputation and memory saver, each estimated, at the same memory confidence); for serving,
// every split and batch (testing::BruteForceServing). Nothing may beat the pick: what `plan`
// shows is the best `estimate` knows on that hardware.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/defaults.h"
#include "gpuplan/estimate.h"
#include "gpuplan/layout_search.h"
#include "gpuplan/plan.h"
#include "gpuplan/uncertainty.h"
#include "io/uncertainty_csv.h"
#include "io/workload_yaml.h"
#include "perf/layout_search_cutoff.h"
#include "testing/embedded_data.h"
#include "testing/serving_brute_force.h"

namespace gpuplan::planner {
namespace {

struct BruteCase {
  std::string name;
  std::string yaml;
  std::string only_instance = "";  // "" = the whole catalog
};

PlanOptions Options(const std::string& only_instance) {
  PlanOptions options;
  options.today = "2026-11-30";
  options.only_instance = only_instance;
  Result<uncertainty::Table> table = io::LoadUncertainty();
  EXPECT_TRUE(table.ok()) << table.status().message();
  if (table.ok())
    options.uncertainty = *table;
  return options;
}

// The workload as the planner plans it (the defaults it derives) and its model.
struct Resolved {
  Workload w;
  ModelArch arch;
};

Resolved Resolve(const std::string& yaml) {
  Result<Workload> given = io::ParseWorkloadYaml(yaml, "test.yaml");
  EXPECT_TRUE(given.ok()) << given.status().message();
  Result<ModelArch> arch = PlanModel(*given, testing::EmbeddedZoo());
  EXPECT_TRUE(arch.ok()) << arch.status().message();
  return {DeriveDefaults(*given, *arch, testing::EmbeddedCalibration(), nullptr), *arch};
}

class PlanBruteForce : public ::testing::TestWithParam<BruteCase> {};

TEST_P(PlanBruteForce, NoLayoutOnThePicksHardwareBeatsIt) {
  const BruteCase& c = GetParam();
  const PlanOptions options = Options(c.only_instance);
  const Plan plan = testing::PlanFromYaml(c.yaml, options);
  ASSERT_FALSE(plan.candidates.empty()) << (plan.rejected.empty() ? "" : plan.rejected[0].reason);
  const Candidate& pick = plan.candidates[0];
  const Resolved r = Resolve(c.yaml);
  const Catalog& catalog = testing::EmbeddedCatalog();
  const InstanceType* type = catalog.FindInstance(pick.instance);
  ASSERT_NE(type, nullptr);
  Result<perf::Hardware> hw = perf::HardwareFor(catalog, *type, pick.nodes);
  ASSERT_TRUE(hw.ok()) << hw.status().message();
  hw->memory_error_ratio = uncertainty::MemoryErrorRatio(options.uncertainty, r.w, r.arch, *hw);
  const perf::LayoutSearch all = perf::ExhaustiveLayoutSearch(
      r.w, r.arch, *hw, testing::EmbeddedCalibration(), perf::PinsFrom(r.w));
  ASSERT_TRUE(all.ok) << all.reason;
  // Equal up to the part in a million within which the simpler layout is preferred.
  EXPECT_LE(pick.estimate.time.step_s, all.estimate.time.step_s * (1 + 2e-6))
      << pick.nodes << " x " << pick.instance << ": plan " << perf::DescribeLayout(pick.layout)
      << " vs brute force " << perf::DescribeLayout(all.layout);
  EXPECT_TRUE(pick.estimate.memory.fits);
  EXPECT_GT(all.evaluated, 100) << "the brute force covered a real space";
}

INSTANTIATE_TEST_SUITE_P(
    Training, PlanBruteForce,
    ::testing::Values(BruteCase{"Llama7bLoraOnTheArticlesBudget", R"(task: finetune
method: lora
model: llama-2-7b
seq_len: 2048
global_batch: 32
tokens: 100M
constraints: {regions: [cn-hangzhou], billing: [payg], max_gpus: 8}
)"},
                      BruteCase{"Llama70bFullFinetuneOnTwoSccgn7ex", R"(task: finetune
model: llama-2-70b
seq_len: 4096
global_batch: 128
tokens: 50M
constraints: {max_nodes: 2, billing: [payg]}
objective: time
)",
                                "ecs.sccgn7ex.32xlarge"},
                      BruteCase{"Llama13bPretrainByCost", R"(task: pretrain
model: llama-2-13b
seq_len: 2048
global_batch: 512
tokens: 10B
constraints: {max_nodes: 4, billing: [payg]}
)"},
                      BruteCase{"Qwen7bFullFinetuneLongSequencesByTime", R"(task: finetune
model: qwen2.5-7b
seq_len: 8192
global_batch: 64
tokens: 200M
constraints: {max_nodes: 2, billing: [payg]}
objective: time
)"},
                      BruteCase{"Qwen3MoeLoraOnOneNode", R"(task: finetune
method: lora
model: qwen3-30b-a3b
seq_len: 4096
global_batch: 32
tokens: 100M
constraints: {max_nodes: 1, billing: [payg]}
)"}),
    [](const ::testing::TestParamInfo<BruteCase>& param) { return param.param.name; });

// Serving: the fewest instances any split and batch the estimator knows serves the rate with,
// against the plan's pick on that instance type (payg: no spot spares).
class ServingBruteForce : public ::testing::TestWithParam<BruteCase> {};

TEST_P(ServingBruteForce, NoSplitOrBatchNeedsFewerInstances) {
  const BruteCase& c = GetParam();
  const PlanOptions options = Options(c.only_instance);
  const Plan plan = testing::PlanFromYaml(c.yaml, options);
  ASSERT_FALSE(plan.candidates.empty()) << (plan.rejected.empty() ? "" : plan.rejected[0].reason);
  const Candidate& pick = plan.candidates[0];
  ASSERT_EQ(pick.spare_instances, 0);
  Resolved r = Resolve(c.yaml);
  r.w.inference.ttft_ms = plan.latency.ttft_ms;  // the targets the plan was held to
  r.w.inference.tpot_ms = plan.latency.tpot_ms;
  const Catalog& catalog = testing::EmbeddedCatalog();
  Result<perf::Hardware> hw = perf::HardwareFor(catalog, *catalog.FindInstance(pick.instance), 1);
  ASSERT_TRUE(hw.ok()) << hw.status().message();
  const testing::ServingBest best =
      testing::BruteForceServing(r.w, r.arch, *hw, testing::EmbeddedCalibration(), 256);
  ASSERT_GT(best.groups, 0);
  EXPECT_LE(pick.nodes, best.groups) << pick.instance;
}

INSTANTIATE_TEST_SUITE_P(Serving, ServingBruteForce,
                         ::testing::Values(BruteCase{"Qwen3MoeServiceOnEbmgn7e", R"(task: inference
model: qwen3-235b-a22b
inference: {requests_per_s: 8, prompt_tokens: 2048, output_tokens: 512, ttft_ms: 2000}
constraints: {billing: [payg]}
)",
                                                     "ecs.ebmgn7e.32xlarge"},
                                           BruteCase{"Qwen7bChatOnTheCheapest", R"(task: inference
model: qwen2.5-7b
inference: {requests_per_s: 20, prompt_tokens: 1024, output_tokens: 256}
constraints: {regions: [cn-hangzhou], billing: [payg]}
)"}),
                         [](const ::testing::TestParamInfo<BruteCase>& param) {
                           return param.param.name;
                         });

}  // namespace
}  // namespace gpuplan::planner
