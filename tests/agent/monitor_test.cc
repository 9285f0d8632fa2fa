#include "agent/monitor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "agent/proc_reader.h"
#include "testing/agent_fakes.h"
#include "testing/cli_runner.h"

namespace gpuplan::agent {
namespace {

using testing::FakeClock;
using testing::FakeGpuTelemetry;

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

struct Harness {
  ProcReader proc{testing::TestDataPath("proc/t0")};
  FakeGpuTelemetry gpus;
  FakeClock clock{1'800'000'000, 0.001};
  std::ostringstream timeline, log;
  MonitorEnvironment env;
  Harness() {
    GpuSample g;
    g.util_pct = 30;
    g.mem_used_gib = 10;
    g.mem_total_gib = 80;
    g.power_w = 120;
    g.power_limit_w = 400;
    gpus.samples = {{g}};
    env.proc = &proc;
    env.gpus = &gpus;
    env.clock = &clock;
    env.timeline = &timeline;
    env.log = &log;
  }
};

TEST(MonitorTest, FollowsACommandAndExitsWithItsCode) {
  Harness h;
  MonitorOptions o;
  o.interval_seconds = 0.05;
  o.command = {"sh", "-c", "sleep 0.2; exit 3"};
  MonitorResult r = RunMonitor(o, h.env);
  EXPECT_EQ(r.exit_code, 3);
  ASSERT_GE(r.samples.size(), 1u);
  std::vector<std::string> lines = Lines(h.timeline.str());
  ASSERT_EQ(lines.size(), r.samples.size() + 1);  // header + one row per sample
  EXPECT_EQ(lines[0].rfind("time_utc,elapsed_s,gpu_util_pct,gpu_mem_used_gib,gpu_power_w,"
                           "gpu0_util_pct,gpu0_mem_used_gib,gpu0_power_w,cpu_util_pct,",
                           0),
            0u)
      << lines[0];
  EXPECT_NE(lines[0].find(",cpu0_pct,cpu1_pct,mem_used_gib,"), std::string::npos);
  EXPECT_NE(h.log.str().find("diagnosis: "), std::string::npos);
}

TEST(MonitorTest, CommandThatCannotStart) {
  Harness h;
  MonitorOptions o;
  o.command = {"gpuplan-no-such-command-xyz"};
  MonitorResult r = RunMonitor(o, h.env);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(h.log.str().find("command not found"), std::string::npos);
}

TEST(MonitorTest, JsonLinesEndWithTheDiagnosis) {
  Harness h;
  MonitorOptions o;
  o.interval_seconds = 0.5;
  o.json = true;
  o.max_samples = 4;
  MonitorResult r = RunMonitor(o, h.env);
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.samples.size(), 4u);
  std::vector<std::string> lines = Lines(h.timeline.str());
  ASSERT_EQ(lines.size(), 5u);
  for (size_t i = 0; i < 4; ++i) {
    nlohmann::json j = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(j["type"], "sample");
    EXPECT_EQ(j["gpus"][0]["util_pct"], 30);
    EXPECT_NEAR(j["elapsed_s"].get<double>(), 0.5 * static_cast<double>(i + 1), 0.06);
    EXPECT_EQ(j["cpu"]["cores_pct"].size(), 2u);
  }
  nlohmann::json d = nlohmann::json::parse(lines[4]);
  EXPECT_EQ(d["type"], "diagnosis");
  // GPU at 30% with an idle (unchanging) fake /proc: nothing on the host explains it.
  EXPECT_EQ(d["verdict"], "underutilised");
  EXPECT_EQ(d["samples"], 4);
  EXPECT_EQ(r.diagnosis.verdict, "underutilised");
}

TEST(MonitorTest, StopsWhenAskedAndWithoutGpus) {
  Harness h;
  h.env.gpus = nullptr;
  h.env.gpus_error = "cannot load libnvidia-ml.so.1";
  std::atomic<bool> stop{true};
  h.env.stop = &stop;
  MonitorOptions o;
  o.interval_seconds = 0.1;
  MonitorResult r = RunMonitor(o, h.env);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.samples.empty());
  EXPECT_EQ(r.diagnosis.verdict, "too-short");
  EXPECT_NE(h.log.str().find("no GPU telemetry: cannot load libnvidia-ml.so.1"), std::string::npos);
}

TEST(MonitorTest, BrokenProcIsAnError) {
  Harness h;
  ProcReader broken(testing::TestDataPath("proc/missing"));
  h.env.proc = &broken;
  MonitorOptions o;
  o.max_samples = 2;
  MonitorResult r = RunMonitor(o, h.env);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(h.log.str().find("proc/missing/stat"), std::string::npos);
}

TEST(MonitorTest, CsvRowsKeepTheirColumnsWhenAGpuDisappears) {
  MonitorSample first;
  first.gpus.resize(2);
  first.gpus[1].index = 1;
  first.core_util_pct = {10, 20};
  MonitorSample later = first;
  later.gpus.resize(1);
  const std::string header = TimelineCsvHeader(first);
  const std::string row = TimelineCsvRow(later, first);
  EXPECT_EQ(std::count(row.begin(), row.end(), ','), std::count(header.begin(), header.end(), ','));
  EXPECT_NE(row.find(",,,"), std::string::npos);  // GPU 1's three cells are empty
}

}  // namespace
}  // namespace gpuplan::agent
