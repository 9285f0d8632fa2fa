// The training fit test at the workload's confidence: a layout fits when its predicted memory
// times the model's memory error at that confidence (perf::Hardware::memory_error_ratio, from
// uncertainty::MemoryErrorRatio) is within the GPU's usable memory; the layout search keeps
// that headroom and stays the optimum of the space it leaves (brute force on the small cases).
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/estimate.h"
#include "gpuplan/layout_search.h"
#include "gpuplan/uncertainty.h"
#include "perf/layout_search_cutoff.h"
#include "testing/embedded_calibration.h"
#include "testing/layout_cases.h"

namespace gpuplan::perf {
namespace {

using testing::A10;
using testing::Model7B;

// A 7B LoRA fine-tune step (seq 2048, full recomputation) for one A10.
Workload Lora7B() {
  Workload w = testing::Training(Method::kLora, 2048, 8);
  w.recompute = Recompute::kFull;
  return w;
}

TEST(MemoryConfidenceTest, FitsComparesThePredictionTimesTheMemoryErrorWithTheCapacity) {
  const Gpu g = A10();
  Layout l;
  l.micro_batch = 1;
  l.recompute = Recompute::kFull;
  Hardware hw = HardwareFor(g, 1, 1);
  Result<Estimate> point = EstimateRun(Lora7B(), Model7B(), hw, l, testing::EmbeddedCalibration());
  ASSERT_TRUE(point.ok()) << point.status().message();
  const double used = point->memory.per_gpu_gib, capacity = point->memory.capacity_gib;
  ASSERT_LT(used, capacity);
  struct Case {
    std::string name;
    double ratio;
    bool fits;
  };
  const Case kCases[] = {
      {"point", 1, true},
      {"just_inside", 0.999 * capacity / used, true},
      {"just_over", 1.001 * capacity / used, false},
      {"optimistic_below_one", 0.93, true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    hw.memory_error_ratio = c.ratio;
    Result<Estimate> e = EstimateRun(Lora7B(), Model7B(), hw, l, testing::EmbeddedCalibration());
    ASSERT_TRUE(e.ok());
    EXPECT_DOUBLE_EQ(e->memory.per_gpu_gib, used) << "the ratio changes the verdict only";
    EXPECT_NEAR(e->memory.checked_gib, used * c.ratio, 1e-9);
    EXPECT_EQ(e->memory.fits, c.fits);
    EXPECT_DOUBLE_EQ(e->time.step_s, point->time.step_s);
  }
}

TEST(MemoryConfidenceTest, PagedStatesLeaveTheHeadroomTheConfidenceNeeds) {
  // Paged 8-bit states take what the GPU has left: at a memory error of 1.05 they leave room
  // for it (predicted x 1.05 = the capacity) and page more to host RAM than at the point.
  const Gpu g = A10();
  Workload w = testing::Training(Method::kFull, 512, 1);
  w.task = Task::kFinetune;
  w.master_weights = false;
  w.optimizer = Optimizer::kPagedAdamw8bit;
  Layout l;
  l.micro_batch = 1;
  l.recompute = Recompute::kFull;
  l.optimizer_in_backward = true;
  Hardware hw = HardwareFor(g, 1, 1);
  Result<Estimate> point = EstimateRun(w, Model7B(), hw, l, testing::EmbeddedCalibration());
  hw.memory_error_ratio = 1.05;
  Result<Estimate> sure = EstimateRun(w, Model7B(), hw, l, testing::EmbeddedCalibration());
  ASSERT_TRUE(point.ok() && sure.ok());
  EXPECT_TRUE(point->memory.fits);
  EXPECT_TRUE(sure->memory.fits);
  EXPECT_NEAR(point->memory.checked_gib, point->memory.capacity_gib, 1e-9);
  EXPECT_NEAR(sure->memory.checked_gib, sure->memory.capacity_gib, 1e-9);
  EXPECT_GT(sure->memory.host_gib, point->memory.host_gib);
  EXPECT_GT(sure->time.breakdown.offload, point->time.breakdown.offload);
}

TEST(MemoryConfidenceTest, SearchKeepsTheHeadroomAndFindsTheOptimumOfWhatIsLeft) {
  const Calibration& cal = testing::EmbeddedCalibration();
  struct Ratio {
    std::string name;
    double ratio;
  };
  const Ratio kRatios[] = {{"point", 1}, {"median_error", 1.0475}, {"p90_error", 1.145}};
  for (const testing::LayoutCase& c : testing::SmallLayoutCases()) {
    double previous_step = 0;
    for (const Ratio& r : kRatios) {
      SCOPED_TRACE(c.name + " / " + r.name);
      Hardware hw = c.Hardware();
      hw.memory_error_ratio = r.ratio;
      const LayoutSearch fast = SearchLayout(c.w, c.arch, hw, cal);
      const LayoutSearch all = ExhaustiveLayoutSearch(c.w, c.arch, hw, cal);
      EXPECT_EQ(fast.ok, all.ok) << fast.reason << " / " << all.reason;
      if (!all.ok || !fast.ok)
        break;  // a larger error fits no more
      EXPECT_LE(fast.estimate.memory.per_gpu_gib * r.ratio,
                fast.estimate.memory.capacity_gib * (1 + 1e-12))
          << DescribeLayout(fast.layout);
      EXPECT_NEAR(fast.estimate.time.step_s, all.estimate.time.step_s,
                  2e-6 * all.estimate.time.step_s)
          << "search " << DescribeLayout(fast.layout) << " vs exhaustive "
          << DescribeLayout(all.layout);
      // Less room never makes the best layout faster.
      EXPECT_GE(fast.estimate.time.step_s, previous_step * (1 - 2e-6));
      previous_step = fast.estimate.time.step_s;
    }
  }
}

TEST(MemoryConfidenceTest, NothingFitsAtTheConfidenceButTheLeanestFitsAtThePoint) {
  // Three times the predicted memory fits no layout of the 7B LoRA on one A10 (its weights
  // alone are 12.6 GiB), while the leanest layout fits at the point: the search reports no
  // fit and the leanest memory, which the planner turns into "fits only at the point".
  const Gpu g = A10();
  Hardware hw = HardwareFor(g, 1, 1);
  Workload w = Lora7B();
  w.recompute.reset();
  w.offload = Offload::kNone;
  hw.memory_error_ratio = 3;
  const LayoutSearch s =
      SearchLayout(w, Model7B(), hw, testing::EmbeddedCalibration(), PinsFrom(w));
  EXPECT_FALSE(s.ok);
  EXPECT_GT(s.min_memory_gib, 0);
  EXPECT_LE(s.min_memory_gib, s.estimate.memory.capacity_gib);
  EXPECT_GT(s.min_memory_gib * 3, s.estimate.memory.capacity_gib);
}

TEST(MemoryConfidenceTest, MemoryErrorRatioReadsTheBandAtTheConfidence) {
  uncertainty::Table t;
  uncertainty::Band b;
  b.regime = b.from = "memory";
  b.p10 = 0.93, b.p50 = 1.05, b.p90 = 1.15;
  t.regimes["memory"] = b;
  const Gpu g = A10();
  const Hardware hw = HardwareFor(g, 1, 1);
  struct Case {
    std::string name;
    double confidence;
    double want;
  };
  const Case kCases[] = {
      {"p10", 0.1, 0.93},
      {"median", 0.5, 1.05},
      {"p90", 0.9, 1.15},
      {"between_median_and_p90", 0.7, 1.10},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w = Lora7B();
    w.memory_confidence = c.confidence;
    EXPECT_NEAR(uncertainty::MemoryErrorRatio(t, w, Model7B(), hw), c.want, 1e-12);
    // The time and cost confidence has no say in the memory fit (issue 31).
    w.confidence = 0.1;
    EXPECT_NEAR(uncertainty::MemoryErrorRatio(t, w, Model7B(), hw), c.want, 1e-12);
  }
  EXPECT_NEAR(uncertainty::MemoryErrorRatio(t, Lora7B(), Model7B(), hw), 1.15, 1e-12)
      << "by default a layout fits at p90 of the memory error";
  EXPECT_DOUBLE_EQ(uncertainty::MemoryErrorRatio({}, Lora7B(), Model7B(), hw), 1)
      << "no error table: the point";
  EXPECT_EQ(uncertainty::ErrorPercent(1.0475), "+4.75%");
  EXPECT_EQ(uncertainty::ErrorPercent(0.9288), "-7.12%");
  EXPECT_EQ(uncertainty::ErrorPercent(3), "+200%");
}

}  // namespace
}  // namespace gpuplan::perf
