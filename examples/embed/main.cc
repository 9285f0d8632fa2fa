// Plans the workload YAML file given as the argument with gpuplan as a library: the embedded
// catalog, model zoo, calibration and price ratios; the same planner `gpuplan plan` runs; the
// three best candidates as the CLI's text. Built against an installed gpuplan through
// find_package(gpuplan) (CMakeLists.txt beside it).
#include <iostream>

#include "gpuplan/defaults.h"
#include "gpuplan/plan.h"
#include "io/calibration_csv.h"
#include "io/catalog_loader.h"
#include "io/model_zoo.h"
#include "io/plan_render.h"
#include "io/price_import.h"
#include "io/workload_yaml.h"

namespace {

int Fail(const gpuplan::Status& status) {
  std::cerr << "gpuplan_embed: error: " << status.message() << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: gpuplan_embed WORKLOAD.yaml\n";
    return 2;
  }
  using namespace gpuplan;
  Result<Workload> workload = io::LoadWorkloadYaml(argv[1]);
  if (!workload.ok())
    return Fail(workload.status());
  Result<Catalog> catalog = io::LoadCatalog("");  // embedded; a directory adds an overlay
  if (!catalog.ok())
    return Fail(catalog.status());
  Result<ModelZoo> zoo = io::LoadModelZoo();
  if (!zoo.ok())
    return Fail(zoo.status());
  Result<Calibration> calibration = io::LoadCalibration();
  if (!calibration.ok())
    return Fail(calibration.status());
  Result<ModelArch> arch = planner::PlanModel(*workload, *zoo);
  if (!arch.ok())
    return Fail(arch.status());

  // What the file leaves unset, derived as `gpuplan plan` derives it.
  const Workload w = DeriveDefaults(*workload, *arch, *calibration, nullptr);
  planner::PlanOptions options;
  options.top_n = 3;
  if (Result<cost::PriceRatios> ratios = io::LoadPriceRatios(); ratios.ok())
    options.ratios = *ratios;
  Result<planner::Plan> plan = planner::MakePlan(w, *arch, *catalog, *calibration, options);
  if (!plan.ok())
    return Fail(plan.status());
  std::cout << io::PlanText(w, *plan);
  return plan->candidates.empty() ? 1 : 0;
}
