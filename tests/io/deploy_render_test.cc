// io::RenderDeploy: the provisioning files of a candidate, from hand-built candidates (so the
// golden files do not move with the performance model), checked for what a user relies on: the
// right RunInstances parameters, valid bash, YAML and HCL, placeholders instead of invented ids.
#include "io/deploy_render.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/plan.h"
#include "gpuplan/provision.h"
#include "io/catalog_loader.h"
#include "testing/cli_runner.h"
#include "testing/deploy_checks.h"

namespace gpuplan::io {
namespace {

using testing::CheckDeployFiles;
using testing::Squeeze;

const Catalog& TheCatalog() {
  static const Catalog* catalog = new Catalog(*LoadCatalog(""));
  return *catalog;
}

struct CandidateSpec {
  std::string instance;
  cost::Mode billing = cost::Mode::kPayg;
  int nodes = 1;
  std::string storage;  // StoragePlan::kind
  double storage_gib = 0;
  double job_hours = 10;
  double price = 10;  // per hour (per month for subscriptions)
  double total = 100;
  bool serving = false;  // an inference service (nodes are replicas) instead of training
  // Replaces the type's data/eri.csv row (nullopt = the catalog's): reaches the ERI branches
  // that no catalog type takes today (queue pairs documented).
  std::optional<EriAttachment> eri = std::nullopt;
};

// An ERI attachment as data/eri.csv would give it, with the queue pairs documented.
EriAttachment DocumentedEri(int eris, int network_cards, int queue_pairs) {
  EriAttachment e;
  e.eri_quantity = eris;
  e.network_cards = network_cards;
  e.queue_pairs = queue_pairs;
  return e;
}

// The candidate's instance type as the case wants it.
InstanceType TypeOf(const CandidateSpec& s) {
  InstanceType t = *TheCatalog().FindInstance(s.instance);
  if (s.eri)
    t.eri = s.eri;
  return t;
}

// `options` with the generation of the case's family (data/families.csv), as `deploy` sets it.
DeployOptions WithGeneration(DeployOptions options, const CandidateSpec& s) {
  if (const Family* f = TheCatalog().FindFamily(TypeOf(s).family))
    options.generation = f->generation;
  return options;
}

// A candidate as the planner would fill it, with round numbers.
planner::Candidate MakeCandidate(const CandidateSpec& s) {
  const InstanceType* t = TheCatalog().FindInstance(s.instance);
  EXPECT_NE(t, nullptr) << s.instance;
  const Gpu& g = TheCatalog().GpuOf(*t);
  planner::Candidate c;
  c.instance = t->name;
  c.family = t->family;
  c.gpu = g.name;
  c.region = "cn-hangzhou";
  c.nodes = s.nodes;
  c.gpus = s.nodes * t->whole_gpus();
  c.billing = s.billing;
  c.job_hours = s.job_hours;
  c.cost.mode = s.billing;
  c.cost.total = Money::Cny(s.total);
  c.cost.price.price = Money::Cny(s.price);
  c.cost.price.unit = s.billing == cost::Mode::kSubscriptionMonth ? "month" : "hour";
  c.cost.price.as_of = "2024-12-30";
  c.cost.price.trust = "medium";
  c.cost.notes = {"a note from the cost model"};
  c.estimate.memory.per_gpu_gib = 18;
  c.estimate.memory.capacity_gib = 22;
  c.layout.dp = c.gpus;
  c.estimate.throughput.mfu = 0.45;
  c.storage.kind = s.storage;
  c.storage.size_gib = s.storage_gib;
  c.storage.why = "because the test says so";
  c.image = planner::ChooseImage(TheCatalog().ArchitectureOf(g), g, *t);
  return c;
}

Workload ServingWorkload() {
  Workload w;
  w.task = Task::kInference;
  w.model_name = "qwen2.5-7b";
  w.inference.requests_per_s = 20;
  return w;
}

Workload TrainingWorkload() {
  Workload w;
  w.task = Task::kFinetune;
  w.method = Method::kLora;
  w.model_name = "llama-2-7b";
  return w;
}

struct Case {
  std::string name;
  CandidateSpec candidate;
  DeployOptions options;
  std::vector<std::string> script_has;  // in run-instances.sh (whitespace squeezed)
  std::vector<std::string> script_lacks;
  std::vector<std::string> terraform_has;   // in main.tf (whitespace squeezed)
  std::vector<std::string> cloud_init_has;  // in cloud-init.yaml
  std::vector<std::string> cloud_init_lacks;
  std::vector<std::string> readme_has;
};

std::vector<Case> Cases() {
  DeployOptions today;
  today.today = "2026-11-30";
  today.rank = 1;
  DeployOptions limit = today;
  limit.spot_price_limit = 12.5;  // above the candidate's CNY 10/h
  limit.checkpoint_command = "kill -USR1 \"$(pgrep -f train.py)\"";
  return {
      {.name = "payg_single_node",
       .candidate = {.instance = "ecs.gn7i-c8g1.2xlarge",
                     .storage = "essd_pl1",
                     .storage_gib = 200},
       .options = today,
       .script_has = {"--InstanceChargeType PostPaid", "INSTANCE_TYPE='ecs.gn7i-c8g1.2xlarge'",
                      "AMOUNT=1", "REGION_ID='cn-hangzhou'", "--SystemDisk.Category cloud_essd",
                      "--DataDisk.1.Size 200", "--DataDisk.1.PerformanceLevel PL1",
                      "VSWITCH_ID=\"${VSWITCH_ID:-FILL-ME}\"",
                      "KEY_PAIR_NAME=\"${KEY_PAIR_NAME:-FILL-ME}\"", "command -v aliyun", "--yes",
                      "driver >= 535"},
       .script_lacks = {"--SpotStrategy", "--MinAmount", "--Period", "eRDMA"},
       .terraform_has = {"count = 1", "instance_charge_type = \"PostPaid\"",
                         "performance_level = \"PL1\"", "size = 200", "variable \"vswitch_id\"",
                         "system_disk_category = \"cloud_essd\""},
       .cloud_init_has = {"GPUPLAN_DATA_DISK_GIB=200", "GPUPLAN_MIN_DRIVER='535'",
                          "mount_data_disk", "gpuplan-firstboot.path", "ALLOW_INSTALL=yes",
                          "RemainAfterExit=yes", "nvidia-driver-$GPUPLAN_DRIVER_BRANCH-server"},
       .cloud_init_lacks = {"watch-spot", "infiniband"},
       .readme_has = {"## What was chosen and why", "## Cost estimate", "CNY 100.00 for 10 h",
                      "## Steps", "gpuplan probe", "candidate #1"}},
      {.name = "spot",
       .candidate = {.instance = "ecs.gn7i-c8g1.2xlarge",
                     .billing = cost::Mode::kSpot,
                     .storage = "essd_pl1",
                     .storage_gib = 100},
       .options = today,
       .script_has = {"--SpotStrategy SpotAsPriceGo", "--SpotDuration 1",
                      "--SpotInterruptionBehavior Terminate", "--InstanceChargeType PostPaid",
                      "--DataDisk.1.DeleteWithInstance false"},
       .script_lacks = {"--SpotPriceLimit"},
       .terraform_has = {"spot_strategy = \"SpotAsPriceGo\"", "spot_duration = 1",
                         "delete_with_instance = false"},
       .cloud_init_has = {"gpuplan watch-spot --exec /etc/gpuplan/checkpoint.sh",
                          "FILL-ME: replace this line with your checkpoint command",
                          "systemctl start --no-block gpuplan-watch-spot.service"},
       .cloud_init_lacks = {},
       .readme_has = {"/etc/gpuplan/checkpoint.sh", "--checkpoint-command",
                      "the data disk is kept (`DeleteWithInstance=false`)"}},
      {.name = "spot_price_limit",
       .candidate = {.instance = "ecs.gn7i-c8g1.2xlarge",
                     .billing = cost::Mode::kSpot,
                     .storage = "essd_pl1",
                     .storage_gib = 100},
       .options = limit,
       .script_has = {"--SpotStrategy SpotWithPriceLimit", "--SpotPriceLimit 12.500"},
       .script_lacks = {"SpotAsPriceGo"},
       .terraform_has = {"spot_price_limit = 12.500"},
       .cloud_init_has = {"kill -USR1 \"$(pgrep -f train.py)\""},
       .cloud_init_lacks = {"replace this line"},
       .readme_has = {"at most CNY 12.500 per instance-hour",
                      "billing currency: CNY on the China site"}},
      {.name = "subscription",
       .candidate = {.instance = "ecs.gn7i-c8g1.2xlarge",
                     .billing = cost::Mode::kSubscriptionMonth,
                     .storage = "essd_pl2",
                     .storage_gib = 600,
                     .job_hours = 1000,
                     .price = 3000,
                     .total = 6000},
       .options = today,
       .script_has = {"--InstanceChargeType PrePaid", "--Period 2", "--PeriodUnit Month",
                      "--AutoRenew false", "--DataDisk.1.PerformanceLevel PL2", "paid up front"},
       .script_lacks = {"--SpotStrategy", "PostPaid"},
       .terraform_has = {"instance_charge_type = \"PrePaid\"", "period = 2",
                         "period_unit = \"Month\""},
       .cloud_init_has = {},
       .cloud_init_lacks = {"watch-spot"},
       .readme_has = {"subscription, 2 month(s) paid up front", "auto-renew is off"}},
      {.name = "subscription_period_rounds_up",
       .candidate = {.instance = "ecs.gn7i-c8g1.2xlarge",
                     .billing = cost::Mode::kSubscriptionMonth,
                     .storage = "essd_pl1",
                     .storage_gib = 100,
                     .job_hours = 7000,
                     .price = 3000,
                     .total = 30000},
       .options = today,
       .script_has = {"--Period 12"},
       .script_lacks = {"--Period 10"},
       .terraform_has = {"period = 12"},
       .cloud_init_has = {},
       .cloud_init_lacks = {},
       .readme_has = {"the plan needs 10 month(s)", "so this buys 12"}},
      {.name = "multi_node_erdma",
       .candidate = {.instance = "ecs.ebmgn7ex.32xlarge",
                     .billing = cost::Mode::kPayg,
                     .nodes = 2,
                     .storage = "cpfs",
                     .storage_gib = 2048},
       .options = today,
       .script_has = {"AMOUNT=2", "--MinAmount \"$AMOUNT\"",
                      "--NetworkInterface.1.InstanceType Primary",
                      "--NetworkInterface.1.VSwitchId \"$VSWITCH_ID\"",
                      "--NetworkInterface.1.NetworkInterfaceTrafficMode HighPerformance",
                      "--NetworkInterface.1.NetworkCardIndex 0",
                      "--NetworkInterface.2.InstanceType Secondary",
                      "--NetworkInterface.2.NetworkCardIndex 1",
                      "--NetworkInterface.2.QueuePairNumber \"$QUEUE_PAIRS_PER_ERI\"",
                      "aliyun ecs DescribeInstanceTypes", "--UniqueSuffix true"},
       // With ERIs the VSwitch and security group live in NetworkInterface.1 only.
       .script_lacks = {"--DataDisk", " --VSwitchId ", " --SecurityGroupId "},
       .terraform_has = {"count = 2", "instance_name = \"gpuplan-ebmgn7ex-${count.index}\"",
                         "version = \">= 1.227.1\"",
                         "network_interface_traffic_mode = \"HighPerformance\"",
                         "network_interfaces {", "network_card_index = 1",
                         "queue_pair_number = var.queue_pairs_per_eri"},
       .cloud_init_has = {"GPUPLAN_NFS_EXPORT='FILL-ME'", "mount -t nfs", "noresvport",
                          "_netdev,nofail", "/sys/class/infiniband", "env_setup.sh --egs",
                          "GPUPLAN_ERDMA_MTU=1400", "GPUPLAN_ERIS=2", "GPUPLAN_GENERATION=7",
                          "GPUPLAN_ASSUMED_GBPS=128", "gpuplan-net.service", "ib_write_bw",
                          "GPUPLAN_GPUS_PER_NODE=8"},
       .cloud_init_lacks = {"mount_data_disk"},
       .readme_has = {"Create the CPFS file system", "eRDMA (160 Gbit/s)",
                      "2 elastic RDMA interface(s)", "China-site accounts",
                      "jumbo frames exist only from the 8th generation"}},
      {.name = "multi_node_tcp_local_nvme",
       .candidate = {.instance = "ecs.gn5-c8g1.8xlarge",
                     .nodes = 2,
                     .storage = "local_nvme",
                     .storage_gib = 0},
       .options = today,
       .script_has = {"AMOUNT=2", "--MinAmount"},
       .script_lacks = {"--DataDisk", "eRDMA"},
       .terraform_has = {"count = 2"},
       .cloud_init_has = {"/mnt/local$n", "has no eRDMA", "GPUPLAN_GPUS_PER_NODE=4",
                          "GPUPLAN_MIN_DRIVER='535'"},
       .cloud_init_lacks = {"infiniband", "GPUPLAN_NFS_EXPORT"},
       .readme_has = {"local NVMe", "TCP over the VPC"}},
      {.name = "multi_node_spot_erdma_undocumented",
       .candidate = {.instance = "ecs.ebmgn8v.48xlarge",
                     .billing = cost::Mode::kSpot,
                     .nodes = 2,
                     .storage = "essd_pl2",
                     .storage_gib = 500},
       .options = limit,
       .script_has = {"--NetworkInterface.1.InstanceType Primary", "--SpotPriceLimit 12.500",
                      "gpuplan's sources do not say how many ERIs"},
       .script_lacks = {"QUEUE_PAIRS_PER_ERI", "--NetworkInterface.2."},
       .terraform_has = {"spot_price_limit = 12.500", "delete_with_instance = false"},
       .cloud_init_has = {"GPUPLAN_ERIS=1", "GPUPLAN_GENERATION=8", "mount_data_disk",
                          "kill -USR1"},
       .cloud_init_lacks = {"GPUPLAN_NFS_EXPORT"},
       .readme_has = {"gpuplan's sources do not say how many ERIs"}},
      {.name = "multi_node_erdma_queue_pairs_documented",
       .candidate = {.instance = "ecs.ebmgn7ex.32xlarge",
                     .nodes = 4,
                     .storage = "nas",
                     .storage_gib = 300,
                     .eri = DocumentedEri(4, 2, 64)},
       .options = today,
       .script_has = {"QUEUE_PAIRS_PER_ERI=\"${QUEUE_PAIRS_PER_ERI:-16}\"",
                      "--NetworkInterface.4.NetworkCardIndex 1"},
       .script_lacks = {"ERI_COUNT", "DescribeInstanceTypes"},
       .terraform_has = {"default = 16", "network_card_index = 1"},
       .cloud_init_has = {"GPUPLAN_ERIS=4", "mount -t nfs"},
       .cloud_init_lacks = {"mount_data_disk"},
       .readme_has = {"Create the NAS file system", "4 elastic RDMA interface(s)"}},
      {.name = "inference_replicas",
       .candidate = {.instance = "ecs.ebmgn7ex.32xlarge",
                     .nodes = 3,
                     .storage = "oss",
                     .storage_gib = 0,
                     .serving = true},
       .options = today,
       .script_has = {"AMOUNT=3", "--InstanceChargeType PostPaid"},
       .script_lacks = {"--MinAmount", "eRDMA", "all traffic between members", "--DataDisk"},
       .terraform_has = {"count = 3"},
       .cloud_init_has = {"nothing to mount"},
       .cloud_init_lacks = {"infiniband", "Network between the nodes"},
       .readme_has = {"3 independent replicas", "load balancer"}},
  };
}

std::string Joined(const DeployFiles& files) {
  std::string s;
  for (const auto& [name, text] : files)
    s += "==> " + name + " <==\n" + text + "\n";
  return s;
}

TEST(DeployRenderTest, RendersEachBillingModeAndLayout) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const planner::Candidate cand = MakeCandidate(c.candidate);
    const InstanceType type = TypeOf(c.candidate);
    Result<DeployFiles> files =
        RenderDeploy(c.candidate.serving ? ServingWorkload() : TrainingWorkload(), cand, type,
                     WithGeneration(c.options, c.candidate));
    ASSERT_TRUE(files.ok()) << files.status().message();
    ASSERT_EQ(files->size(), 4u);
    const std::string script = Squeeze(files->at("run-instances.sh"));
    const std::string tf = Squeeze(files->at("main.tf"));
    const std::string& ci = files->at("cloud-init.yaml");
    const std::string& readme = files->at("README.md");
    for (const std::string& s : c.script_has)
      EXPECT_NE(script.find(s), std::string::npos) << s;
    for (const std::string& s : c.script_lacks)
      EXPECT_EQ(script.find(s), std::string::npos) << s;
    for (const std::string& s : c.terraform_has)
      EXPECT_NE(tf.find(s), std::string::npos) << s;
    for (const std::string& s : c.cloud_init_has)
      EXPECT_NE(ci.find(s), std::string::npos) << s;
    for (const std::string& s : c.cloud_init_lacks)
      EXPECT_EQ(ci.find(s), std::string::npos) << s;
    for (const std::string& s : c.readme_has)
      EXPECT_NE(readme.find(s), std::string::npos) << s;
    CheckDeployFiles(*files);
  }
}

// Every case byte for byte: the files are rendered from data/deploy/*.tmpl, and a template edit
// must show here as a reviewed golden diff.
TEST(DeployRenderTest, MatchesGoldenFiles) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const planner::Candidate cand = MakeCandidate(c.candidate);
    Result<DeployFiles> files =
        RenderDeploy(c.candidate.serving ? ServingWorkload() : TrainingWorkload(), cand,
                     TypeOf(c.candidate), WithGeneration(c.options, c.candidate));
    ASSERT_TRUE(files.ok()) << files.status().message();
    testing::ExpectGolden("deploy_" + c.name + ".txt", Joined(*files));
  }
}

// The shell scripts of every case, as rendered from the data/deploy/ templates (each case takes
// other template sections: ESSD, local NVMe, NFS, eRDMA, TCP, spot, the queue-pair lookup), pass
// shellcheck: run-instances.sh and every script cloud-init.yaml writes.
TEST(DeployRenderTest, ScriptsOfEveryCasePassShellcheck) {
  if (std::system("command -v shellcheck >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "shellcheck is not installed (Debian package shellcheck)";
  char tmpl[] = "/tmp/gpuplan-shellcheck-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    Result<DeployFiles> files = RenderDeploy(
        c.candidate.serving ? ServingWorkload() : TrainingWorkload(), MakeCandidate(c.candidate),
        TypeOf(c.candidate), WithGeneration(c.options, c.candidate));
    ASSERT_TRUE(files.ok()) << files.status().message();
    std::vector<std::pair<std::string, std::string>> scripts = {
        {"run-instances.sh", files->at("run-instances.sh")}};
    for (const YAML::Node& f : YAML::Load(files->at("cloud-init.yaml"))["write_files"]) {
      const std::string content = f["content"].as<std::string>();
      if (content.rfind("#!", 0) == 0) {
        std::string name = f["path"].as<std::string>();
        scripts.push_back({name.substr(name.rfind('/') + 1), content});
      }
    }
    ASSERT_GE(scripts.size(), 3u) << "run-instances.sh, setup.sh and firstboot.sh at least";
    std::string paths;
    for (const auto& [name, text] : scripts) {
      const std::string path = dir + "/" + c.name + "-" + name;
      std::ofstream(path) << text;
      paths += " '" + path + "'";
    }
    const std::string report = dir + "/" + c.name + ".shellcheck";
    const int status =
        std::system(("shellcheck -S warning" + paths + " >'" + report + "' 2>&1").c_str());
    std::ifstream in(report);
    const std::string complaints((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(status, 0) << complaints;
  }
  std::filesystem::remove_all(dir);
}

TEST(DeployRenderTest, RefusesWhatCannotBeRenderedSafely) {
  struct ErrorCase {
    std::string name;
    std::string instance;  // overrides the candidate's type name
    cost::Mode billing = cost::Mode::kPayg;
    double storage_gib = 100;
    std::optional<double> spot_price_limit;
    std::string checkpoint_command;
    int nodes;
    ErrorCode code;
    std::string message;
  };
  // Every field named: -Wmissing-field-initializers.
  const ErrorCase kCases[] = {
      {.name = "shell_metacharacters_in_type",
       .instance = "ecs.gn7i;rm -rf ~",
       .billing = cost::Mode::kPayg,
       .storage_gib = 100,
       .spot_price_limit = std::nullopt,
       .checkpoint_command = "",
       .nodes = 1,
       .code = ErrorCode::kInvalidArgument,
       .message = "instance type \"ecs.gn7i;rm -rf ~\" cannot go into a script"},
      {.name = "price_limit_without_spot",
       .instance = "",
       .billing = cost::Mode::kPayg,
       .storage_gib = 100,
       .spot_price_limit = 2.0,
       .checkpoint_command = "",
       .nodes = 1,
       .code = ErrorCode::kInvalidArgument,
       .message = "a spot price limit goes with a spot candidate; this one is payg"},
      {.name = "price_limit_not_positive",
       .instance = "",
       .billing = cost::Mode::kSpot,
       .storage_gib = 100,
       .spot_price_limit = 0.0,
       .checkpoint_command = "",
       .nodes = 1,
       .code = ErrorCode::kInvalidArgument,
       .message = "spot price limit: expected a price per instance-hour > 0"},
      {.name = "essd_too_large",
       .instance = "",
       .billing = cost::Mode::kPayg,
       .storage_gib = 40000,
       .spot_price_limit = std::nullopt,
       .checkpoint_command = "",
       .nodes = 1,
       .code = ErrorCode::kUnsupported,
       .message = "one ESSD holds at most 32768 GiB"},
      {.name = "spot_limit_below_plan_price",
       .instance = "",
       .billing = cost::Mode::kSpot,
       .storage_gib = 100,
       .spot_price_limit = 2.0,
       .checkpoint_command = "",
       .nodes = 1,
       .code = ErrorCode::kInvalidArgument,
       .message = "below the plan's own spot price, CNY 10.000 per instance-hour"},
      {.name = "more_than_100_nodes",
       .instance = "",
       .billing = cost::Mode::kPayg,
       .storage_gib = 100,
       .spot_price_limit = std::nullopt,
       .checkpoint_command = "",
       .nodes = 128,
       .code = ErrorCode::kUnsupported,
       .message = "128 nodes: RunInstances creates 1-100 instances per call"},
      {.name = "control_character_in_checkpoint",
       .instance = "",
       .billing = cost::Mode::kSpot,
       .storage_gib = 100,
       .spot_price_limit = std::nullopt,
       .checkpoint_command = "save\x1b[2J",
       .nodes = 1,
       .code = ErrorCode::kInvalidArgument,
       .message = "checkpoint command: control characters"},
  };

  for (const ErrorCase& e : kCases) {
    SCOPED_TRACE(e.name);
    planner::Candidate cand = MakeCandidate({.instance = "ecs.gn7i-c8g1.2xlarge",
                                             .billing = e.billing,
                                             .nodes = e.nodes,
                                             .storage = "essd_pl1",
                                             .storage_gib = e.storage_gib});
    if (!e.instance.empty())
      cand.instance = e.instance;
    DeployOptions o;
    o.spot_price_limit = e.spot_price_limit;
    o.checkpoint_command = e.checkpoint_command;
    Result<DeployFiles> files = RenderDeploy(
        TrainingWorkload(), cand, *TheCatalog().FindInstance("ecs.gn7i-c8g1.2xlarge"), o);
    ASSERT_FALSE(files.ok());
    EXPECT_EQ(files.status().code(), e.code);
    EXPECT_NE(files.status().message().find(e.message), std::string::npos)
        << files.status().message();
  }
}

TEST(DeployRenderTest, ReadsTheImageAdviceVersionsOfEveryArchitecture) {
  struct VersionCase {
    std::string name;
    std::string driver, cuda;
    std::string want_driver, want_cuda;
  };
  const VersionCase kCases[] = {
      {"at_least", ">= 570", "12.8 or newer", "570", "12.8"},
      {"with_remark", ">= 535", "12.4 or newer (FP8 needs 12.1+ and Transformer Engine)", "535",
       "12.4"},
      {"major_only", ">= 535", "12.x", "535", "12.0"},
      {"branch", "535 or 550 branch", "12.x (CUDA 13 dropped Pascal)", "535", "12.0"},
      {"none", "any", "none", "", ""},
  };
  for (const VersionCase& v : kCases) {
    SCOPED_TRACE(v.name);
    planner::ImagePlan img;
    img.driver = v.driver;
    img.cuda = v.cuda;
    EXPECT_EQ(MinDriverVersion(img), v.want_driver);
    EXPECT_EQ(MinCudaVersion(img), v.want_cuda);
  }
  // Every GPU the catalog rents out gets a driver and CUDA floor the first-boot check can use.
  for (const InstanceType& t : TheCatalog().instances) {
    const Gpu& g = TheCatalog().GpuOf(t);
    const planner::ImagePlan img = planner::ChooseImage(TheCatalog().ArchitectureOf(g), g, t);
    SCOPED_TRACE(t.name);
    EXPECT_TRUE(std::regex_match(MinDriverVersion(img), std::regex("[0-9]{3}"))) << img.driver;
    EXPECT_TRUE(std::regex_match(MinCudaVersion(img), std::regex("1[0-9]\\.[0-9]+"))) << img.cuda;
  }
}

}  // namespace
}  // namespace gpuplan::io
