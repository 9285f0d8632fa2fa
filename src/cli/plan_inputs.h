// What `plan`, `explain` and `deploy` plan with: the workload (a YAML file, flags, or both), the
// catalog (with the cached prices), the model and the calibration (with a probe's measurements
// applied), loaded the same way for each command.
#ifndef GPUPLAN_SRC_CLI_PLAN_INPUTS_H_
#define GPUPLAN_SRC_CLI_PLAN_INPUTS_H_

#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/workload_flags.h"
#include "gpuplan/plan.h"

namespace CLI {
class App;
}  // namespace CLI

namespace gpuplan::cli {

// Where the workload comes from, as the user gave it.
struct PlanSource {
  std::string workload_path;      // empty: the workload comes from the flags alone
  WorkloadFlags workload;         // override the file's fields
  std::string probe_calibration;  // --probe-calibration FILE from `gpuplan probe --save`
};

struct PlanInputs {
  Catalog catalog;
  Workload workload;
  ModelArch arch;
  Calibration calibration;
};

// The data every model needs: the catalog (with the cached prices), the model zoo and the shipped
// calibration, loaded the same way by every command.
struct ModelData {
  Catalog catalog;
  ModelZoo zoo;
  Calibration calibration;
};
Result<ModelData> LoadModelData(const CliContext& ctx);

// The positional workload file, the workload and planning flags and --probe-calibration.
void AddPlanSourceFlags(CLI::App* cmd, PlanSource* source);

// Loads everything a plan needs; on error reports it through `ctx` and returns nullopt.
std::optional<PlanInputs> LoadPlanInputs(CliContext& ctx, const PlanSource& source);

// Today's date, the price ratios and the cached market data (stock, spot advice).
planner::PlanOptions CliPlanOptions(const CliContext& ctx);

// `status` with the workload file named when there is one.
Status WithWorkloadContext(const Status& status, const PlanSource& source);

}  // namespace gpuplan::cli

#endif  // GPUPLAN_SRC_CLI_PLAN_INPUTS_H_
