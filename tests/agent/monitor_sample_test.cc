#include "agent/monitor_sample.h"

#include <gtest/gtest.h>

#include "testing/cli_runner.h"

namespace gpuplan::agent {
namespace {

HostSnapshot Read(const std::string& tree, double t) {
  ProcReader proc(testing::TestDataPath(tree));
  HostSnapshot s;
  s.t = t;
  s.cpu = *proc.ReadCpu();
  s.mem = *proc.ReadMemInfo();
  s.disks = *proc.ReadDiskStats();
  s.nets = *proc.ReadNetDev();
  s.process = *proc.ReadProcess(4242);
  return s;
}

// The expected numbers are worked out in tests/testdata/proc/README.md.
TEST(MonitorSampleTest, RatesBetweenTwoFakeProcTrees) {
  MonitorSample s = SampleBetween(Read("proc/t0", 10), Read("proc/t1", 11), 100);
  EXPECT_NEAR(s.cpu_util_pct, 55, 1e-9);
  EXPECT_NEAR(s.cpu_iowait_pct, 10, 1e-9);
  ASSERT_EQ(s.core_util_pct.size(), 2u);
  EXPECT_NEAR(s.core_util_pct[0], 90, 1e-9);
  EXPECT_NEAR(s.core_util_pct[1], 20, 1e-9);
  EXPECT_NEAR(s.MaxCorePct(), 90, 1e-9);
  EXPECT_NEAR(s.mem_total_gib, 16, 1e-9);
  EXPECT_NEAR(s.mem_used_gib, 8, 1e-9);
  EXPECT_NEAR(s.disk_read_mbs, 102.4 + 20.48, 1e-9);
  EXPECT_NEAR(s.disk_write_mbs, 51.2, 1e-9);
  EXPECT_NEAR(s.disk_util_pct, 80, 1e-9);
  EXPECT_NEAR(s.net_rx_mbs, 125, 1e-9);  // eth1 is new in t1: no rate yet; lo ignored
  EXPECT_NEAR(s.net_tx_mbs, 25, 1e-9);
  ASSERT_TRUE(s.process_cpu_pct);
  EXPECT_NEAR(*s.process_cpu_pct, 100, 1e-9);
}

TEST(MonitorSampleTest, IntervalScalesRatesAndResetCountersGiveZero) {
  struct Case {
    const char* name;
    const char* first;
    const char* second;
    double dt;
    double want_rx_mbs;
    double want_disk_read_mbs;
  };
  const Case kCases[] = {
      {"two_seconds", "proc/t0", "proc/t1", 2, 62.5, 61.44},
      {"counters_went_backwards", "proc/t1", "proc/t0", 1, 0, 0},
      {"same_reading", "proc/t0", "proc/t0", 1, 0, 0},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    MonitorSample s = SampleBetween(Read(c.first, 0), Read(c.second, c.dt), 100);
    EXPECT_NEAR(s.net_rx_mbs, c.want_rx_mbs, 1e-9);
    EXPECT_NEAR(s.disk_read_mbs, c.want_disk_read_mbs, 1e-9);
    EXPECT_GE(s.cpu_util_pct, 0);
    EXPECT_LE(s.cpu_util_pct, 100);
  }
}

TEST(MonitorSampleTest, MeanGpuUtil) {
  MonitorSample s;
  EXPECT_FALSE(s.MeanGpuUtil());
  GpuSample a, b;
  a.util_pct = 100;
  b.util_pct = 50;
  s.gpus = {a, b};
  EXPECT_DOUBLE_EQ(*s.MeanGpuUtil(), 75);
}

}  // namespace
}  // namespace gpuplan::agent
