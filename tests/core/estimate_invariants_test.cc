// The layout search's shortcuts change no number: an estimate made with the invariants a
// search shares (TrainingInvariants) equals the one-off EstimateRun, and a memory-only probe
// reports the same memory and fit. Over every small search case and a spread of layouts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuplan/estimate.h"
#include "perf/internal.h"
#include "perf/training_shape.h"
#include "testing/embedded_calibration.h"
#include "testing/layout_cases.h"

namespace gpuplan::perf::internal {
namespace {

using testing::LayoutCase;
using testing::SmallLayoutCases;

// Layouts of `c`'s GPUs: dp only, and tp / cp / pp where the GPUs and the model allow them,
// under each recomputation.
std::vector<Layout> LayoutsOf(const LayoutCase& c) {
  std::vector<Layout> out;
  for (int tp : {1, 2}) {
    for (int cp : {1, 2}) {
      for (int pp : {1, 2}) {
        if (c.gpus % (tp * cp * pp) != 0 || c.arch.heads % tp != 0)
          continue;
        const int dp = c.gpus / (tp * cp * pp);
        if (c.w.global_batch % dp != 0 || c.w.seq_len % (2 * cp) != 0)
          continue;
        for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
          Layout l;
          l.tp = tp;
          l.cp = cp;
          l.pp = pp;
          l.dp = dp;
          l.zero = dp * cp > 1 ? 1 : 0;
          l.sequence_parallel = tp > 1;
          l.recompute = rc;
          l.micro_batch = 1;
          out.push_back(l);
        }
      }
    }
  }
  return out;
}

TEST(EstimateInvariantsTest, SharedInvariantsAndProbesMatchTheOneOffEstimate) {
  const Calibration& cal = testing::EmbeddedCalibration();
  int compared = 0;
  for (const LayoutCase& c : SmallLayoutCases()) {
    const Hardware hw = c.Hardware();
    for (const Layout& l : LayoutsOf(c)) {
      SCOPED_TRACE(c.name + " " + DescribeLayout(l));
      const Result<Estimate> alone = EstimateRun(c.w, c.arch, hw, l, cal);
      const TrainingInvariants inv =
          InvariantsOf(c.w, c.arch, *hw.gpu, cal, l.cp, l.flash_attention && c.w.flash_attention);
      const Result<Estimate> shared = EstimateRunShared(c.w, c.arch, hw, l, cal, &inv);
      const Result<Estimate> probe = EstimateRunShared(c.w, c.arch, hw, l, cal, &inv, true);
      ASSERT_EQ(alone.ok(), shared.ok());
      ASSERT_EQ(alone.ok(), probe.ok());
      if (!alone.ok())
        continue;
      ++compared;
      EXPECT_EQ(shared->time.step_s, alone->time.step_s);
      EXPECT_EQ(shared->time.breakdown.dp_comm, alone->time.breakdown.dp_comm);
      EXPECT_EQ(shared->throughput.mfu, alone->throughput.mfu);
      EXPECT_EQ(shared->memory.per_gpu_gib, alone->memory.per_gpu_gib);
      EXPECT_EQ(shared->mfu_basis, alone->mfu_basis);
      EXPECT_EQ(probe->memory.per_gpu_gib, alone->memory.per_gpu_gib);
      EXPECT_EQ(probe->memory.fits, alone->memory.fits);
      EXPECT_EQ(probe->memory.host_gib, alone->memory.host_gib);
      EXPECT_EQ(probe->grad_accum, alone->grad_accum);
      EXPECT_EQ(probe->time.step_s, 0) << "a probe times nothing";
    }
  }
  EXPECT_GT(compared, 40) << "the cases must reach enough layouts to mean something";
}

// Invariants made for another context-parallel degree are not used: the estimate builds its
// own (the records differ by cp through what unfused attention keeps).
TEST(EstimateInvariantsTest, InvariantsOfAnotherCpAreNotUsed) {
  const Calibration& cal = testing::EmbeddedCalibration();
  const LayoutCase c = SmallLayoutCases()[0];
  const Hardware hw = c.Hardware();
  Workload w = c.w;
  w.flash_attention = false;  // unfused: the saved scores depend on cp
  Layout l;
  l.dp = c.gpus;
  l.zero = 1;
  l.flash_attention = false;
  l.micro_batch = 1;
  const TrainingInvariants wrong = InvariantsOf(w, c.arch, *hw.gpu, cal, 2, false);
  const Result<Estimate> alone = EstimateRun(w, c.arch, hw, l, cal);
  const Result<Estimate> shared = EstimateRunShared(w, c.arch, hw, l, cal, &wrong);
  ASSERT_TRUE(alone.ok()) << alone.status().message();
  ASSERT_TRUE(shared.ok()) << shared.status().message();
  EXPECT_EQ(shared->memory.per_gpu_gib, alone->memory.per_gpu_gib);
  EXPECT_EQ(shared->time.step_s, alone->time.step_s);
}

}  // namespace
}  // namespace gpuplan::perf::internal
