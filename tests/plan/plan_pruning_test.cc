// The bound across hardware (Shortcuts::prune_hardware, plan/shortcuts.h): a plan that stops
// searching hardware once it cannot be shown must show exactly what the plan that searches every
// hardware to the end shows (the candidates, the time-cost front, the spot alternative and the
// notes), on the embedded catalog, under each objective and constraint that changes what can be
// shown.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/plan.h"
#include "io/uncertainty_csv.h"
#include "testing/embedded_data.h"
#include "testing/shown_plan.h"

namespace gpuplan::planner {
namespace {

struct PruneCase {
  std::string name;
  std::string yaml;
  int top_n = 10;
  // Whether the bound must save evaluations: the 70B plan's hardware that cannot be shown is
  // searched for long enough; small searches (a 7B LoRA per hardware) save little and may search
  // a hardware shared with a cut search again.
  bool saves = false;
};

class PlanPruning : public ::testing::TestWithParam<PruneCase> {};

TEST_P(PlanPruning, ShowsWhatTheFullSearchShows) {
  const PruneCase& c = GetParam();
  PlanOptions options;
  options.today = "2026-11-30";
  options.top_n = c.top_n;
  Result<uncertainty::Table> table = io::LoadUncertainty();
  ASSERT_TRUE(table.ok()) << table.status().message();
  options.uncertainty = *table;
  const Plan pruned = testing::PlanFromYaml(c.yaml, options);
  const Plan reference = testing::PlanFromYaml(c.yaml, options, {.prune_hardware = false});
  testing::ExpectShowsTheSame(pruned, reference);
  if (c.saves) {
    EXPECT_LT(pruned.evaluated, reference.evaluated * 0.8) << "the bound saves a fifth at least";
  }
}

INSTANTIATE_TEST_SUITE_P(EmbeddedCatalog, PlanPruning,
                         ::testing::Values(PruneCase{"Llama70bPretrainByTime", R"(task: pretrain
model: llama-2-70b
seq_len: 4096
global_batch: 1024
tokens: 20B
constraints: {max_nodes: 16, billing: [payg, spot]}
objective: time
)",
                                                     10, true},
                                           PruneCase{"Llama13bPretrainByCost", R"(task: pretrain
model: llama-2-13b
seq_len: 2048
global_batch: 1024
tokens: 30B
constraints: {max_nodes: 8}
)"},
                                           PruneCase{"Llama13bDeadline", R"(task: pretrain
model: llama-2-13b
seq_len: 2048
global_batch: 1024
tokens: 30B
constraints: {max_nodes: 8, deadline_hours: 200}
)"},
                                           PruneCase{"Llama7bLoraSpotOnly", R"(task: finetune
method: lora
model: llama-2-7b
seq_len: 2048
global_batch: 32
tokens: 100M
constraints: {billing: [spot]}
)"},
                                           PruneCase{"Llama7bFullFinetuneTop3", R"(task: finetune
model: llama-2-7b
seq_len: 4096
global_batch: 64
tokens: 500M
constraints: {max_nodes: 4, billing: [payg, spot]}
objective: time
)",
                                                     3},
                                           PruneCase{"Qwen7bLoraBudget", R"(task: finetune
method: lora
model: qwen2.5-7b
seq_len: 2048
global_batch: 32
tokens: 200M
constraints: {regions: [cn-hangzhou], budget: {amount: 2000, currency: CNY}}
)"}),
                         [](const ::testing::TestParamInfo<PruneCase>& param) {
                           return param.param.name;
                         });

}  // namespace
}  // namespace gpuplan::planner
