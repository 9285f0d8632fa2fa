// The deploy files checked by the tools that will read them: run-instances.sh against a fake
// `aliyun` that validates every RunInstances parameter against the CLI's published parameter
// list, main.tf against the alicloud provider's schema, cloud-init.yaml against cloud-init's
// schema (and `cloud-init schema` where installed), the systemd units with `systemd-analyze
// verify` and the scripts with `shellcheck`. The checkers live in tests/deploy_tools/ and their
// reference data, with sources, in tests/testdata/deploy/ (README.md there).
//
// A test skips, saying why, only when its tool is not installed; scripts/install-deps.sh
// installs all of them except cloud-init (whose package enables boot services).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/file_util.h"
#include "testing/cli_runner.h"

namespace gpuplan {
namespace {

namespace fs = std::filesystem;

const std::string kTools = std::string(GPUPLAN_SOURCE_DIR) + "/tests/deploy_tools/";

// `command` (through sh) with stderr folded into the returned output.
std::string RunShell(const std::string& command, int* status) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) {
    *status = -1;
    return "popen failed";
  }
  char buf[4096];
  while (fgets(buf, sizeof buf, pipe))
    out += buf;
  const int raw = pclose(pipe);
  *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

bool Installed(const std::string& tool) {
  int status = 0;
  RunShell("command -v " + tool, &status);
  return status == 0;
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s)
    out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// The account ids a user fills in, and the fake aliyun on PATH.
std::string FakeAliyunEnv(const std::string& bin, const std::string& log) {
  return "env PATH=" + Quote(bin) +
         ":\"$PATH\" VSWITCH_ID=vsw-test SECURITY_GROUP_ID=sg-test "
         "KEY_PAIR_NAME=me IMAGE_ID=m-test FAKE_ALIYUN_LOG=" +
         Quote(log) + " FAKE_ALIYUN_DESCRIBE=" +
         Quote(testing::TestDataPath("deploy/describe_instance_types.json")) + " ";
}

struct DeployCase {
  std::string name;
  std::vector<std::string> args;               // after "deploy", before --out
  std::vector<std::string> run_instances_has;  // name=value pairs the fake aliyun must see
};

// The review's cases (shared/data/deploy_review.md): a single spot node with a data disk, an
// eRDMA cluster, a subscription with CPFS replicas, a spot cluster with CPFS.
const DeployCase kDeployCases[] = {
    {"SpotSingleNodeDataDisk",
     {"--model", "qwen2.5-7b", "--task", "finetune", "--method", "lora", "--tokens", "200M",
      "--region", "cn-hangzhou", "--billing", "spot"},
     {"SpotStrategy=SpotAsPriceGo", "DataDisk.1.DeleteWithInstance=false", "Amount=1"}},
    {"ErdmaClusterEbmgn7ex",
     {"--model", "llama-2-70b", "--task", "finetune", "--method", "full", "--tokens", "100M",
      "--global-batch", "64", "--instance", "ecs.ebmgn7ex.32xlarge", "--nodes", "2", "--billing",
      "payg"},
     {"NetworkInterface.1.InstanceType=Primary",
      "NetworkInterface.1.NetworkInterfaceTrafficMode=HighPerformance",
      "NetworkInterface.1.NetworkCardIndex=0", "NetworkInterface.2.InstanceType=Secondary",
      "NetworkInterface.2.NetworkCardIndex=1",
      // The fixture's QueuePairNumber, 34, split over the two ERIs.
      "NetworkInterface.2.QueuePairNumber=17", "MinAmount=2"}},
    {"SubscriptionReplicas",
     {"--model", "llama-3-70b", "--task", "inference", "--requests-per-s", "5", "--billing",
      "subscription"},
     {"InstanceChargeType=PrePaid", "PeriodUnit=Month"}},
    {"SpotCluster",
     {"--model", "llama-2-13b", "--task", "pretrain", "--tokens", "50B", "--global-batch", "512",
      "--billing", "spot", "--deadline-hours", "200", "--objective", "cost_within_deadline"},
     {"SpotStrategy=SpotAsPriceGo", "MinAmount="}},
};

class DeployExternalChecks : public ::testing::TestWithParam<DeployCase> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gpuplan-deploy-checks-XXXXXX";
    dir_ = mkdtemp(tmpl);
    out_ = dir_ + "/out";
    std::vector<std::string> args = {"deploy"};
    args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
    args.insert(args.end(), {"--out", out_});
    cli::CliEnvironment env = testing::TestEnvironment();
    env.today = "2026-12-01";
    const testing::CliRun run = testing::RunGpuplan(args, env);
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string File(const std::string& name) const { return *io::ReadFile(out_ + "/" + name); }

  // Writes cloud-init.yaml's write_files under `root`, with their permissions.
  void WriteCloudInitFiles(const std::string& root) const {
    const YAML::Node doc = YAML::Load(File("cloud-init.yaml"));
    for (const YAML::Node& f : doc["write_files"]) {
      const std::string path = root + f["path"].as<std::string>();
      fs::create_directories(fs::path(path).parent_path());
      ASSERT_TRUE(io::WriteFileAtomic(path, f["content"].as<std::string>()).ok()) << path;
      ASSERT_EQ(chmod(path.c_str(), static_cast<mode_t>(
                                        std::stoi(f["permissions"].as<std::string>(), nullptr, 8))),
                0);
    }
  }

  std::string dir_, out_;
};

TEST_P(DeployExternalChecks, RunInstancesPassesTheCliParameterList) {
  if (!Installed("python3"))
    GTEST_SKIP() << "python3 is not installed (Debian package python3)";
  const std::string bin = dir_ + "/bin";
  fs::create_directories(bin);
  fs::create_symlink(kTools + "fake_aliyun.py", bin + "/aliyun");
  const std::string log = dir_ + "/aliyun.log";
  int status = 0;
  const std::string out =
      RunShell(FakeAliyunEnv(bin, log) + Quote(out_ + "/run-instances.sh") + " --yes", &status);
  ASSERT_EQ(status, 0) << out;
  const Result<std::string> calls = io::ReadFile(log);
  ASSERT_TRUE(calls.ok()) << "the script never called aliyun ecs RunInstances:\n" << out;
  EXPECT_EQ(std::count(calls->begin(), calls->end(), '\n'), 1) << *calls;
  const nlohmann::json call = nlohmann::json::parse(calls->substr(0, calls->find('\n')));
  for (const std::string& pair : GetParam().run_instances_has) {
    const std::string key = pair.substr(0, pair.find('='));
    const std::string value = pair.substr(pair.find('=') + 1);
    ASSERT_TRUE(call["params"].contains(key)) << key << " missing in " << call.dump();
    if (!value.empty()) {
      EXPECT_EQ(call["params"][key], value) << key;
    }
  }
}

TEST_P(DeployExternalChecks, MainTfMatchesTheProviderSchema) {
  if (!Installed("python3"))
    GTEST_SKIP() << "python3 is not installed (Debian package python3)";
  int status = 0;
  const std::string out = RunShell(
      "python3 " + Quote(kTools + "check_terraform.py") + " " + Quote(out_ + "/main.tf"), &status);
  EXPECT_EQ(status, 0) << out;
}

TEST_P(DeployExternalChecks, CloudInitMatchesTheCloudConfigSchema) {
  const std::string file = Quote(out_ + "/cloud-init.yaml");
  int status = 0;
  if (Installed("cloud-init")) {
    const std::string out = RunShell("cloud-init schema --config-file " + file, &status);
    EXPECT_EQ(status, 0) << out;
  }
  if (!Installed("python3"))
    GTEST_SKIP() << "python3 is not installed (Debian package python3)";
  const std::string out =
      RunShell("python3 " + Quote(kTools + "check_cloud_config.py") + " " + file, &status);
  if (status == 2)
    GTEST_SKIP() << out;  // python3-yaml or python3-jsonschema is not installed
  EXPECT_EQ(status, 0) << out;
}

TEST_P(DeployExternalChecks, SystemdUnitsPassSystemdAnalyzeVerify) {
  if (!Installed("systemd-analyze"))
    GTEST_SKIP() << "systemd-analyze is not installed (Debian package systemd)";
  const std::string system_units = fs::exists("/usr/lib/systemd/system/sysinit.target")
                                       ? "/usr/lib/systemd/system"
                                       : "/lib/systemd/system";
  if (!fs::exists(system_units + "/sysinit.target"))
    GTEST_SKIP() << "no systemd unit directory with sysinit.target to verify against";
  // A root with the instance's files and this machine's stock units, so that ExecStart paths
  // and the targets the units name resolve.
  const std::string root = dir_ + "/root";
  WriteCloudInitFiles(root);
  fs::create_directories(root + "/usr/lib/systemd");
  int status = 0;
  RunShell("cp -a " + Quote(system_units) + " " + Quote(root + "/usr/lib/systemd/system"), &status);
  ASSERT_EQ(status, 0);
  std::string units;
  for (const auto& e : fs::directory_iterator(root + "/etc/systemd/system"))
    units += " " + Quote(e.path().filename().string());
  ASSERT_FALSE(units.empty());
  const std::string out =
      RunShell("cd / && systemd-analyze verify --root=" + Quote(root) + units, &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out, "") << "systemd-analyze verify complained:\n" << out;
  // systemd.path(5): without RemainAfterExit the path unit restarts the probe forever.
  EXPECT_NE(File("cloud-init.yaml").find("RemainAfterExit=yes"), std::string::npos);
}

TEST_P(DeployExternalChecks, ScriptsPassShellcheck) {
  if (!Installed("shellcheck"))
    GTEST_SKIP() << "shellcheck is not installed (Debian package shellcheck)";
  const std::string root = dir_ + "/root";
  WriteCloudInitFiles(root);
  std::string scripts = Quote(out_ + "/run-instances.sh");
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && (e.path().extension() == ".sh"))
      scripts += " " + Quote(e.path().string());
  }
  int status = 0;
  std::string out = RunShell("shellcheck -S warning " + scripts, &status);
  EXPECT_EQ(status, 0) << out;
  out =
      RunShell("shellcheck -S warning -s bash -e SC2034 " + Quote(root + "/etc/gpuplan/deploy.env"),
               &status);
  EXPECT_EQ(status, 0) << out;
}

INSTANTIATE_TEST_SUITE_P(Deploy, DeployExternalChecks, ::testing::ValuesIn(kDeployCases),
                         [](const auto& param_info) { return param_info.param.name; });

// The checkers catch what the review found: each broken call or file must be refused.
struct BrokenCall {
  std::string name;
  std::string args;      // after `aliyun ecs RunInstances`
  std::string expected;  // in the fake's error
};

TEST(FakeAliyun, RefusesWhatTheApiOrCliWould) {
  if (!Installed("python3"))
    GTEST_SKIP() << "python3 is not installed (Debian package python3)";
  const std::string base = "--RegionId cn-beijing --InstanceType ecs.ebmgn7ex.32xlarge ";
  const std::string eri1 =
      "--NetworkInterface.1.InstanceType Primary --NetworkInterface.1.VSwitchId vsw-a "
      "--NetworkInterface.1.SecurityGroupId sg-a "
      "--NetworkInterface.1.NetworkInterfaceTrafficMode HighPerformance ";
  const std::string eri2 =
      "--NetworkInterface.2.InstanceType Secondary --NetworkInterface.2.VSwitchId vsw-a "
      "--NetworkInterface.2.NetworkInterfaceTrafficMode HighPerformance ";
  const BrokenCall kCalls[] = {
      {"AmountOver100", base + "--Amount 128", "above the maximum 100"},
      {"UnknownParameter", base + "--NetworkInterface.1.TrafficMode HighPerformance",
       "has no sub-parameter 'TrafficMode'"},
      {"TopLevelVSwitchWithPrimaryInterface", base + eri1 + "--VSwitchId vsw-a",
       "conflicts with NetworkInterface.1.InstanceType Primary"},
      {"TwoErisWithoutQueuePairs", base + eri1 + eri2, "without QueuePairNumber"},
      {"SpotLimitWithoutStrategy", base + "--SpotPriceLimit 2.5", "SpotWithPriceLimit"},
      {"SpotOnSubscription",
       base + "--InstanceChargeType PrePaid --Period 1 --SpotStrategy SpotAsPriceGo", "PostPaid"},
      {"BadPeriod", base + "--InstanceChargeType PrePaid --Period 10", "expected one of"},
      {"SmallPl2Disk",
       base + "--DataDisk.1.Category cloud_essd --DataDisk.1.Size 100 "
              "--DataDisk.1.PerformanceLevel PL2",
       "at least 461 GiB"},
      {"NotBoolean", base + "--DataDisk.1.DeleteWithInstance no", "expected true or false"},
      {"NoRegion", "--InstanceType ecs.gn7i-c8g1.2xlarge", "--RegionId is required"},
  };
  for (const BrokenCall& c : kCalls) {
    SCOPED_TRACE(c.name);
    int status = 0;
    const std::string out = RunShell(
        "python3 " + Quote(kTools + "fake_aliyun.py") + " ecs RunInstances " + c.args, &status);
    EXPECT_EQ(status, 1) << out;
    EXPECT_NE(out.find(c.expected), std::string::npos) << out;
  }
}

struct BrokenTf {
  std::string name;
  std::string from, to;  // replace `from` with `to` in a good main.tf
  std::string expected;
};

TEST(TerraformSchemaCheck, RefusesArgumentsTheProviderLacks) {
  if (!Installed("python3"))
    GTEST_SKIP() << "python3 is not installed (Debian package python3)";
  char tmpl[] = "/tmp/gpuplan-tf-check-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const testing::CliRun run = testing::RunGpuplan(
      {"deploy", "--model", "llama-2-70b", "--task", "finetune", "--method", "full", "--tokens",
       "100M", "--global-batch", "64", "--instance", "ecs.ebmgn7ex.32xlarge", "--nodes", "2",
       "--billing", "payg", "--out", dir + "/out"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string good = *io::ReadFile(dir + "/out/main.tf");
  const BrokenTf kCases[] = {
      {"UnpinnedProvider", "      version = \">= 1.227.1\"\n", "", "no version constraint"},
      {"TooOldProvider", "version = \">= 1.227.1\"", "version = \">= 1.200.0\"",
       "older than 1.227.1"},
      {"UnknownArgument", "  instance_charge_type = \"PostPaid\"\n",
       "  instance_charge_type = \"PostPaid\"\n  erdma_enabled = true\n",
       "erdma_enabled: not an argument"},
      {"BadEnum", "\"PostPaid\"", "\"Postpaid\"", "expected one of PrePaid, PostPaid"},
      {"UnknownBlockArgument", "network_card_index             = 1", "network_card_idx = 1",
       "network_interfaces.network_card_idx"},
  };
  for (const BrokenTf& c : kCases) {
    SCOPED_TRACE(c.name);
    std::string tf = good;
    const size_t at = tf.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    tf.replace(at, c.from.size(), c.to);
    const std::string path = dir + "/" + c.name + ".tf";
    ASSERT_TRUE(io::WriteFileAtomic(path, tf).ok());
    int status = 0;
    const std::string out =
        RunShell("python3 " + Quote(kTools + "check_terraform.py") + " " + Quote(path), &status);
    EXPECT_EQ(status, 1) << out;
    EXPECT_NE(out.find(c.expected), std::string::npos) << out;
  }
  fs::remove_all(dir);
}

// What deploy itself refuses, with the flag named and the reason.
struct Refusal {
  std::string name;
  std::vector<std::string> args;
  std::string expected;
};

TEST(DeployRefusals, NamesTheFlagAndTheLimit) {
  const Refusal kCases[] = {
      {"MoreThan100Nodes",
       {"--model", "llama-2-70b", "--task", "finetune", "--method", "full", "--tokens", "100M",
        "--global-batch", "1024", "--instance", "ecs.ebmgn7ex.32xlarge", "--nodes", "128",
        "--billing", "payg", "--dry-run"},
       "RunInstances creates 1-100 instances per call"},
      {"SpotLimitBelowPlanPrice",
       {"--model", "qwen2.5-7b", "--task", "finetune", "--method", "lora", "--tokens", "200M",
        "--region", "cn-hangzhou", "--billing", "spot", "--spot-price-limit", "0.001", "--dry-run"},
       "below the plan's own spot price"},
  };
  for (const Refusal& c : kCases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args = {"deploy"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const testing::CliRun run = testing::RunGpuplan(args);
    EXPECT_NE(run.exit_code, 0);
    EXPECT_NE(run.err.find(c.expected), std::string::npos) << run.err;
  }
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// netcheck.sh, the inter-node bandwidth check of an eRDMA cluster, run against a fake
// ib_write_bw: it sums the average Gbit/s of every RDMA device and warns below the plan's
// assumption (ebmgn7ex: 160 Gbit/s x 0.8 RDMA efficiency = 128).
TEST(NetworkCheck, WarnsWhenTheMeasuredBandwidthIsBelowThePlan) {
  char tmpl[] = "/tmp/gpuplan-netcheck-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const testing::CliRun run = testing::RunGpuplan(
      {"deploy", "--model", "llama-2-70b", "--task", "finetune", "--method", "full", "--tokens",
       "100M", "--global-batch", "64", "--instance", "ecs.ebmgn7ex.32xlarge", "--nodes", "2",
       "--billing", "payg", "--out", dir + "/out"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const YAML::Node doc = YAML::Load(*io::ReadFile(dir + "/out/cloud-init.yaml"));
  for (const YAML::Node& f : doc["write_files"]) {
    const std::string path = f["path"].as<std::string>();
    if (path == "/etc/gpuplan/deploy.env" || path == "/usr/local/lib/gpuplan/netcheck.sh") {
      ASSERT_TRUE(io::WriteFileAtomic(dir + "/" + fs::path(path).filename().string(),
                                      f["content"].as<std::string>())
                      .ok());
    }
  }
  ASSERT_NE(io::ReadFile(dir + "/deploy.env")->find("GPUPLAN_ASSUMED_GBPS=128"), std::string::npos);
  // Two ERIs: two RDMA devices.
  fs::create_directories(dir + "/sys/class/infiniband/erdma_0");
  fs::create_directories(dir + "/sys/class/infiniband/erdma_1");
  struct Case {
    std::string name;
    std::string gbps_per_device;  // perftest's BW average column
    int exit_code;
    std::string expected;
  };
  const Case kCases[] = {
      {"BelowThePlan", "49.50", 1,
       "WARNING: 10.0.0.2: 99.0 Gbit/s over 2 RDMA device(s), below "
       "the 128 Gbit/s the plan assumed"},
      {"AtThePlan", "70.00", 0, "10.0.0.2: 140.0 Gbit/s over 2 RDMA device(s), at least"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    fs::create_directories(dir + "/bin");
    ASSERT_TRUE(io::WriteFileAtomic(dir + "/bin/ib_write_bw",
                                    "#!/bin/sh\n"
                                    "echo ' #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] "
                                    "MsgRate[Mpps]'\n"
                                    "echo ' 65536 5000 " +
                                        c.gbps_per_device + " " + c.gbps_per_device + " 0.094'\n")
                    .ok());
    ASSERT_EQ(chmod((dir + "/bin/ib_write_bw").c_str(), 0755), 0);
    int status = 0;
    const std::string out = RunShell("env PATH=" + Quote(dir + "/bin") +
                                         ":\"$PATH\" GPUPLAN_ENV=" + Quote(dir + "/deploy.env") +
                                         " GPUPLAN_SYSFS=" + Quote(dir + "/sys") + " bash " +
                                         Quote(dir + "/netcheck.sh") + " 10.0.0.2",
                                     &status);
    EXPECT_EQ(status, c.exit_code) << out;
    EXPECT_NE(out.find(c.expected), std::string::npos) << out;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// A service's fleet: the base's files as for any plan, and the elastic layer as an ESS group
// whose scheduled tasks follow the traffic, each file checked against the provider's schema.
struct FleetDeployCase {
  std::string name;
  std::vector<std::string> args;  // after "deploy", before --out
  std::vector<std::string> tf_has, sh_has;
};

TEST(FleetDeploy, EssFilesPassTheProviderSchemasAndFollowTheTraffic) {
  if (!Installed("python3"))
    GTEST_SKIP() << "python3 is not installed (Debian package python3)";
  const std::vector<std::string> qwen32b = {"--model", "qwen2.5-32b", "--task", "inference"};
  const FleetDeployCase kCases[] = {
      {"EveningPeakShanghai",
       {"--base-rps", "2", "--peak-rps", "30", "--peak-hours", "19-22", "--timezone",
        "Asia/Shanghai"},
       // Four elastic instances from 18:49 local (10:49 UTC), none from 22:00 (14:00 UTC).
       {"recurrence_value       = \"49 10 * * *\"", "desired_capacity       = 4",
        "recurrence_value       = \"0 14 * * *\"", "on_demand_percentage_above_base_capacity = 100",
        "multi_az_policy    = \"COST_OPTIMIZED\""},
       {"--RecurrenceValue '49 10 * * *'", "--MultiAZPolicy COST_OPTIMIZED"}},
      {"SpotPeaksWithOnDemandFallback",
       {"--base-rps", "2", "--peak-rps", "30", "--peak-hours", "19-22", "--billing", "spot",
        "--billing", "subscription_month", "--billing", "payg", "--timezone", "UTC"},
       {},  // spot only when its price can rank (a fresh listed price): checked below if used
       {}},
      {"WeekendsQuietInTokyo",
       {"--hourly-rps", "1,1,1,1,1,1,1,1,1,20,20,20,20,20,20,20,20,20,1,1,1,1,1,1",
        "--weekend-hourly-rps", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", "--timezone",
        "Asia/Tokyo"},
       // 09:00 Tokyo is 00:00 UTC of the same day: weekdays 1-5, minus the lead time the day
       // before in UTC (Sunday to Thursday).
       {"recurrence_value       = \"", "* * 0,1,2,3,4\""},
       {}},
  };
  for (const FleetDeployCase& c : kCases) {
    SCOPED_TRACE(c.name);
    char tmpl[] = "/tmp/gpuplan-fleet-XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    std::vector<std::string> args = {"deploy"};
    args.insert(args.end(), qwen32b.begin(), qwen32b.end());
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"--out", dir + "/out"});
    const testing::CliRun run = testing::RunGpuplan(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    ASSERT_TRUE(fs::exists(dir + "/out/ess.tf")) << run.out;
    const std::string tf = *io::ReadFile(dir + "/out/ess.tf");
    const std::string sh = *io::ReadFile(dir + "/out/ess-schedule.sh");
    for (const std::string& want : c.tf_has)
      EXPECT_NE(tf.find(want), std::string::npos) << want << "\n" << tf;
    for (const std::string& want : c.sh_has)
      EXPECT_NE(sh.find(want), std::string::npos) << want << "\n" << sh;
    if (tf.find("spot_strategy") != std::string::npos) {
      EXPECT_NE(tf.find("compensate_with_on_demand                = true"), std::string::npos);
      EXPECT_NE(tf.find("spot_instance_remedy                     = true"), std::string::npos);
    }
    // Terraform reads main.tf and ess.tf as one module: check them together.
    const std::string all = dir + "/all.tf";
    ASSERT_TRUE(io::WriteFileAtomic(all, *io::ReadFile(dir + "/out/main.tf") + tf).ok());
    for (const char* schema :
         {"alicloud_ess_scaling_group_schema.json",
          "alicloud_ess_scaling_configuration_schema.json",
          "alicloud_ess_scheduled_task_schema.json", "alicloud_instance_schema.json"}) {
      int status = 0;
      const std::string out =
          RunShell("python3 " + Quote(kTools + "check_terraform.py") + " " + Quote(all) + " " +
                       Quote(testing::TestDataPath(std::string("deploy/") + schema)),
                   &status);
      EXPECT_EQ(status, 0) << schema << ": " << out;
    }
    if (Installed("shellcheck")) {
      int status = 0;
      const std::string out =
          RunShell("shellcheck " + Quote(dir + "/out/ess-schedule.sh"), &status);
      EXPECT_EQ(status, 0) << out;
    }
    fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace gpuplan
