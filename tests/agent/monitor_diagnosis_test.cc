#include "agent/monitor_diagnosis.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gpuplan::agent {
namespace {

// A synthetic sample: `gpus` GPUs at `gpu_util` % and `power_frac` of a 700 W limit with
// `mem_frac` of 80 GiB used; host figures as given.
struct Shape {
  int gpus = 8;
  double gpu_util = 95;
  double power_frac = 0.8;
  double mem_frac = 0.7;
  double cpu = 30;
  double max_core = 60;
  double iowait = 1;
  double disk_util = 10;
  double net_gbps = 1;
  double host_mem_frac = 0.5;
};

std::vector<MonitorSample> Timeline(const Shape& sh, int n = 20) {
  std::vector<MonitorSample> out;
  for (int i = 0; i < n; ++i) {
    MonitorSample s;
    s.elapsed_s = i + 1;
    for (int g = 0; g < sh.gpus; ++g) {
      GpuSample gs;
      gs.index = g;
      gs.util_pct = sh.gpu_util;
      gs.mem_total_gib = 80;
      gs.mem_used_gib = 80 * sh.mem_frac;
      gs.power_limit_w = 700;
      gs.power_w = 700 * sh.power_frac;
      s.gpus.push_back(gs);
    }
    s.cpu_util_pct = sh.cpu;
    s.core_util_pct = {sh.max_core, sh.cpu, sh.cpu};
    s.cpu_iowait_pct = sh.iowait;
    s.disk_util_pct = sh.disk_util;
    s.net_rx_mbs = sh.net_gbps * 1000 / 8 / 2;
    s.net_tx_mbs = sh.net_gbps * 1000 / 8 / 2;
    s.mem_total_gib = 100;
    s.mem_used_gib = 100 * sh.host_mem_frac;
    out.push_back(s);
  }
  return out;
}

bool Has(const Diagnosis& d, const std::string& id) {
  return std::any_of(d.findings.begin(), d.findings.end(),
                     [&](const Finding& f) { return f.id == id; });
}

TEST(MonitorDiagnosisTest, ClassifiesSyntheticTimelines) {
  struct Case {
    const char* name;
    Shape shape;
    std::optional<double> network_gbps;
    const char* want_verdict;
    std::vector<std::string> want_findings;
    const char* want_advice;  // a phrase the verdict's advice must contain
  };
  auto shape = [](auto edit) {
    Shape s;
    edit(s);
    return s;
  };
  const Case kCases[] = {
      {"busy_gpus_full_power",
       Shape{},
       std::nullopt,
       "gpu-bound",
       {"gpu-bound"},
       "mixed precision"},
      {"idle_gpu_saturated_cpu",
       shape([](Shape& s) { s.gpu_util = 35, s.cpu = 97, s.max_core = 100; }),
       std::nullopt,
       "data-loading-bound",
       {"data-loading-bound"},
       "more vCPU per GPU"},
      {"idle_gpu_one_hot_core",
       shape([](Shape& s) { s.gpu_util = 40, s.cpu = 20, s.max_core = 100; }),
       std::nullopt,
       "data-loading-bound",
       {"data-loading-bound"},
       "num_workers > 0"},
      {"idle_gpu_saturated_disk",
       shape([](Shape& s) { s.gpu_util = 30, s.disk_util = 98, s.iowait = 35; }),
       std::nullopt,
       "data-loading-bound",
       {"data-loading-bound"},
       "faster disk"},
      {"idle_gpu_network_near_limit",
       shape([](Shape& s) { s.gpu_util = 45, s.net_gbps = 28; }),
       32.0,
       "communication-bound",
       {"communication-bound"},
       "eRDMA"},
      {"busy_but_low_power_multi_gpu",
       shape([](Shape& s) { s.gpu_util = 99, s.power_frac = 0.25; }),
       std::nullopt,
       "communication-bound",
       {"communication-bound"},
       "eRDMA"},
      {"idle_gpu_nothing_saturated",
       shape([](Shape& s) { s.gpu_util = 20, s.net_gbps = 2; }),
       32.0,
       "underutilised",
       {"underutilised"},
       "batch size"},
      {"middle_utilisation",
       shape([](Shape& s) { s.gpu_util = 72; }),
       std::nullopt,
       "mixed",
       {"mixed"},
       "overlap"},
      {"lots_of_memory_left",
       shape([](Shape& s) { s.mem_frac = 0.3; }),
       std::nullopt,
       "gpu-bound",
       {"gpu-bound", "memory-headroom"},
       "mixed precision"},
      {"memory_nearly_full",
       shape([](Shape& s) { s.mem_frac = 0.98; }),
       std::nullopt,
       "gpu-bound",
       {"gpu-bound", "memory-near-full"},
       "mixed precision"},
      {"host_memory_nearly_full",
       shape([](Shape& s) { s.host_mem_frac = 0.95; }),
       std::nullopt,
       "gpu-bound",
       {"gpu-bound", "host-memory-near-full"},
       "mixed precision"},
      {"no_gpus",
       shape([](Shape& s) { s.gpus = 0; }),
       std::nullopt,
       "no-gpu-data",
       {"no-gpu-data"},
       "NVIDIA driver"},
      {"no_gpus_busy_host",
       shape([](Shape& s) { s.gpus = 0, s.cpu = 95; }),
       std::nullopt,
       "no-gpu-data",
       {"no-gpu-data", "host-saturated"},
       "NVIDIA driver"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    DiagnosisOptions o;
    o.network_gbps = c.network_gbps;
    Diagnosis d = Diagnose(Timeline(c.shape), o);
    EXPECT_EQ(d.verdict, c.want_verdict);
    ASSERT_FALSE(d.findings.empty());
    EXPECT_EQ(d.findings.front().id, c.want_verdict);
    EXPECT_NE(d.findings.front().advice.find(c.want_advice), std::string::npos)
        << d.findings.front().advice;
    for (const std::string& id : c.want_findings)
      EXPECT_TRUE(Has(d, id)) << id;
    EXPECT_EQ(d.samples, 20);
  }
}

TEST(MonitorDiagnosisTest, OneSampleIsTooShort) {
  Diagnosis d = Diagnose(Timeline(Shape{}, 1), {});
  EXPECT_EQ(d.verdict, "too-short");
}

TEST(MonitorDiagnosisTest, UnevenGpusAreFlagged) {
  std::vector<MonitorSample> t = Timeline(Shape{});
  for (MonitorSample& s : t)
    s.gpus[3].util_pct = 20;
  Diagnosis d = Diagnose(t, {});
  EXPECT_TRUE(Has(d, "gpu-imbalance"));
  EXPECT_NEAR(*d.gpu_util_mean_pct, (95 * 7 + 20) / 8.0, 1e-9);
}

TEST(MonitorDiagnosisTest, SingleGpuLowPowerIsNotCalledCommunication) {
  // One GPU has no peers to wait for: low power at high utilisation is memory-bound kernels.
  Shape s;
  s.gpus = 1;
  s.power_frac = 0.2;
  EXPECT_EQ(Diagnose(Timeline(s), {}).verdict, "gpu-bound");
}

}  // namespace
}  // namespace gpuplan::agent
