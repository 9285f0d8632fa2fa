// The rules, the planner's filter and the provisioning choice read hardware facts from the
// catalog (gpus.csv columns, architectures.csv rows), never from a GPU's name.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gpuplan/estimate.h"
#include "gpuplan/plan.h"
#include "gpuplan/provision.h"
#include "gpuplan/rules.h"
#include "io/catalog_loader.h"
#include "io/workload_yaml.h"
#include "testing/embedded_calibration.h"

namespace gpuplan {
namespace {

// A made-up GPU whose name tells nothing about what it is for.
Gpu MadeUpGpu(const std::string& name, bool compute_only, bool inference_only) {
  Gpu g;
  g.name = name;
  g.architecture = "Hopper";
  g.compute_capability = "9.0";
  g.memory_gib = 24;
  g.memory_bandwidth_gbs = 300;
  g.tflops[static_cast<int>(Precision::kFp32)] = 30;
  g.tflops[static_cast<int>(Precision::kFp16)] = 120;
  g.tflops[static_cast<int>(Precision::kBf16)] = 120;
  g.pcie_gen = 4;
  g.compute_only = compute_only;
  g.inference_only = inference_only;
  return g;
}

Architecture MadeUpArchitecture(std::optional<int> newest_cuda_major) {
  Architecture a;
  a.compute_capability = "9.0";
  a.architecture = "Hopper";
  a.min_driver = ">= 535";
  a.cuda = "12.x";
  a.framework = "PyTorch 2.x";
  a.image_note = "Hopper (sm_90)";
  a.newest_cuda_major = newest_cuda_major;
  a.reference_nic_gbps = 400;
  return a;
}

// One GPU, one family and one single-GPU instance type of it, in memory.
Catalog OneGpuCatalog(const Gpu& g, const std::string& family) {
  Catalog c;
  c.gpus.push_back(g);
  Family f;
  f.name = family;
  f.gpu = g.name;
  f.kind = "gpu";
  c.families.push_back(f);
  InstanceType t;
  t.name = "ecs." + family + ".4xlarge";
  t.family = family;
  t.gpu = g.name;
  t.gpu_count = 1;
  t.gpu_memory_gib = g.memory_gib;
  t.vcpu = 16;
  t.memory_gib = 64;
  t.network_gbps = 10;
  c.instances.push_back(t);
  c.architectures.push_back(MadeUpArchitecture(std::nullopt));
  return c;
}

bool HasRule(const std::vector<rules::Advice>& advice, const std::string& rule) {
  return std::any_of(advice.begin(), advice.end(),
                     [&](const rules::Advice& a) { return a.rule == rule; });
}

TEST(HardwareFactsTest, InferenceCardRuleReadsTheColumnNotTheName) {
  struct Case {
    const char* name;
    Gpu gpu;
    bool want_warning;
  };
  const Case kCases[] = {
      {"made_up_inference_card", MadeUpGpu("ZX-1", false, true), true},
      {"made_up_training_card", MadeUpGpu("ZX-2", false, false), false},
      // A name that once decided it (T4 prefix) means nothing without the column.
      {"telling_name_without_the_column", MadeUpGpu("T4-lookalike", false, false), false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const Catalog catalog = OneGpuCatalog(c.gpu, "zx");
    Workload w;
    w.task = Task::kFinetune;
    w.method = Method::kLora;
    rules::Context ctx;
    ctx.workload = &w;
    ctx.calibration = &testing::EmbeddedCalibration();
    ctx.instance = &catalog.instances[0];
    ctx.gpu = catalog.FindGpu(c.gpu.name);
    ctx.architecture = catalog.ArchitectureOf(*ctx.gpu);
    ASSERT_NE(ctx.gpu, nullptr);
    const std::vector<rules::Advice> advice = rules::Check(ctx);
    EXPECT_EQ(HasRule(advice, "inference-gpu-for-training"), c.want_warning);
    if (c.want_warning) {
      const auto it = std::find_if(advice.begin(), advice.end(), [](const rules::Advice& a) {
        return a.rule == "inference-gpu-for-training";
      });
      EXPECT_EQ(
          it->message.rfind(c.gpu.name + " is an inference card (120 FP16 TFLOPS, 300 GB/s", 0), 0u)
          << it->message;
    }
    // Serving on an inference card is what it is for: no warning.
    w.task = Task::kInference;
    EXPECT_FALSE(HasRule(rules::Check(ctx), "inference-gpu-for-training"));
  }
}

TEST(HardwareFactsTest, CudaSupportRuleReadsTheArchitectureRow) {
  struct Case {
    const char* name;
    std::optional<int> newest_cuda_major;
    bool have_row;
    const char* want;  // "" = no legacy warning
  };
  const Case kCases[] = {
      {"dropped_by_cuda_13", 12, true,
       "ZX-1 (Hopper, sm_90) is dropped by CUDA 13; stay on CUDA 12.x images and framework builds "
       "for it, and expect no BF16, FP8 or FlashAttention 2"},
      {"dropped_by_cuda_14", 13, true,
       "ZX-1 (Hopper, sm_90) is dropped by CUDA 14; stay on CUDA 13.x"},
      {"still_supported", std::nullopt, true, ""},
      {"no_row_is_unknown", 12, false, ""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const Gpu g = MadeUpGpu("ZX-1", false, false);
    const Architecture a = MadeUpArchitecture(c.newest_cuda_major);
    const Catalog catalog = OneGpuCatalog(g, "zx");
    Workload w;
    w.task = Task::kInference;
    rules::Context ctx;
    ctx.workload = &w;
    ctx.calibration = &testing::EmbeddedCalibration();
    ctx.instance = &catalog.instances[0];
    ctx.gpu = &catalog.gpus[0];
    ctx.architecture = c.have_row ? &a : nullptr;
    const std::vector<rules::Advice> advice = rules::Check(ctx);
    const auto it = std::find_if(advice.begin(), advice.end(), [](const rules::Advice& x) {
      return x.rule == "legacy-gpu-cuda-support";
    });
    if (std::string(c.want).empty()) {
      EXPECT_EQ(it, advice.end());
    } else {
      ASSERT_NE(it, advice.end());
      EXPECT_EQ(it->message.rfind(c.want, 0), 0u) << it->message;
    }
  }
}

TEST(HardwareFactsTest, RenderingFilterReadsTheComputeOnlyColumn) {
  struct Case {
    const char* name;
    Gpu gpu;
    bool want_rejected_for_graphics;
  };
  const Case kCases[] = {
      {"made_up_compute_only", MadeUpGpu("ZX-1", true, false), true},
      {"made_up_graphics_card", MadeUpGpu("ZX-2", false, false), false},
      // "H" once meant compute-only by name.
      {"h_named_graphics_card", MadeUpGpu("HX-3", false, false), false},
  };
  Result<Workload> w = io::ParseWorkloadYaml("task: rendering\nprecision: fp32\n", "t.yaml");
  ASSERT_TRUE(w.ok()) << w.status().message();
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Catalog catalog = OneGpuCatalog(c.gpu, "zx");
    for (const CatalogIssue& issue : catalog.Validate()) {
      ASSERT_FALSE(issue.error) << issue.message;
    }
    Result<planner::Plan> plan =
        planner::MakePlan(*w, ModelArch{}, catalog, testing::EmbeddedCalibration(), {});
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    const auto it =
        std::find_if(plan->rejected.begin(), plan->rejected.end(),
                     [](const planner::Rejection& r) { return r.instance == "ecs.zx.4xlarge"; });
    const bool graphics =
        it != plan->rejected.end() &&
        it->reason.find("compute GPU without graphics API support") != std::string::npos;
    EXPECT_EQ(graphics, c.want_rejected_for_graphics)
        << (it == plan->rejected.end() ? "not rejected" : it->reason);
  }
}

TEST(HardwareFactsTest, SubscriptionAdviceReadsThePriceRatios) {
  struct Case {
    const char* name;
    double ratio, hours_per_month, job_hours;
    const char* want;  // "" = no advice
  };
  const Case kCases[] = {
      {"below_break_even", 0.66, 730, 481, ""},
      {"above_break_even", 0.66, 730, 483,
       "running 483 h: above about 66% utilisation (482 h a month) a monthly subscription beats "
       "pay-as-you-go (list prices: subscription = 0.66 x 730 h PAYG)"},
      {"other_ratios", 0.5, 720, 400,
       "running 400 h: above about 50% utilisation (360 h a month) a monthly subscription beats "
       "pay-as-you-go (list prices: subscription = 0.5 x 720 h PAYG)"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const Catalog catalog = OneGpuCatalog(MadeUpGpu("ZX-1", false, false), "zx");
    Workload w;
    w.task = Task::kInference;
    cost::PriceRatios ratios;
    ratios.subscription_month_vs_payg = c.ratio;
    ratios.hours_per_month = c.hours_per_month;
    rules::Context ctx;
    ctx.workload = &w;
    ctx.calibration = &testing::EmbeddedCalibration();
    ctx.instance = &catalog.instances[0];
    ctx.gpu = &catalog.gpus[0];
    ctx.ratios = &ratios;
    ctx.job_hours = c.job_hours;
    const std::vector<rules::Advice> advice = rules::Check(ctx);
    const auto it = std::find_if(advice.begin(), advice.end(), [](const rules::Advice& a) {
      return a.rule == "long-running-subscription";
    });
    if (std::string(c.want).empty()) {
      EXPECT_EQ(it, advice.end());
    } else {
      ASSERT_NE(it, advice.end());
      EXPECT_EQ(it->message.rfind(c.want, 0), 0u) << it->message;
    }
  }
}

// A reference cluster's cross-node network is the architecture row's NIC per GPU.
TEST(HardwareFactsTest, ReferenceClusterNetworkComesFromTheArchitectureRow) {
  Result<Catalog> catalog = io::LoadCatalog("");
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  struct Case {
    const char* gpu;
    double want_gbps;  // per node of 8
  };
  const Case kCases[] = {
      {"A100-80G-SXM", 8 * 200},
      {"H100-80G-SXM", 8 * 400},
      {"B200-180G", 8 * 400},
      {"V100-16G-SXM2", 8 * 100},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.gpu);
    const Gpu* g = catalog->FindGpu(c.gpu);
    ASSERT_NE(g, nullptr);
    const perf::Hardware hw = perf::HardwareFor(*g, 16, 8, catalog->ArchitectureOf(*g));
    EXPECT_EQ(hw.nodes, 2);
    EXPECT_DOUBLE_EQ(hw.inter_node_gbps, c.want_gbps);
    EXPECT_TRUE(hw.rdma);
    // Without the row the network is unknown, not guessed.
    const perf::Hardware unknown = perf::HardwareFor(*g, 16, 8);
    EXPECT_DOUBLE_EQ(unknown.inter_node_gbps, 0);
    EXPECT_FALSE(unknown.rdma);
  }
}

// The image section of a plan comes from the architectures.csv row of the GPU's compute
// capability: B200 is sm_100 (not the workstation Blackwell's sm_120).
TEST(HardwareFactsTest, ProvisioningTakesDriverAndCudaFromTheTable) {
  Result<Catalog> catalog = io::LoadCatalog("");
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  InstanceType x86;
  x86.family = "gn8is";
  struct Case {
    const char* gpu;
    const char* driver;
    const char* cuda;
    const char* framework;
    const char* why;
  };
  const Case kCases[] = {
      {"B200-180G", ">= 570", "12.8 or newer", "PyTorch >= 2.7 (cu128 wheels)",
       "Blackwell (sm_100) needs CUDA 12.8+; older wheels lack its kernels"},
      {"BW-PRO-48G", ">= 570", "12.8 or newer", "PyTorch >= 2.7 (cu128 wheels)",
       "Blackwell (sm_120) needs CUDA 12.8+; older wheels lack its kernels"},
      {"H20-96G", ">= 535", "12.4 or newer (FP8 needs 12.1+ and Transformer Engine)",
       "PyTorch >= 2.4", "Hopper (sm_90) runs best on CUDA 12 with FlashAttention 2/3 and FP8"},
      {"L20-48G", ">= 535", "12.x", "PyTorch >= 2.1", "Ada (sm_89) FP8 needs CUDA 12.1+"},
      {"A10-24G", ">= 535", "12.x", "PyTorch 2.x",
       "Ampere is supported by every current CUDA 12 and 13 release"},
      {"V100-16G-SXM2", "535 or 550 branch", "12.x (CUDA 13 dropped Volta)",
       "PyTorch 2.x cu12x builds that still include sm_70",
       "Volta is a legacy architecture: pin CUDA 12 images"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.gpu);
    const Gpu* g = catalog->FindGpu(c.gpu);
    ASSERT_NE(g, nullptr);
    const planner::ImagePlan img = planner::ChooseImage(catalog->ArchitectureOf(*g), *g, x86);
    EXPECT_EQ(img.driver, c.driver);
    EXPECT_EQ(img.cuda, c.cuda);
    EXPECT_EQ(img.framework, c.framework);
    EXPECT_EQ(img.why, c.why);
  }
  // No row: unknown, and where to find it.
  const Gpu unknown = MadeUpGpu("ZX-9", false, false);
  const planner::ImagePlan img = planner::ChooseImage(nullptr, unknown, x86);
  EXPECT_EQ(img.driver, "unknown");
  EXPECT_EQ(img.cuda, "unknown");
  EXPECT_NE(img.why.find("compute capability 9.0"), std::string::npos) << img.why;
  EXPECT_NE(img.why.find("developer.nvidia.com/cuda-gpus"), std::string::npos) << img.why;
}

}  // namespace
}  // namespace gpuplan
