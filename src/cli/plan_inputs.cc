#include "cli/plan_inputs.h"

#include <CLI/CLI.hpp>
#include <utility>

#include "agent/probe_calibration.h"
#include "io/calibration_csv.h"
#include "io/model_zoo.h"
#include "io/uncertainty_csv.h"

namespace gpuplan::cli {

void AddPlanSourceFlags(CLI::App* cmd, PlanSource* source) {
  cmd->add_option("workload", source->workload_path,
                  "Workload YAML file (see examples/); or give it as flags");
  AddWorkloadFlags(cmd, &source->workload);
  AddPlanningFlags(cmd, &source->workload);
  cmd->add_option("--probe-calibration", source->probe_calibration,
                  "Calibration file from 'gpuplan probe --save': measured GEMM and memory "
                  "efficiency of that GPU");
}

Status WithWorkloadContext(const Status& status, const PlanSource& source) {
  return source.workload_path.empty() ? status : status.WithContext(source.workload_path);
}

std::optional<PlanInputs> LoadPlanInputs(CliContext& ctx, const PlanSource& source) {
  std::optional<Workload> w =
      LoadCliWorkload(ctx, source.workload_path, source.workload, WorkloadUse::kPlan);
  if (!w)
    return std::nullopt;
  Result<Catalog> catalog = LoadCliCatalog(ctx);
  if (!catalog.ok()) {
    ctx.Fail(catalog.status());
    return std::nullopt;
  }
  if (Status s = planner::CheckRegions(w->constraints.regions, *catalog, LoadCliMarketData(ctx));
      !s.ok()) {
    // A region from --region is the flag's fault; one from the file, the file's. The core
    // lists the regions with a price or stock record; the CLI adds how to bring one.
    const std::string field = "field \"constraints.regions\": ";
    const std::string how =
        ". For a region not listed, bring its prices first ('gpuplan prices refresh --region R', "
        "'prices import' or 'prices add')";
    ctx.Fail(source.workload.regions.empty()
                 ? WithWorkloadContext(Status::InvalidArgument(s.message() + how).At(s.location()),
                                       source)
                 : Status::InvalidArgument("--region: " + s.message().substr(field.size()) + how),
             /*usage=*/true);
    return std::nullopt;
  }
  Result<ModelZoo> zoo = io::LoadModelZoo();
  if (!zoo.ok()) {
    ctx.Fail(zoo.status());
    return std::nullopt;
  }
  Result<ModelArch> arch = planner::PlanModel(*w, *zoo);
  if (!arch.ok()) {
    ctx.Fail(WithWorkloadContext(arch.status(), source));
    return std::nullopt;
  }
  Result<Calibration> cal = io::LoadCalibration();
  if (!cal.ok()) {
    ctx.Fail(cal.status());
    return std::nullopt;
  }
  // What the workload leaves unset, derived from the work as the plan will (the plan lists it).
  *w = DeriveDefaults(*w, *arch, *cal, nullptr);
  if (Status s = ValidateWorkload(*w); !s.ok()) {
    ctx.Fail(WithWorkloadContext(s, source), /*usage=*/true);
    return std::nullopt;
  }
  if (!source.probe_calibration.empty()) {
    // What the probe measured on a rented instance rescales the fitted efficiency of its GPU.
    Result<agent::ProbeCalibration> probe = agent::LoadCalibration(source.probe_calibration);
    Result<const Gpu*> applied =
        probe.ok() ? agent::ApplyCalibration(*probe, *catalog, w->precision, &*cal)
                   : Result<const Gpu*>(probe.status());
    if (!applied.ok()) {
      ctx.Fail(applied.status().WithContext("--probe-calibration " + source.probe_calibration));
      return std::nullopt;
    }
  }
  return PlanInputs{std::move(*catalog), std::move(*w), std::move(*arch), std::move(*cal)};
}

Result<ModelData> LoadModelData(const CliContext& ctx) {
  Result<Catalog> catalog = LoadCliCatalog(ctx);
  if (!catalog.ok())
    return catalog.status();
  Result<ModelZoo> zoo = io::LoadModelZoo();
  if (!zoo.ok())
    return zoo.status();
  Result<Calibration> cal = io::LoadCalibration();
  if (!cal.ok())
    return cal.status();
  return ModelData{std::move(*catalog), std::move(*zoo), std::move(*cal)};
}

planner::PlanOptions CliPlanOptions(const CliContext& ctx) {
  planner::PlanOptions options;
  options.today = CliToday(ctx.env);
  options.ratios = CliPriceRatios();
  options.market = LoadCliMarketData(ctx);
  // The model's error table (data/uncertainty.csv, embedded): ranges and confidence checks.
  if (Result<uncertainty::Table> table = io::LoadUncertainty(); table.ok()) {
    options.uncertainty = std::move(*table);
  } else {
    *ctx.err << "gpuplan: warning: " << table.status().message() << " (plans show no ranges)\n";
  }
  return options;
}

}  // namespace gpuplan::cli
