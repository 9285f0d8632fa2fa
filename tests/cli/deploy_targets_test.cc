// `gpuplan deploy --target ack|pai-dlc|pai-eas`: each file checked against the schema of what
// reads it, kept in tests/testdata/deploy/ (README.md there gives the sources): the ACK node
// pool against the provider's alicloud_cs_kubernetes_node_pool schema, the Kubernetes manifests
// against the Kubernetes OpenAPI and the Kubeflow PyTorchJob CRD (strict: unknown fields fail),
// the DLC job against the CreateJob request model, the EAS service against its documented
// fields. Then each checker is shown to refuse a misspelled field, and deploy to refuse a
// workload a target does not run.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/file_util.h"
#include "testing/cli_runner.h"

namespace gpuplan {
namespace {

namespace fs = std::filesystem;

const std::string kTools = std::string(GPUPLAN_SOURCE_DIR) + "/tests/deploy_tools/";

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s)
    out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// `command` through sh, stderr folded in; *status = its exit code (-1 when it did not exit).
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

bool HavePythonChecks() {
  int status = 0;
  RunShell("python3 -c 'import jsonschema, yaml'", &status);
  return status == 0;
}

// The checker command for one generated file, by its name.
std::string CheckerFor(const std::string& file, const std::string& path) {
  const std::string data = testing::TestDataPath("deploy/");
  if (file == "node-pool.tf") {
    return "python3 " + Quote(kTools + "check_terraform.py") + " " + Quote(path) + " " +
           Quote(data + "alicloud_cs_kubernetes_node_pool_schema.json");
  }
  if (file == "pytorchjob.yaml" || file == "serving.yaml")
    return "python3 " + Quote(kTools + "check_k8s.py") + " " + Quote(path);
  if (file == "dlc-job.json") {
    return "python3 " + Quote(kTools + "check_json_body.py") + " " + Quote(path) + " " +
           Quote(data + "pai_dlc_createjob_schema.json");
  }
  if (file == "eas-service.json") {
    return "python3 " + Quote(kTools + "check_json_body.py") + " " + Quote(path) + " " +
           Quote(data + "pai_eas_service_schema.json");
  }
  return "";
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/gpuplan-targets-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs `gpuplan deploy ARGS --target TARGET --out DIR`; the exit code and output.
testing::CliRun Deploy(std::vector<std::string> args, const std::string& target,
                       const std::string& out) {
  args.insert(args.begin(), "deploy");
  args.insert(args.end(), {"--target", target});
  if (!out.empty())
    args.insert(args.end(), {"--out", out});
  cli::CliEnvironment env = testing::TestEnvironment();
  env.today = "2026-12-03";
  return testing::RunGpuplan(args, env);
}

const std::vector<std::string> kLoraSpot = {"--model",  "qwen2.5-7b",  "--task",    "finetune",
                                            "--method", "lora",        "--tokens",  "200M",
                                            "--region", "cn-hangzhou", "--billing", "spot"};
const std::vector<std::string> kErdmaTwoNodes = {
    "--model",  "llama-2-70b", "--task",         "finetune", "--method",   "full",
    "--tokens", "100M",        "--global-batch", "64",       "--instance", "ecs.ebmgn7ex.32xlarge",
    "--nodes",  "2",           "--billing",      "payg"};
const std::vector<std::string> kServing = {
    "--model", "llama-3-8b", "--task", "inference", "--requests-per-s", "20", "--billing", "payg"};

struct TargetCase {
  std::string name;
  std::vector<std::string> args;
  std::string target;
  std::vector<std::string> files;     // besides README.md
  std::vector<std::string> contains;  // "file: text" each file must contain
};

const TargetCase kTargetCases[] = {
    {"AckTrainingSpot",
     kLoraSpot,
     "ack",
     {"node-pool.tf", "pytorchjob.yaml"},
     {"node-pool.tf: spot_strategy                 = \"SpotAsPriceGo\"",
      "node-pool.tf: desired_size                  = 1", "pytorchjob.yaml: name: pytorch",
      "pytorchjob.yaml: medium: Memory", "README.md: Spot nodes can be reclaimed",
      "README.md: checkpoints"}},
    {"AckErdmaTwoNodes",
     kErdmaTwoNodes,
     "ack",
     {"node-pool.tf", "pytorchjob.yaml"},
     {"node-pool.tf: desired_size                  = 2",
      "pytorchjob.yaml: Worker:", "pytorchjob.yaml: aliyun/erdma: 1",
      "pytorchjob.yaml: hostNetwork: true", "pytorchjob.yaml: NCCL_DEBUG",
      "pytorchjob.yaml: nvidia.com/gpu: 8", "README.md: ACK eRDMA Controller"}},
    {"AckServing",
     kServing,
     "ack",
     {"node-pool.tf", "serving.yaml"},
     {"node-pool.tf: type     = \"gpu\"", "serving.yaml: kind: HorizontalPodAutoscaler",
      "serving.yaml: \"vllm\", \"serve\", \"meta-llama/Meta-Llama-3-8B\"",
      "serving.yaml: vllm_num_requests_running"}},
    {"DlcTrainingSpot",
     kLoraSpot,
     "pai-dlc",
     {"dlc-job.json"},
     {"dlc-job.json: \"SpotStrategy\": \"SpotWithPriceLimit\"",
      "README.md: A reclaimed spot job fails", "README.md: pai dlc job submit"}},
    {"DlcErdmaTwoNodes",
     kErdmaTwoNodes,
     "pai-dlc",
     {"dlc-job.json"},
     {"dlc-job.json: \"PodCount\": 2", "dlc-job.json: \"EnableRDMA\": true",
      "dlc-job.json: \"EcsSpec\": \"ecs.ebmgn7ex.32xlarge\""}},
    {"EasServing",
     kServing,
     "pai-eas",
     {"eas-service.json"},
     {"eas-service.json: \"metricName\": \"qps\"", "eas-service.json: \"port\": 8000",
      "README.md: eascmd64 create eas-service.json"}},
};

class DeployTargets : public ::testing::TestWithParam<TargetCase> {};

TEST_P(DeployTargets, FilesPassTheirSchemas) {
  const TargetCase& c = GetParam();
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const testing::CliRun run = Deploy(c.args, c.target, out);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("--target " + c.target), std::string::npos) << run.out;
  std::vector<std::string> names = {"README.md"};
  for (const auto& e : fs::directory_iterator(out))
    names.push_back(e.path().filename().string());
  std::vector<std::string> want = c.files;
  want.push_back("README.md");
  std::string listed;
  for (const std::string& n : names)
    listed += n + " ";
  EXPECT_EQ(names.size() - 1, want.size()) << "files written: " << listed;
  for (const std::string& file : c.files) {
    SCOPED_TRACE(file);
    ASSERT_TRUE(fs::exists(out + "/" + file));
    const std::string text = *io::ReadFile(out + "/" + file);
    EXPECT_EQ(text.find("{{"), std::string::npos) << "an unrendered tag:\n" << text;
    if (file.size() > 5 && file.substr(file.size() - 5) == ".json") {
      EXPECT_TRUE(nlohmann::json::accept(text)) << text;
    }
    if (!HavePythonChecks())
      continue;  // the skip is reported below
    int status = 0;
    const std::string report = RunShell(CheckerFor(file, out + "/" + file), &status);
    EXPECT_EQ(status, 0) << report << "\n" << text;
  }
  for (const std::string& entry : c.contains) {
    const std::string file = entry.substr(0, entry.find(": "));
    const std::string text = entry.substr(entry.find(": ") + 2);
    EXPECT_NE(io::ReadFile(out + "/" + file)->find(text), std::string::npos)
        << file << " lacks: " << text << "\n"
        << *io::ReadFile(out + "/" + file);
  }
  if (!HavePythonChecks())
    GTEST_SKIP() << "python3 with python3-jsonschema and python3-yaml is not installed";
}

INSTANTIATE_TEST_SUITE_P(Deploy, DeployTargets, ::testing::ValuesIn(kTargetCases),
                         [](const auto& param_info) { return param_info.param.name; });

// Each checker refuses a misspelled or out-of-schema field in an otherwise good file.
struct Misspelling {
  std::string name;
  std::vector<std::string> args;
  std::string target;
  std::string file;
  std::string from, to;  // the first `from` becomes `to`
  std::string expected;  // in the checker's report
};

TEST(DeployTargetSchemas, RefuseMisspelledFields) {
  if (!HavePythonChecks())
    GTEST_SKIP() << "python3 with python3-jsonschema and python3-yaml is not installed";
  const Misspelling kCases[] = {
      {"NodePoolArgument", kErdmaTwoNodes, "ack", "node-pool.tf", "desired_size ", "desired_count ",
       "desired_count: not an argument"},
      {"NodePoolScalingType", kServing, "ack", "node-pool.tf", "type     = \"gpu\"",
       "type     = \"GPU\"", "expected one of cpu, gpu, gpushare, spot"},
      {"NodePoolBlock", kErdmaTwoNodes, "ack", "node-pool.tf", "  taints {", "  taint {",
       "block taint: not a block"},
      {"PyTorchJobReplicaSpecs", kErdmaTwoNodes, "ack", "pytorchjob.yaml", "pytorchReplicaSpecs",
       "pytorchReplicaSpec", "'pytorchReplicaSpec' was unexpected"},
      {"PyTorchJobVolumeMount", kErdmaTwoNodes, "ack", "pytorchjob.yaml",
       "mountPath:", "mountpath:", "'mountpath' was unexpected"},
      {"DeploymentPort", kServing, "ack", "serving.yaml",
       "containerPort:", "containerport:", "'containerport' was unexpected"},
      {"HpaTarget", kServing, "ack", "serving.yaml",
       "averageValue:", "averagevalue:", "'averagevalue' was unexpected"},
      {"DlcPodCount", kErdmaTwoNodes, "pai-dlc", "dlc-job.json", "\"PodCount\"", "\"PodsCount\"",
       "'PodsCount' was unexpected"},
      {"DlcRdmaSetting", kErdmaTwoNodes, "pai-dlc", "dlc-job.json", "\"EnableRDMA\"",
       "\"EnableRdma\"", "'EnableRdma' was unexpected"},
      {"DlcSpotStrategy", kLoraSpot, "pai-dlc", "dlc-job.json", "\"SpotWithPriceLimit\"",
       "\"SpotAsPriceGo\"", "'SpotAsPriceGo' is not one of ['SpotWithPriceLimit']"},
      {"EasScaleStrategies", kServing, "pai-eas", "eas-service.json", "\"scaleStrategies\"",
       "\"scaleStrategy\"", "'scaleStrategy' was unexpected"},
      {"EasMetricName", kServing, "pai-eas", "eas-service.json", "\"qps\"", "\"QPS\"",
       "'QPS' is not one of ['qps', 'cpu']"},
  };
  for (const Misspelling& c : kCases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    const std::string out = dir.path() + "/out";
    const testing::CliRun run = Deploy(c.args, c.target, out);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::string text = *io::ReadFile(out + "/" + c.file);
    const size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    const std::string path = dir.path() + "/" + c.file;
    ASSERT_TRUE(io::WriteFileAtomic(path, text).ok());
    int status = 0;
    const std::string report = RunShell(CheckerFor(c.file, path), &status);
    EXPECT_EQ(status, 1) << report;
    EXPECT_NE(report.find(c.expected), std::string::npos) << report;
  }
}

// What deploy refuses for a target, with the flag named and what it expects.
TEST(DeployTargets, RefusesWhatATargetDoesNotRun) {
  const struct {
    std::string name;
    std::vector<std::string> args;
    std::string target;
    int exit_code;
    std::string expected;
  } kCases[] = {
      {"UnknownTarget", kServing, "eks", 2,
       "--target \"eks\": expected one of ecs, ack, pai-dlc, pai-eas"},
      {"DlcServing", kServing, "pai-dlc", 1, "--target pai-dlc: PAI-DLC runs training jobs"},
      {"EasTraining", kLoraSpot, "pai-eas", 1, "--target pai-eas: PAI-EAS serves a model"},
      {"AckBatchInference",
       {"--model", "llama-3-8b", "--task", "inference", "--samples", "10000", "--billing", "payg"},
       "ack",
       1,
       "--target ack: writes a PyTorchJob for training or a Deployment for a service"},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args = c.args;
    args.push_back("--dry-run");
    const testing::CliRun run = Deploy(args, c.target, "");
    EXPECT_EQ(run.exit_code, c.exit_code) << run.err;
    EXPECT_NE(run.err.find(c.expected), std::string::npos) << run.err;
  }
}

// --target ecs is the default: the same files as without the flag.
TEST(DeployTargets, EcsIsTheDefault) {
  std::vector<std::string> args = kLoraSpot;
  args.push_back("--dry-run");
  const testing::CliRun with_flag = Deploy(args, "ecs", "");
  args.insert(args.begin(), "deploy");
  cli::CliEnvironment env = testing::TestEnvironment();
  env.today = "2026-12-03";
  const testing::CliRun without = testing::RunGpuplan(args, env);
  ASSERT_EQ(with_flag.exit_code, 0) << with_flag.err;
  EXPECT_EQ(with_flag.out, without.out);
  EXPECT_NE(without.out.find("run-instances.sh <=="), std::string::npos);
}

// A service planned with an FP8 KV cache is served with one: the engine command in ACK's
// serving.yaml and PAI-EAS's service file carries vLLM's --kv-cache-dtype fp8, and a plan at the
// default (16-bit) cache does not.
TEST(DeployTargetsTest, AnFp8KvCacheReachesTheEngineCommand) {
  struct Case {
    std::string name, target, file;
  };
  const Case kCases[] = {{"ack", "ack", "serving.yaml"}, {"eas", "pai-eas", "eas-service.json"}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    std::vector<std::string> fp8 = kServing;
    fp8.insert(fp8.end(), {"--kv-cache-dtype", "fp8"});
    ASSERT_EQ(Deploy(fp8, c.target, dir.path() + "/fp8").exit_code, 0);
    ASSERT_EQ(Deploy(kServing, c.target, dir.path() + "/auto").exit_code, 0);
    const std::string with = *io::ReadFile(dir.path() + "/fp8/" + c.file);
    const std::string without = *io::ReadFile(dir.path() + "/auto/" + c.file);
    EXPECT_NE(with.find("--kv-cache-dtype"), std::string::npos) << with;
    EXPECT_EQ(without.find("--kv-cache-dtype"), std::string::npos) << without;
  }
}

}  // namespace
}  // namespace gpuplan
