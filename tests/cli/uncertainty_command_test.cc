// The ranges and confidence as a user sees them: plan --json fields, --confidence in the why,
// and validate's predicted_range and coverage.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/cli_runner.h"

namespace gpuplan {
namespace {

using testing::RunGpuplan;

std::string Source(const std::string& path) { return std::string(GPUPLAN_SOURCE_DIR) + "/" + path; }

void ExpectPair(const nlohmann::json& v, double point, const std::string& what) {
  ASSERT_TRUE(v.is_array()) << what << ": " << v.dump();
  ASSERT_EQ(v.size(), 2u) << what;
  EXPECT_LT(v[0].get<double>(), v[1].get<double>()) << what;
  EXPECT_GT(v[0].get<double>(), 0.3 * point) << what;
  EXPECT_LT(v[1].get<double>(), 4 * point) << what;
}

TEST(UncertaintyCommandTest, PlanJsonCarriesRangesAndTheRegime) {
  auto run =
      RunGpuplan({"plan", Source("examples/llm-lora-finetune.yaml"), "--json", "--top", "3"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  ASSERT_FALSE(j["candidates"].empty());
  for (const auto& c : j["candidates"]) {
    ExpectPair(c["time"]["job_hours_range"], c["time"]["job_hours"].get<double>(), "job hours");
    ExpectPair(c["time"]["step_s_range"], c["time"]["step_s"].get<double>(), "step");
    const auto& cap = c["uncertainty"]["stale_spot_cap_per_hour"];
    if (cap.is_null()) {
      ExpectPair(c["cost"]["total_range"], c["cost"]["total"].get<double>(), "cost");
    } else {
      // A stale spot price: the slow end pays at most the PAYG cap for the slow end's hours.
      const auto& cost = c["cost"]["total_range"];
      ASSERT_TRUE(cost.is_array()) << cost.dump();
      EXPECT_GT(cost[1].get<double>(), c["cost"]["total"].get<double>());
      EXPECT_LE(cost[1].get<double>(), cap.get<double>() * c["nodes"].get<double>() *
                                           c["time"]["job_hours_range"][1].get<double>() * 1.01);
    }
    ExpectPair(c["memory"]["per_gpu_gib_range"], c["memory"]["per_gpu_gib"].get<double>(),
               "memory");
    EXPECT_EQ(c["uncertainty"]["time_regime"].get<std::string>().rfind("time/lora/", 0), 0u);
    EXPECT_DOUBLE_EQ(c["uncertainty"]["confidence"].get<double>(), 0.5);
    const std::string verdict = c["memory"]["verdict"];
    EXPECT_TRUE(verdict == "fits with margin" || verdict == "tight: may OOM") << verdict;
  }
}

TEST(UncertaintyCommandTest, ConfidenceIsStatedInTheWhy) {
  auto run = RunGpuplan(
      {"plan", Source("examples/llm-lora-finetune.yaml"), "--json", "--confidence", "0.9"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  ASSERT_FALSE(j["candidates"].empty());
  const std::string why = j["candidates"][0]["why"];
  EXPECT_NE(why.find("meets the 48 h deadline with 90% confidence: p90 "), std::string::npos)
      << why;
  EXPECT_NE(why.find("budget with 90% confidence"), std::string::npos) << why;
  for (const auto& c : j["candidates"]) {
    EXPECT_LE(c["uncertainty"]["job_hours_at_confidence"].get<double>(), 48);
  }
}

TEST(UncertaintyCommandTest, ConfidenceOutsideTheTableIsAUsageError) {
  auto run =
      RunGpuplan({"plan", Source("examples/llm-lora-finetune.yaml"), "--confidence", "0.99"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--confidence"), std::string::npos) << run.err;
}

TEST(UncertaintyCommandTest, ValidateRowsHaveRangesAndTheSummaryCoverage) {
  auto run = RunGpuplan(
      {"validate", Source("tests/testdata/validation/h200_device_training.csv"), "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  int ranged = 0;
  for (const auto& r : j["rows"]) {
    if (!r["predicted_range"].is_array())
      continue;
    ++ranged;
    EXPECT_LE(r["predicted_range"][0].get<double>(), r["predicted_range"][1].get<double>());
  }
  EXPECT_GT(ranged, 30);
  const double coverage = j["summary"]["coverage_80"];
  EXPECT_GT(coverage, 0.5);
  EXPECT_LE(coverage, 1.0);
  EXPECT_TRUE(j["summary"]["coverage_80_heldout"].is_null());  // one source: no split
}

// The fit reports how its bands hold, per set (also with the set left out of the fit) and per
// regime, and writes the same table the embedded one was generated as.
TEST(UncertaintyCommandTest, FitReportsCoveragePerSetAndPerRegime) {
  const std::string out = ::testing::TempDir() + "/fitted_uncertainty.csv";
  auto run = RunGpuplan({"validate", "--fit-uncertainty",
                         Source("tests/testdata/validation/calibration.csv"),
                         Source("tests/testdata/validation/heldout_published.csv"), "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* want :
       {"p10-p90 coverage on the fitted runs, per set:", "inside, the set left out of the fit",
        "calibration.csv", "heldout_published.csv", "per regime", "time/pretrain", "memory/"}) {
    EXPECT_NE(run.out.find(want), std::string::npos) << want << "\n" << run.out;
  }
  // A set's runs are inside their band at most always; a new source's band is wide enough to
  // hold most of the runs it was fitted on.
  const size_t row = run.out.find("\ncalibration.csv");
  ASSERT_NE(row, std::string::npos) << run.out;
  const std::string line = run.out.substr(row + 1, run.out.find('\n', row + 1) - row - 1);
  const double inside = std::stod(line.substr(line.find('%') - 5, 5));
  EXPECT_GE(inside, 75.0) << line;
  EXPECT_LE(inside, 100.0) << line;
}

}  // namespace
}  // namespace gpuplan
