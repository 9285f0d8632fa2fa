// A training job's wall-clock hours: the work plus the stops a synchronous job meets and the
// checkpoints that bound their rework (perf::TrainingJob, perf::CheckpointSeconds), worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpuplan/estimate.h"
#include "testing/embedded_calibration.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::perf {
namespace {

// 1e9 tokens at 1024 x 1024 tokens per step: 954 steps.
Workload BillionTokens() {
  Workload w;
  w.task = Task::kPretrain;
  w.method = Method::kFull;
  w.seq_len = 1024;
  w.global_batch = 1024;
  w.tokens = 1e9;
  return w;
}

TEST(TrainingJobTest, StopsAndCheckpointsAddWhatYoungDalyPredicts) {
  Calibration cal = testing::EmbeddedCalibration();
  cal.interruptions_per_gpu_hour = 1.97e-5;  // Llama 3's unexpected stops per GPU-hour
  cal.restart_minutes = 15;
  const Workload w = BillionTokens();
  const double steps = std::ceil(1e9 / (1024.0 * 1024));
  struct Case {
    std::string name;
    int gpus;
    double step_s, checkpoint_s;
    double want_mtbf_h, want_interval_h, want_hours;
  };
  // work W = steps x step_s / 3600; MTBF M = 1 / (rate x GPUs); interval t = sqrt(2 C M);
  // hours = W (1 + C / t) / (1 - (restart + t / 2) / M).
  auto hours = [&](double step_s, double c_h, double m, double t) {
    const double work = steps * step_s / 3600;
    return work * (1 + (t > 0 ? c_h / t : 0)) / (1 - (0.25 + t / 2) / m);
  };
  const double m2048 = 1 / (1.97e-5 * 2048), m8 = 1 / (1.97e-5 * 8);
  const double t2048 = std::sqrt(2 * (60.0 / 3600) * m2048);
  const std::vector<Case> cases = {
      {"2048 GPUs, one-minute checkpoints: one stop a day, a checkpoint every 0.9 h", 2048, 1000,
       60, m2048, t2048, hours(1000, 60.0 / 3600, m2048, t2048)},
      {"no checkpoint cost: every stop costs only the restart", 2048, 1000, 0, m2048, 0,
       hours(1000, 0, m2048, 0)},
      {"8 GPUs: the interval is capped at the job's work hours", 8, 10, 60, m8, steps * 10 / 3600,
       hours(10, 60.0 / 3600, m8, steps * 10 / 3600)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Estimate::Job job = TrainingJob(w, c.gpus, c.step_s, cal, c.checkpoint_s);
    EXPECT_DOUBLE_EQ(job.steps, steps);
    EXPECT_NEAR(job.work_hours, steps * c.step_s / 3600, 1e-9);
    EXPECT_NEAR(job.mtbf_hours, c.want_mtbf_h, 1e-9);
    EXPECT_NEAR(job.checkpoint_interval_hours, c.want_interval_h, 1e-9);
    EXPECT_NEAR(job.hours, c.want_hours, 1e-6 * c.want_hours);
    EXPECT_NEAR(job.gpu_hours, job.hours * c.gpus, 1e-6 * job.gpu_hours);
    EXPECT_NEAR(job.interruptions, job.hours / c.want_mtbf_h, 1e-9);
    EXPECT_LT(job.Goodput(), 1.0);
  }
}

TEST(TrainingJobTest, GoodputFallsWithTheGpusAJobSpans) {
  const Calibration cal = testing::EmbeddedCalibration();
  const Workload w = BillionTokens();
  double last = 1.0;
  for (int gpus : {8, 128, 2048, 16384}) {
    SCOPED_TRACE(gpus);
    // The same total GPU time: the step shrinks with the GPUs.
    const Estimate::Job job = TrainingJob(w, gpus, 8192.0 / gpus, cal, 60);
    EXPECT_LT(job.Goodput(), last);
    last = job.Goodput();
  }
  // Llama 3 405B met a stop every 3 hours on 16,384 GPUs and kept over 90% effective time with
  // checkpoints that hardly block: the restart alone leaves 1 - 0.25 h / 3.1 h = 92%.
  EXPECT_GT(TrainingJob(w, 16384, 8192.0 / 16384, cal, 0).Goodput(), 0.9);
}

TEST(TrainingJobTest, NoStopRateLeavesTheWorkAndAHopelessJobTakesForever) {
  Calibration cal = testing::EmbeddedCalibration();
  const Workload w = BillionTokens();
  cal.interruptions_per_gpu_hour = 0;
  Estimate::Job job = TrainingJob(w, 2048, 1000, cal, 60);
  EXPECT_DOUBLE_EQ(job.hours, job.work_hours);
  EXPECT_DOUBLE_EQ(job.interruptions, 0);
  EXPECT_DOUBLE_EQ(job.Goodput(), 1.0);
  // A stop every 0.05 h on 1,000 GPUs while each costs a 15-minute restart: never finishes.
  cal.interruptions_per_gpu_hour = 0.02;
  job = TrainingJob(w, 1000, 1000, cal, 60);
  EXPECT_TRUE(std::isinf(job.hours));
  // No amount of work: no job.
  Workload none = w;
  none.tokens.reset();
  EXPECT_DOUBLE_EQ(TrainingJob(none, 8, 1, cal, 60).hours, 0);
}

TEST(TrainingJobTest, EachNodeWritesTheStatesNoOtherReplicaHolds) {
  Calibration cal = testing::EmbeddedCalibration();
  cal.checkpoint_write_gbps_per_node = 1;  // 1 GB/s: seconds = GiB x 1.0737
  const Gpu gpu = testing::A100();         // outlives hw, which points at it
  const Hardware hw = HardwareFor(gpu, 8, 8);
  Estimate e;
  e.memory.breakdown.weights = 2;
  e.memory.breakdown.optimizer = 10;
  e.memory.breakdown.adapters = 0.5;
  const double gb = 1.073741824;
  struct Case {
    std::string name;
    Method method;
    Layout layout;
    double want_s;
  };
  const std::vector<Case> cases = {
      {"DDP: every replica holds the same states, one GPU's are written", Method::kFull,
       Layout{.dp = 8}, 12 * gb},
      {"ZeRO-1 over 8: every GPU's shard is its own", Method::kFull, Layout{.dp = 8, .zero = 1},
       8 * 12 * gb},
      {"tp2 x dp4, no ZeRO: the two tensor shards", Method::kFull, Layout{.tp = 2, .dp = 4},
       2 * 12 * gb},
      {"LoRA: the adapters only", Method::kLora, Layout{.dp = 8}, 0.5 * gb},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Workload w = BillionTokens();
    w.task = c.method == Method::kFull ? Task::kPretrain : Task::kFinetune;
    w.method = c.method;
    EXPECT_NEAR(CheckpointSeconds(w, e, c.layout, hw, cal), c.want_s, 1e-9);
  }
}

}  // namespace
}  // namespace gpuplan::perf
