// `gpuplan campaign FILE.yaml [--json]`: a team's recurring jobs and services over months,
// planned together under commitments (gpuplan/campaign.h).
#include <CLI/CLI.hpp>
#include <ostream>

#include "cli/commands.h"
#include "cli/plan_inputs.h"
#include "gpuplan/campaign.h"
#include "io/campaign_render.h"
#include "io/campaign_yaml.h"
#include "solver/glpk_mip.h"

namespace gpuplan::cli {
namespace {

struct CampaignFlags {
  std::string file;
  bool json = false;
  std::optional<double> savings_plan_rate;
};

void RunCampaign(CliContext& ctx, const CampaignFlags& f) {
  Result<campaign::CampaignSpec> spec = io::LoadCampaignYaml(f.file);
  if (!spec.ok())
    return ctx.Fail(spec.status());
  if (f.savings_plan_rate)
    spec->savings_plan_rate = f.savings_plan_rate;
  Result<ModelData> data = LoadModelData(ctx);
  if (!data.ok())
    return ctx.Fail(data.status());
  campaign::CampaignOptions options{.plan = CliPlanOptions(ctx), .solver = solver::GlpkSolver()};
  Result<campaign::CampaignPlan> plan =
      campaign::PlanCampaign(*spec, data->zoo, data->catalog, data->calibration, options);
  if (!plan.ok())
    return ctx.Fail(plan.status().WithContext(f.file));
  if (f.json)
    *ctx.out << io::CampaignJson(*spec, *plan).dump(2) << "\n";
  else
    *ctx.out << io::CampaignText(*spec, *plan);
}

}  // namespace

void AddCampaignCommand(CLI::App& app, CliContext& ctx) {
  auto flags = std::make_shared<CampaignFlags>();
  CLI::App* c = app.add_subcommand(
      "campaign",
      "Plan a month (or years) of recurring jobs and services together: what to commit to, "
      "when each job runs, and the month's bill");
  c->add_option("file", flags->file, "Campaign YAML: months, jobs (with every/window), services")
      ->required();
  c->add_option("--savings-plan-rate", flags->savings_plan_rate,
                "The savings-plan discount you were quoted for GPU families (0.3 = 30% off "
                "pay-as-you-go); overrides the file's savings_plan_rate")
      ->check(CLI::Range(0.01, 0.9));
  c->add_flag("--json", flags->json, "Print JSON");
  c->callback([&ctx, flags] { RunCampaign(ctx, *flags); });
}

}  // namespace gpuplan::cli
