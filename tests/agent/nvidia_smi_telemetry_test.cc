#include "agent/nvidia_smi_telemetry.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "agent/monitor.h"
#include "agent/proc_reader.h"
#include "testing/agent_fakes.h"
#include "testing/cli_runner.h"

namespace gpuplan::agent {
namespace {

// What nvidia-smi 550.54.15 prints on a two-GPU H200 host for the two queries (the second GPU's
// power reading unsupported, as on some MIG and passthrough set-ups).
constexpr const char* kDevicesCsv =
    "0, NVIDIA H200, 143771, 5, 16, 700.00, 550.54.15\n"
    "1, NVIDIA H200, 143771, [N/A], [N/A], [Not Supported], 550.54.15\n";
constexpr const char* kSamplesCsv =
    "1, 12, 3, 1024, 143771, [N/A], 700.00\n"
    "0, 87, 45, 80123, 143771, 512.34, 700.00\n";

TEST(NvidiaSmiTelemetryTest, ParsesDevices) {
  Result<std::vector<GpuInfo>> d = ParseSmiDevices(kDevicesCsv);
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->size(), 2u);
  EXPECT_EQ((*d)[0].name, "NVIDIA H200");
  EXPECT_NEAR((*d)[0].memory_total_gib, 140.4, 0.01);
  EXPECT_EQ((*d)[0].pcie_gen_max, 5);
  EXPECT_EQ((*d)[0].pcie_width_max, 16);
  EXPECT_EQ((*d)[0].power_limit_w, 700.0);
  EXPECT_EQ((*d)[0].driver_version, "550.54.15");
  EXPECT_FALSE((*d)[1].pcie_gen_max.has_value());
  EXPECT_FALSE((*d)[1].power_limit_w.has_value());
}

TEST(NvidiaSmiTelemetryTest, ParsesSamplesInIndexOrder) {
  Result<std::vector<GpuSample>> s = ParseSmiSamples(kSamplesCsv);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[0].index, 0);
  EXPECT_EQ((*s)[0].util_pct, 87);
  EXPECT_EQ((*s)[0].mem_util_pct, 45);
  EXPECT_NEAR((*s)[0].mem_used_gib, 78.25, 0.01);
  EXPECT_EQ((*s)[0].power_w, 512.34);
  EXPECT_EQ((*s)[1].index, 1);
  EXPECT_FALSE((*s)[1].power_w.has_value());
  EXPECT_EQ((*s)[1].power_limit_w, 700.0);
}

TEST(NvidiaSmiTelemetryTest, BadOutputNamesTheLineAndField) {
  struct Case {
    const char* name;
    const char* csv;
    const char* want;
  };
  const Case kCases[] = {
      {"short_row", "0, 87, 45\n", "nvidia-smi line 1: 3 fields, expected 7"},
      {"text_number", "0, 87, 45, lots, 143771, 1, 2\n",
       "line 1: memory.used \"lots\" is not a number"},
      {"no_utilisation", "0, [N/A], 45, 1, 2, 3, 4\n",
       "GPU 0 utilisation: nvidia-smi reports \"[N/A]\""},
      {"bad_index", "\n-1, 87, 45, 1, 2, 3, 4\n", "line 2: index \"-1\" is not a GPU index"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<std::vector<GpuSample>> s = ParseSmiSamples(c.csv);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.status().message().find(c.want), std::string::npos) << s.status().message();
  }
}

TEST(NvidiaSmiTelemetryTest, OpenSaysWhyWhenNvidiaSmiFails) {
  std::string why;
  auto missing = [](const std::string&) -> Result<std::string> {
    return Status::Unavailable("nvidia-smi not found in PATH (no NVIDIA driver installed?)");
  };
  EXPECT_EQ(OpenNvidiaSmi(&why, missing), nullptr);
  EXPECT_NE(why.find("nvidia-smi not found"), std::string::npos) << why;
}

// The monitor's timeline and diagnosis from nvidia-smi readings, as the portable agent runs it.
TEST(NvidiaSmiTelemetryTest, MonitorRunsOnIt) {
  std::vector<std::string> queries;
  auto run = [&](const std::string& args) -> Result<std::string> {
    queries.push_back(args);
    return std::string(args.find("utilization.gpu") != std::string::npos ? kSamplesCsv
                                                                         : kDevicesCsv);
  };
  std::string why;
  std::unique_ptr<GpuTelemetry> gpus = OpenNvidiaSmi(&why, run);
  ASSERT_NE(gpus, nullptr) << why;
  ProcReader proc(testing::TestDataPath("proc/t0"));
  testing::FakeClock clock{1'800'000'000, 0.001};
  std::ostringstream timeline, log;
  MonitorEnvironment env;
  env.proc = &proc;
  env.gpus = gpus.get();
  env.clock = &clock;
  env.timeline = &timeline;
  env.log = &log;
  MonitorOptions o;
  o.interval_seconds = 0.01;
  o.max_samples = 2;
  MonitorResult r = RunMonitor(o, env);
  EXPECT_EQ(r.exit_code, 0) << log.str();
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_NE(timeline.str().find("gpu1_util_pct"), std::string::npos) << timeline.str();
  EXPECT_NE(timeline.str().find(",87.00,"), std::string::npos) << timeline.str();
  EXPECT_EQ(log.str().find("no-gpu-data"), std::string::npos) << log.str();
  ASSERT_FALSE(queries.empty());
  EXPECT_EQ(queries.back(),
            "--query-gpu=index,utilization.gpu,utilization.memory,memory.used,memory.total,"
            "power.draw,power.limit --format=csv,noheader,nounits");
}

}  // namespace
}  // namespace gpuplan::agent
