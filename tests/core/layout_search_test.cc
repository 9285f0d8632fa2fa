// The layout search against brute force: on small cases the branch-and-bound pick must be the
// fastest layout that fits among every valid configuration, each estimated.
#include "gpuplan/layout_search.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "perf/layout_search_cutoff.h"
#include "testing/embedded_calibration.h"
#include "testing/layout_cases.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::perf {
namespace {

using testing::A10;
using testing::A100;
using testing::LayoutCase;
using testing::Llama;
using testing::SmallLayoutCases;
using testing::Training;

TEST(LayoutSearchTest, PickEqualsExhaustiveEnumeration) {
  const Calibration& cal = testing::EmbeddedCalibration();
  long long fast_total = 0, all_total = 0;
  for (const LayoutCase& c : SmallLayoutCases()) {
    SCOPED_TRACE(c.name);
    const Hardware hw = c.Hardware();
    const LayoutSearch fast = SearchLayout(c.w, c.arch, hw, cal);
    const LayoutSearch all = ExhaustiveLayoutSearch(c.w, c.arch, hw, cal);
    ASSERT_TRUE(all.ok) << all.reason;
    ASSERT_TRUE(fast.ok) << fast.reason;
    // Equal up to the part in a million within which the simpler layout is preferred.
    EXPECT_NEAR(fast.estimate.time.step_s, all.estimate.time.step_s,
                2e-6 * all.estimate.time.step_s)
        << "search " << DescribeLayout(fast.layout) << " vs exhaustive "
        << DescribeLayout(all.layout);
    EXPECT_TRUE(fast.estimate.memory.fits);
    EXPECT_EQ(fast.configurations, all.configurations) << "both cover the same space";
    // A space of a few dozen configurations (one GPU) costs the bounds' own estimates more
    // than they save; every larger one is pruned.
    if (all.evaluated > 100) {
      EXPECT_LT(fast.evaluated, all.evaluated) << "the bounds prune";
    }
    fast_total += fast.evaluated;
    all_total += all.evaluated;
    EXPECT_EQ(fast.memory_savers, all.memory_savers);
  }
  EXPECT_LT(fast_total, all_total / 3) << "the bounds prune most of the space";
}

// A caller's cut-off (CutOff) never changes a pick that matters and never hides one: with
// a bar just above or below each case's optimum, the search either returns the same optimum or
// stops with a floor that is a true lower bound of it, beyond the bar.
TEST(LayoutSearchTest, CutOffKeepsWhatMattersAndBoundsWhatItStops) {
  const Calibration& cal = testing::EmbeddedCalibration();
  int cuts = 0;
  for (const LayoutCase& c : SmallLayoutCases()) {
    SCOPED_TRACE(c.name);
    const Hardware hw = c.Hardware();
    const LayoutSearch full = SearchLayout(c.w, c.arch, hw, cal);
    ASSERT_TRUE(full.ok) << full.reason;
    const double best = full.estimate.time.step_s;
    for (double bar : {best * 1.001, best * 0.8}) {
      SCOPED_TRACE(bar);
      int asked = 0;
      CutOff cut_off;
      cut_off.ask_after = 0;  // these searches are small: ask from the first fit
      cut_off.ask_again = 1.03;
      cut_off.matters = [&](double floor) {
        ++asked;
        return floor < bar;
      };
      const LayoutSearch cut = SearchLayout(c.w, c.arch, hw, cal, PinsFrom(c.w), cut_off);
      if (bar > best) {
        ASSERT_TRUE(cut.ok) << cut.reason;
        EXPECT_FALSE(cut.cut_off);
        EXPECT_EQ(DescribeLayout(cut.layout), DescribeLayout(full.layout));
      } else if (cut.cut_off) {
        ++cuts;
        EXPECT_FALSE(cut.ok);
        EXPECT_GE(cut.floor_step_s, bar);
        EXPECT_LE(cut.floor_step_s, best);
        EXPECT_LT(cut.evaluated, full.evaluated);
        EXPECT_FALSE(cut.reason.empty());
      } else {  // the bounds never rose past the bar before the optimum was proven
        EXPECT_EQ(DescribeLayout(cut.layout), DescribeLayout(full.layout));
      }
      EXPECT_GT(asked, 0) << "a fit was found, so the caller is asked";
    }
  }
  EXPECT_GT(cuts, 0) << "a bar 20% under the optimum stops some searches";
}

// A LayoutMemo shares structures and layout memory across the searches of one workload; each
// search still fits to its own hardware (GPU, capacity, memory error, host RAM), so every answer
// equals the answer without it, in any order of hardware.
TEST(LayoutSearchTest, MemoSharedAcrossHardwareChangesNoAnswer) {
  const Calibration& cal = testing::EmbeddedCalibration();
  struct Shape {
    std::string name;
    Hardware hw;
  };
  const Gpu a100 = A100(), a10 = A10();
  std::vector<Shape> shapes;
  for (const auto& [gpu, name] : {std::pair{&a100, "a100"}, std::pair{&a10, "a10"}}) {
    for (double error : {1.0, 1.2}) {
      for (double host : {0.0, 120.0, 900.0}) {
        Hardware hw = HardwareFor(*gpu, 8, 8);
        hw.memory_error_ratio = error;
        hw.host_memory_gib = host;
        shapes.push_back({std::string(name) + " error " + std::to_string(error) + " host " +
                              std::to_string(host),
                          hw});
      }
    }
  }
  for (const LayoutCase& c :
       {LayoutCase{"7b_pretrain", Training(Method::kFull, 2048, 16), Llama(32, 4096, 32, 32, 11008),
                   A100(), 8, 8, 0, true, 0},
        LayoutCase{"13b_needs_sharding_or_offload", Training(Method::kFull, 4096, 16),
                   Llama(40, 5120, 40, 40, 13824), A100(), 8, 8, 0, true, 0}}) {
    const LayoutPins pins = PinsFrom(c.w);
    LayoutMemo memo(c.w, c.arch, pins);
    for (int pass = 0; pass < 2; ++pass) {  // the second pass meets a warm memo
      for (const Shape& shape : shapes) {
        SCOPED_TRACE(c.name + " on " + shape.name + " pass " + std::to_string(pass));
        const LayoutSearch alone = SearchLayout(c.w, c.arch, shape.hw, cal, pins);
        const LayoutSearch shared = SearchLayout(c.w, c.arch, shape.hw, cal, pins, {}, &memo);
        EXPECT_EQ(shared.ok, alone.ok);
        EXPECT_EQ(DescribeLayout(shared.layout), DescribeLayout(alone.layout));
        EXPECT_DOUBLE_EQ(shared.estimate.time.step_s, alone.estimate.time.step_s);
        EXPECT_DOUBLE_EQ(shared.estimate.memory.per_gpu_gib, alone.estimate.memory.per_gpu_gib);
        EXPECT_EQ(shared.estimate.memory.fits, alone.estimate.memory.fits);
        EXPECT_DOUBLE_EQ(shared.min_memory_gib, alone.min_memory_gib);
        EXPECT_EQ(shared.reason, alone.reason);
        EXPECT_EQ(shared.memory_savers, alone.memory_savers);
        EXPECT_LE(shared.evaluated, alone.evaluated) << "shared memory is not estimated again";
      }
    }
    // A memo made for another workload is ignored, not misused.
    Workload other = c.w;
    other.seq_len *= 2;
    const LayoutSearch alone = SearchLayout(other, c.arch, shapes.front().hw, cal, pins);
    const LayoutSearch foreign =
        SearchLayout(other, c.arch, shapes.front().hw, cal, pins, {}, &memo);
    EXPECT_EQ(DescribeLayout(foreign.layout), DescribeLayout(alone.layout));
    EXPECT_EQ(foreign.evaluated, alone.evaluated);
  }
}

// Memory savers are searched like any other dimension: where nothing fits without them, and
// where they buy a larger micro-batch or a lighter recomputation that is faster. Offload needs
// a host whose RAM is known and holds what is offloaded.
TEST(LayoutSearchTest, OffloadWhereNeededOrFasterAndHostRamIsChecked) {
  const ModelArch m = Llama(32, 4096, 32, 8, 14336);  // ~8B
  const Workload w = Training(Method::kFull, 1024, 4);
  const Calibration& cal = testing::EmbeddedCalibration();
  const Gpu a10 = A10();
  Hardware hw = HardwareFor(a10, 1, 1);
  hw.host_memory_gib = 0;  // unknown host: offload cannot be checked, so it is not tried
  EXPECT_FALSE(SearchLayout(w, m, hw, cal).ok);
  hw.host_memory_gib = 60;  // too little for ~8B x 16 bytes of states
  EXPECT_FALSE(SearchLayout(w, m, hw, cal).ok);
  hw.host_memory_gib = 500;
  const LayoutSearch s = SearchLayout(w, m, hw, cal);
  ASSERT_TRUE(s.ok) << s.reason;
  EXPECT_TRUE(s.memory_savers);
  EXPECT_NE(s.layout.offload, Offload::kNone);
  EXPECT_EQ(s.without_savers_step_s, 0) << "nothing fits without savers";
  EXPECT_LE(s.estimate.memory.host_gib, s.estimate.memory.host_capacity_gib);
  // Optimizer offload alone of 7.24e9 parameters: fp32 master 4 + Adam m, v 8 + bf16 gradients
  // 2 = 14 bytes each in host RAM: 101.4e9 bytes = 94.4 GiB. The pick, free to add activation
  // offload too, is at least as fast.
  Workload pinned = w;
  pinned.offload = Offload::kOptimizer;
  pinned.activation_offload = false;
  pinned.optimizer_in_backward = false;
  const LayoutSearch optimizer_only = SearchLayout(pinned, m, hw, cal, PinsFrom(pinned));
  ASSERT_TRUE(optimizer_only.ok) << optimizer_only.reason;
  EXPECT_NEAR(optimizer_only.estimate.memory.host_gib, 94.4, 0.1);
  EXPECT_LE(s.estimate.time.step_s, optimizer_only.estimate.time.step_s);
  // Where the job fits without offload and savers cannot beat it, none is used.
  const LayoutSearch small = SearchLayout(w, Llama(8, 1024, 16, 16, 2816), hw, cal);
  ASSERT_TRUE(small.ok) << small.reason;
  EXPECT_EQ(small.layout.offload, Offload::kNone);
  EXPECT_FALSE(small.memory_savers);
  EXPECT_DOUBLE_EQ(small.without_savers_step_s, small.estimate.time.step_s);
}

TEST(LayoutSearchTest, PinsAreKeptAndAnImpossiblePinSaysWhy) {
  const ModelArch m = Llama(32, 4096, 32, 32, 11008);
  const Workload w = Training(Method::kFull, 2048, 16);
  const Gpu a100 = A100();
  const Hardware hw = HardwareFor(a100, 8, 8);
  LayoutPins pins;
  pins.tp = 2;
  pins.pp = 2;
  const LayoutSearch s = SearchLayout(w, m, hw, testing::EmbeddedCalibration(), pins);
  ASSERT_TRUE(s.ok) << s.reason;
  EXPECT_EQ(s.layout.tp, 2);
  EXPECT_EQ(s.layout.pp, 2);
  EXPECT_EQ(s.layout.dp * s.layout.cp, 2);
  Workload odd = w;
  odd.global_batch = 3;  // dp 8 cannot split 3 sequences
  pins = {};
  pins.dp = 8;
  const LayoutSearch none = SearchLayout(odd, m, hw, testing::EmbeddedCalibration(), pins);
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.reason.find("global batch of 3"), std::string::npos) << none.reason;
}

}  // namespace
}  // namespace gpuplan::perf
