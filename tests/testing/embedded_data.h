// The embedded data (catalog, model zoo, and the calibration of embedded_calibration.h), loaded
// once per test binary, and a plan of a YAML workload on it: for the planner's tests on real data
// (tests/plan). Core tests use catalog_builder.h instead (and embedded_calibration.h).
//
//   const Catalog& c = testing::EmbeddedCatalog();
//   planner::Plan p = testing::PlanFromYaml("task: inference\nmodel: qwen2.5-7b\n", options);
#ifndef GPUPLAN_TESTS_TESTING_EMBEDDED_DATA_H_
#define GPUPLAN_TESTS_TESTING_EMBEDDED_DATA_H_

#include <gtest/gtest.h>

#include <string>

#include "gpuplan/plan.h"
#include "io/catalog_loader.h"
#include "io/model_zoo.h"
#include "io/workload_yaml.h"
#include "plan/shortcuts.h"
#include "testing/embedded_calibration.h"

namespace gpuplan::testing {

// The validated embedded catalog; a load error fails the test that first asks.
inline const Catalog& EmbeddedCatalog() {
  static const Catalog* c = [] {
    Result<Catalog> loaded = io::LoadCatalog("");
    EXPECT_TRUE(loaded.ok()) << loaded.status().message();
    auto* out = new Catalog(loaded.ok() ? *loaded : Catalog{});
    (void)out->Validate();
    return out;
  }();
  return *c;
}

inline const ModelZoo& EmbeddedZoo() {
  static const ModelZoo* z = [] {
    Result<ModelZoo> loaded = io::LoadModelZoo();
    EXPECT_TRUE(loaded.ok()) << loaded.status().message();
    return new ModelZoo(loaded.ok() ? *loaded : ModelZoo{});
  }();
  return *z;
}

// The plan of `yaml` on the embedded data; a parse or plan error fails the test (empty plan).
// With `shortcuts`: the same plan with the planner's shortcuts as given (plan/shortcuts.h), for
// the tests that prove a shortcut changes nothing shown.
inline planner::Plan PlanFromYaml(const std::string& yaml, const planner::PlanOptions& options,
                                  const planner::Shortcuts& shortcuts = {}) {
  Result<Workload> w = io::ParseWorkloadYaml(yaml, "test.yaml");
  EXPECT_TRUE(w.ok()) << w.status().message();
  if (!w.ok())
    return {};
  Result<ModelArch> arch = planner::PlanModel(*w, EmbeddedZoo());
  EXPECT_TRUE(arch.ok()) << arch.status().message();
  if (!arch.ok())
    return {};
  Result<planner::Plan> plan =
      planner::MakePlan(*w, *arch, EmbeddedCatalog(), EmbeddedCalibration(), options, shortcuts);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.ok() ? *plan : planner::Plan{};
}

}  // namespace gpuplan::testing

#endif  // GPUPLAN_TESTS_TESTING_EMBEDDED_DATA_H_
