// The campaign's performance target (issue 26): a 12-month campaign with 5 jobs and 2 services
// over the full catalog (examples/team-year-campaign.yaml), planned end to end: every piece's
// plan, each piece alone, the joint program, the savings-plan what-if and the all-PAYG answer.
// Run: make bench (or ./build-bench/campaign_bench).
#include <benchmark/benchmark.h>

#include "gpuplan/campaign.h"
#include "io/calibration_csv.h"
#include "io/campaign_yaml.h"
#include "io/catalog_loader.h"
#include "io/model_zoo.h"
#include "solver/glpk_mip.h"

#ifndef GPUPLAN_SOURCE_DIR
#define GPUPLAN_SOURCE_DIR "."
#endif

namespace gpuplan {
namespace {

void PlanCampaignFile(benchmark::State& state, const char* file) {
  auto catalog = io::LoadCatalog("");
  auto zoo = io::LoadModelZoo();
  auto cal = io::LoadCalibration();
  auto spec = io::LoadCampaignYaml(std::string(GPUPLAN_SOURCE_DIR) + "/" + file);
  if (!catalog.ok() || !zoo.ok() || !cal.ok() || !spec.ok()) {
    state.SkipWithError("embedded data or the campaign file failed to load");
    return;
  }
  campaign::CampaignOptions options{.plan = {}, .solver = solver::GlpkSolver()};
  options.plan.today = "2026-12-03";
  bool optimal = true;
  for (auto _ : state) {
    Result<campaign::CampaignPlan> p = campaign::PlanCampaign(*spec, *zoo, *catalog, *cal, options);
    if (!p.ok()) {
      state.SkipWithError(p.status().message().c_str());
      return;
    }
    optimal = p->best.proven_optimal;
    benchmark::DoNotOptimize(p->best.month_cost);
  }
  state.counters["proven_optimal"] = optimal ? 1 : 0;
}

BENCHMARK_CAPTURE(PlanCampaignFile, team_year_5_jobs_2_services, "examples/team-year-campaign.yaml")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(PlanCampaignFile, month_7b_finetune_and_service,
                  "examples/month-finetune-and-serve-7b.yaml")
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpuplan
