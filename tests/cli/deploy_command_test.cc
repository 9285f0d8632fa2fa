// `gpuplan deploy` end to end in-process: plan -> candidate -> files on disk (or printed), the
// refusals a user meets, and the exit codes of docs/errors.md "Exit codes".
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/file_util.h"
#include "testing/cli_runner.h"
#include "testing/deploy_checks.h"

namespace gpuplan {
namespace {

namespace fs = std::filesystem;
using testing::TestDataPath;

std::string Example(const std::string& name) {
  return std::string(GPUPLAN_SOURCE_DIR) + "/examples/" + name;
}

// A fresh output directory and a fixed date for each test.
class DeployCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gpuplan-deploy-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    env_.today = "2026-11-30";
  }
  void TearDown() override { fs::remove_all(dir_); }
  testing::CliRun Run(const std::vector<std::string>& args) const {
    return testing::RunGpuplan(args, env_);
  }
  // The files under `out`, name -> text.
  static std::map<std::string, std::string> Files(const std::string& out) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::directory_iterator(out)) {
      files[e.path().filename().string()] = *io::ReadFile(e.path().string());
    }
    return files;
  }
  std::string dir_;
  cli::CliEnvironment env_ = testing::TestEnvironment();
};

TEST_F(DeployCliTest, WritesDeployableFilesForEachKindOfCandidate) {
  struct Case {
    std::string name;
    std::vector<std::string> args;        // after "deploy", before --out
    std::vector<std::string> script_has;  // in run-instances.sh, spaces squeezed
  };
  const Case kCases[] = {
      {"payg_single_node",
       {Example("llm-lora-finetune.yaml"), "--billing", "payg", "--max-nodes", "1"},
       {"--InstanceChargeType PostPaid", "AMOUNT=1", "--SystemDisk.Category cloud_essd"}},
      {"spot",
       {Example("llm-lora-finetune.yaml"), "--billing", "spot"},
       {"--SpotStrategy SpotAsPriceGo"}},
      {"spot_with_limit",
       {Example("llm-lora-finetune.yaml"), "--billing", "spot", "--spot-price-limit", "50"},
       {"--SpotStrategy SpotWithPriceLimit", "--SpotPriceLimit 50.000"}},
      {"subscription",
       {Example("rendering-farm.yaml"), "--billing", "subscription"},
       {"--InstanceChargeType PrePaid", "--PeriodUnit Month"}},
      {"multi_node_pinned",
       {Example("llm-lora-finetune.yaml"), "--instance", "ecs.gn7i-c32g1.32xlarge", "--nodes", "2",
        "--max-gpus", "16", "--billing", "payg", "--deadline-hours", "1000", "--budget", "1000000"},
       {"AMOUNT=2", "--MinAmount \"$AMOUNT\"", "INSTANCE_TYPE='ecs.gn7i-c32g1.32xlarge'"}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::string out = dir_ + "/" + c.name;
    std::vector<std::string> args = {"deploy"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"--out", out});
    auto run = Run(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("wrote " + out + "/README.md, " + out + "/run-instances.sh"),
              std::string::npos)
        << run.out;
    const auto files = Files(out);
    ASSERT_EQ(files.size(), 4u);
    testing::CheckDeployFiles(files);
    const std::string script = testing::Squeeze(files.at("run-instances.sh"));
    for (const std::string& s : c.script_has)
      EXPECT_NE(script.find(s), std::string::npos) << s;
    struct stat st {};
    ASSERT_EQ(stat((out + "/run-instances.sh").c_str(), &st), 0);
    EXPECT_TRUE(st.st_mode & S_IXUSR) << "run-instances.sh is executable";
  }
}

// Runs the generated run-instances.sh with a fake `aliyun` that records its arguments: the
// script must refuse placeholders, ask before renting, and pass the plan and the user data.
TEST_F(DeployCliTest, RunInstancesScriptCallsAliyunOnlyWhenFilledAndConfirmed) {
  const std::string out = dir_ + "/deploy";
  auto run = Run({"deploy", Example("llm-lora-finetune.yaml"), "--billing", "spot", "--instance",
                  "ecs.gn7i-c8g1.2xlarge", "--nodes", "2", "--out", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string bin = dir_ + "/bin";
  fs::create_directories(bin);
  ASSERT_TRUE(
      io::WriteFileAtomic(bin + "/aliyun",
                          "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$(dirname \"$0\")/args.txt\"\n")
          .ok());
  ASSERT_EQ(chmod((bin + "/aliyun").c_str(), 0755), 0);
  const std::string filled =
      "VSWITCH_ID=vsw-test SECURITY_GROUP_ID=sg-test KEY_PAIR_NAME=me IMAGE_ID=img-test ";
  struct Case {
    std::string name;
    std::string env;   // before `bash run-instances.sh`
    std::string args;  // after it
    int exit_code;
    std::string log_has;
    bool called;  // aliyun ran
  };
  const Case kCases[] = {
      {"placeholders_left", "PATH=" + bin + ":$PATH ", "--yes", 1, "VSWITCH_ID is not filled in",
       false},
      {"not_a_vswitch_id",
       "PATH=" + bin +
           ":$PATH VSWITCH_ID=subnet-1 SECURITY_GROUP_ID=sg-1 KEY_PAIR_NAME=k IMAGE_ID=i ",
       "--yes", 1, "is not a VSwitch id (vsw-...)", false},
      {"not_confirmed", "PATH=" + bin + ":$PATH " + filled, "</dev/null", 0, "Nothing rented.",
       false},
      {"no_aliyun_cli", "PATH=/usr/bin:/bin " + filled, "--yes", 1,
       "the aliyun CLI is not installed", false},
      {"confirmed", "PATH=" + bin + ":$PATH " + filled, "--yes", 0,
       "This rents 2 x ecs.gn7i-c8g1.2xlarge", true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    if (c.name == "no_aliyun_cli" && (fs::exists("/usr/bin/aliyun") || fs::exists("/bin/aliyun")))
      continue;
    fs::remove(bin + "/args.txt");
    const std::string log = dir_ + "/log.txt";
    const int status = std::system(
        (c.env + "bash " + out + "/run-instances.sh " + c.args + " >" + log + " 2>&1").c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), c.exit_code) << *io::ReadFile(log);
    EXPECT_NE(io::ReadFile(log)->find(c.log_has), std::string::npos) << *io::ReadFile(log);
    EXPECT_EQ(fs::exists(bin + "/args.txt"), c.called);
  }
  // The last call: RunInstances with the plan's type and count and cloud-init.yaml as user data.
  const std::string args = *io::ReadFile(bin + "/args.txt");
  for (const char* want :
       {"ecs\nRunInstances\n", "--InstanceType\necs.gn7i-c8g1.2xlarge\n", "--Amount\n2\n",
        "--SpotStrategy\nSpotAsPriceGo\n", "--VSwitchId\nvsw-test\n", "--ImageId\nimg-test\n"}) {
    EXPECT_NE(args.find(want), std::string::npos) << want;
  }
  const size_t at = args.find("--UserData\n");
  ASSERT_NE(at, std::string::npos);
  ASSERT_TRUE(io::WriteFileAtomic(dir_ + "/user_data.b64", args.substr(at + 11)).ok());
  ASSERT_EQ(
      std::system(("base64 -d " + dir_ + "/user_data.b64 >" + dir_ + "/user_data.yaml").c_str()),
      0);
  EXPECT_EQ(*io::ReadFile(dir_ + "/user_data.yaml"), *io::ReadFile(out + "/cloud-init.yaml"));
}

TEST_F(DeployCliTest, RefusesToOverwriteUnlessForced) {
  const std::vector<std::string> args = {"deploy", Example("llm-lora-finetune.yaml"), "--out",
                                         dir_};
  ASSERT_EQ(io::WriteFileAtomic(dir_ + "/notes.txt", "mine").ok(), true);
  auto refused = Run(args);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("--out " + dir_ + ": the directory is not empty; pass --force"),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(dir_ + "/run-instances.sh"));

  std::vector<std::string> forced = args;
  forced.push_back("--force");
  auto run = Run(forced);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(fs::exists(dir_ + "/run-instances.sh"));
  EXPECT_EQ(*io::ReadFile(dir_ + "/notes.txt"), "mine") << "--force leaves other files alone";

  auto file_as_out =
      Run({"deploy", Example("llm-lora-finetune.yaml"), "--out", dir_ + "/notes.txt"});
  EXPECT_EQ(file_as_out.exit_code, 1);
  EXPECT_NE(file_as_out.err.find("exists and is not a directory"), std::string::npos)
      << file_as_out.err;
}

TEST_F(DeployCliTest, DryRunPrintsTheFilesAndWritesNothing) {
  const std::string out = dir_ + "/not-created";
  auto run = Run({"deploy", Example("rendering-farm.yaml"), "--instance", "ecs.gn7i-c8g1.2xlarge",
                  "--billing", "payg", "--out", out, "--dry-run"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(fs::exists(out));
  for (const char* name : {"README.md", "cloud-init.yaml", "main.tf", "run-instances.sh"}) {
    EXPECT_NE(run.out.find("==> " + out + "/" + name + " <=="), std::string::npos) << name;
  }
  // Rendering has no speed model: the output depends only on the catalog's prices and the date.
  std::string golden = run.out;
  for (size_t at = golden.find(out); at != std::string::npos; at = golden.find(out, at))
    golden.replace(at, out.size(), "OUT");
  testing::ExpectGolden("deploy_dry_run_rendering_gn7i.txt", golden);
}

TEST_F(DeployCliTest, ErrorsNameTheFlagAndExitAsDocumented) {
  struct Case {
    std::string name;
    std::vector<std::string> args;
    int exit_code;
    std::string err;
  };
  const std::string wl = Example("llm-lora-finetune.yaml");
  const std::string out = dir_ + "/out";
  const Case kCases[] = {
      {"pinned_type_not_in_catalog",
       {"deploy", wl, "--instance", "ecs.gn7-m20.8xlarge", "--out", out},
       1,
       "--instance \"ecs.gn7-m20.8xlarge\": unknown instance type; did you mean"},
      {"rank_beyond_the_plan",
       {"deploy", wl, "--rank", "999", "--out", out},
       1,
       "--rank 999: the plan has only"},
      {"unsatisfiable_plan",
       {"deploy", TestDataPath("workloads/impossible.yaml"), "--out", out},
       1,
       "nothing to deploy: no instance type can run this workload"},
      {"pinned_nodes_not_planned",
       {"deploy", wl, "--instance", "ecs.gn7i-c8g1.2xlarge", "--nodes", "3", "--out", out},
       1,
       "--nodes 3: ecs.gn7i-c8g1.2xlarge has no working plan with 3 node(s)"},
      {"missing_out", {"deploy", wl}, 2, "--out DIR is required"},
      {"nodes_without_instance", {"deploy", wl, "--nodes", "2", "--out", out}, 2, "--nodes"},
      {"rank_and_instance",
       {"deploy", wl, "--rank", "2", "--instance", "ecs.gn7i-c8g1.2xlarge", "--out", out},
       2,
       "excludes"},
      {"price_limit_on_payg",
       {"deploy", wl, "--billing", "payg", "--spot-price-limit", "2", "--out", out},
       2,
       "--spot-price-limit: the chosen candidate is billed payg, not spot"},
      {"bad_workload_flag", {"deploy", wl, "--precision", "bf8", "--out", out}, 2, "--precision"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    auto run = Run(c.args);
    EXPECT_EQ(run.exit_code, c.exit_code) << run.err;
    EXPECT_NE(run.err.find(c.err), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(out)) << "nothing is written on an error";
  }
}

}  // namespace
}  // namespace gpuplan
