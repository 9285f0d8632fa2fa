// The three agent commands end to end through the command line (in-process).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "agent/clock.h"
#include "agent/probe_calibration.h"
#include "testing/cli_runner.h"
#include "testing/mock_metadata_server.h"

namespace gpuplan {
namespace {

using testing::MockMetadataServer;
using testing::RunGpuplan;

std::string DeadUrl() {
  MockMetadataServer s;
  return s.url();
}

TEST(WatchSpotCliTest, UsageErrorsExitTwo) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    const char* want;
  };
  const Case kCases[] = {
      {"no_target", {"watch-spot"}, "give exactly one of --pid PID or --exec 'COMMAND'"},
      {"both_targets", {"watch-spot", "--pid", "1", "--exec", "true"}, "excludes"},
      {"signal_without_pid", {"watch-spot", "--exec", "true", "--signal", "USR2"}, "excludes"},
      {"bad_signal",
       {"watch-spot", "--pid", "1", "--signal", "SIGFOO"},
       "--signal \"SIGFOO\": expected a signal name"},
      {"bad_url",
       {"watch-spot", "--pid", "1", "--metadata-url", "100.100.100.200"},
       "the scheme must be http://"},
      {"zero_interval",
       {"watch-spot", "--exec", "true", "--interval", "0"},
       "--interval 0: expected 0.01 to 3600 seconds"},
      {"pid_zero", {"watch-spot", "--pid", "0"}, "--pid: expected a process id"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    testing::CliRun r = RunGpuplan(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(c.want), std::string::npos) << r.err;
  }
}

TEST(WatchSpotCliTest, ExitCodesAgainstAMockService) {
  MockMetadataServer server;
  const std::string marker = "/tmp/gpuplan-cli-watch-" + std::to_string(getpid());
  unlink(marker.c_str());
  // No notice: --once polls one time and exits 5.
  testing::CliRun none = RunGpuplan(
      {"watch-spot", "--metadata-url", server.url(), "--once", "--exec", "touch " + marker});
  EXPECT_EQ(none.exit_code, 5) << none.err;
  EXPECT_EQ(access(marker.c_str(), F_OK), -1);

  // A notice five minutes ahead: the command runs and the exit is 0.
  MockMetadataServer::Behaviour b;
  b.mode = MockMetadataServer::Mode::kNotice;
  agent::SystemClock clock;
  b.body = agent::FormatUtc(clock.UnixSeconds() + 300);
  server.Set(b);
  testing::CliRun notice = RunGpuplan({"watch-spot", "--metadata-url", server.url(), "--interval",
                                       "0.05", "--exec", "touch " + marker});
  EXPECT_EQ(notice.exit_code, 0) << notice.err;
  EXPECT_EQ(access(marker.c_str(), F_OK), 0);
  EXPECT_NE(notice.err.find("termination notice"), std::string::npos);
  unlink(marker.c_str());

  // A PID that does not exist: 3.
  testing::CliRun gone =
      RunGpuplan({"watch-spot", "--metadata-url", server.url(), "--pid", "999999999"});
  EXPECT_EQ(gone.exit_code, 3) << gone.err;
}

TEST(MonitorCliTest, FollowsACommandWritesCsvAndDiagnoses) {
  const std::string proc = testing::TestDataPath("proc/t0");
  testing::CliRun r = RunGpuplan({"monitor", "--no-gpu", "--interval", "0.05", "--proc-root", proc,
                                  "--", "sh", "-c", "sleep 0.2; exit 4"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(r.out.rfind("time_utc,elapsed_s,", 0), 0u) << r.out;
  EXPECT_NE(r.err.find("diagnosis: no-gpu-data"), std::string::npos) << r.err;
}

TEST(MonitorCliTest, JsonToAnOutputFile) {
  const std::string path = "/tmp/gpuplan-cli-monitor-" + std::to_string(getpid()) + ".jsonl";
  testing::CliRun r =
      RunGpuplan({"monitor", "--no-gpu", "--json", "--interval", "0.05", "--samples", "2",
                  "--output", path, "--proc-root", testing::TestDataPath("proc/t0")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["type"], "sample");
  EXPECT_EQ(lines[2]["type"], "diagnosis");
  unlink(path.c_str());
}

TEST(MonitorCliTest, BadFlags) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    const char* want;
  };
  const Case kCases[] = {
      {"pid_and_command", {"monitor", "--pid", "1", "--", "true"}, "not both"},
      {"negative_interval", {"monitor", "--interval", "-1"}, "--interval -1"},
      {"unknown_instance",
       {"monitor", "--instance", "ecs.gn7i-c8g1.2xlarg", "--", "true"},
       "did you mean ecs.gn7i-c8g1.2xlarge"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    testing::CliRun r = RunGpuplan(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(c.want), std::string::npos) << r.err;
  }
}

TEST(ProbeCliTest, JsonWithoutGpuSaysWhatWasNotMeasured) {
  testing::CliRun r = RunGpuplan(
      {"probe", "--json", "--no-gpu", "--no-cpu", "--instance", "ecs.gn7i-c8g1.2xlarge"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["instance_type"], "ecs.gn7i-c8g1.2xlarge");
  EXPECT_EQ(j["gpu_model"], "A10-24G");
  bool gemm_missing = false;
  for (const auto& n : j["not_measured"]) {
    if (n["id"] == "gemm_bf16_tflops") {
      gemm_missing = n["reason"] == "GPU tests disabled with --no-gpu";
    }
  }
  EXPECT_TRUE(gemm_missing) << j["not_measured"].dump();
}

TEST(ProbeCliTest, DefaultRunPrintsOneJsonDocumentAndSavesACalibration) {
  MockMetadataServer server;
  const std::string cal = "/tmp/gpuplan-cli-cal-" + std::to_string(getpid()) + ".json";
  // Whatever this machine has (GPU or not, CUDA plugin or not), stdout is one JSON document.
  testing::CliRun r =
      RunGpuplan({"probe", "--json", "--quick", "--metadata-url", server.url(), "--save", cal});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["instance_source"], "metadata");
  EXPECT_EQ(j["instance_type"], "ecs.gn7i-c8g1.2xlarge");
  EXPECT_TRUE(j["metrics"].is_array());
  Result<agent::ProbeCalibration> c = agent::LoadCalibration(cal);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->instance_type, "ecs.gn7i-c8g1.2xlarge");
  unlink(cal.c_str());
}

TEST(ProbeCliTest, UnreachableMetadataAndTableOutput) {
  testing::CliRun r = RunGpuplan(
      {"probe", "--no-gpu", "--no-cpu", "--metadata-url", DeadUrl(), "--metadata-timeout", "0.2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("instance: unknown (unknown)", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("pass --instance"), std::string::npos);
  testing::CliRun bad = RunGpuplan({"probe", "--seconds", "0"});
  EXPECT_EQ(bad.exit_code, 2);
  testing::CliRun save = RunGpuplan(
      {"probe", "--no-gpu", "--no-cpu", "--no-metadata", "--save", "/proc/nonexistent/cal.json"});
  EXPECT_EQ(save.exit_code, 1) << save.err;
}

}  // namespace
}  // namespace gpuplan
