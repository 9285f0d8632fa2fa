// The serving search (src/core/serving/search.h) against brute force over the same space, on
// in-memory instance types with the shipped calibration, and the engines' memory headroom.
// What it answers on the embedded catalog: tests/plan/planner_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "serving/search.h"
#include "testing/catalog_builder.h"
#include "testing/embedded_calibration.h"
#include "testing/perf_fixtures.h"
#include "testing/serving_brute_force.h"

namespace gpuplan::serving {
namespace {

using testing::CatalogBuilder;

// The instance types of the cases, as in data/instances.csv.
const Catalog& ServingCatalog() {
  static const Catalog* c = new Catalog(
      CatalogBuilder()
          .AddGpu(testing::GpuA10())
          .AddGpu(testing::GpuA100())
          .AddGpu(testing::GpuH20())
          .AddInstance(
              {.name = "ecs.gn7i-c32g1.8xlarge", .gpu = "A10-24G", .vcpu = 32, .ram_gib = 188})
          .AddInstance({.name = "ecs.gn7i-c32g1.32xlarge",
                        .gpu = "A10-24G",
                        .gpus = 4,
                        .vcpu = 128,
                        .ram_gib = 752,
                        .network_gbps = 64})
          .AddInstance({.name = "ecs.gn7e-c16g1.8xlarge",
                        .gpu = "A100-80G-SXM",
                        .gpus = 2,
                        .vcpu = 32,
                        .ram_gib = 250,
                        .interconnect = Interconnect::kNvlink})
          .AddInstance({.name = "ecs.gn7e-c16g1.16xlarge",
                        .gpu = "A100-80G-SXM",
                        .gpus = 4,
                        .vcpu = 64,
                        .ram_gib = 500,
                        .network_gbps = 32,
                        .interconnect = Interconnect::kNvlink})
          .AddInstance(testing::Ebmgn7ex32xlarge())
          .AddInstance({.name = "ecs.gn8v-4x.8xlarge",
                        .gpu = "H20-96G",
                        .gpus = 4,
                        .vcpu = 32,
                        .ram_gib = 384,
                        .network_gbps = 20,
                        .rdma = true,
                        .interconnect = Interconnect::kNvlink})
          .Build());
  return *c;
}

ModelArch ZooModel(const std::string& name) {
  for (const ModelArch& m : {testing::Llama2_13B(), testing::Llama3_8B(), testing::Llama3_70B(),
                             testing::Qwen25_7B(), testing::Qwen3_30B_A3B()}) {
    if (m.name == name)
      return m;
  }
  ADD_FAILURE() << "no test model " << name;
  return ModelArch{};
}

struct ServingCase {
  const char* name;
  const char* model;
  const char* instance;
  double requests_per_s;
  double ttft_ms, tpot_ms;  // 0 = no target
  Engine engine;
};

TEST(ServingSearchTest, PicksTheFewestInstancesBruteForceFinds) {
  const ServingCase kCases[] = {
      {"llama3_70b_on_8xa100_issue_example", "llama-3-70b", "ecs.ebmgn7ex.32xlarge", 10, 2000, 100,
       Engine::kVllm},
      {"llama3_70b_on_4xa100", "llama-3-70b", "ecs.gn7e-c16g1.16xlarge", 10, 2000, 100,
       Engine::kVllm},
      {"qwen7b_on_4xa10_many_copies", "qwen2.5-7b", "ecs.gn7i-c32g1.32xlarge", 20, 0, 50,
       Engine::kVllm},
      {"llama3_8b_tight_tpot_on_4xh20", "llama-3-8b", "ecs.gn8v-4x.8xlarge", 30, 500, 20,
       Engine::kVllm},
      {"llama2_13b_trtllm_on_2xa100", "llama-2-13b", "ecs.gn7e-c16g1.8xlarge", 5, 1000, 60,
       Engine::kTrtllm},
      {"qwen7b_hf_static_batches_on_1xa10", "qwen2.5-7b", "ecs.gn7i-c32g1.8xlarge", 1, 0, 0,
       Engine::kHf},
      {"qwen3_moe_expert_parallel_on_4xa100", "qwen3-30b-a3b", "ecs.gn7e-c16g1.16xlarge", 40, 2000,
       50, Engine::kVllm},
      {"qwen3_moe_long_prompts_on_8xa100", "qwen3-30b-a3b", "ecs.ebmgn7ex.32xlarge", 60, 1000, 40,
       Engine::kVllm},
  };
  const Calibration& cal = testing::EmbeddedCalibration();  // data/calibration.csv's values
  for (const ServingCase& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w;
    w.task = Task::kInference;
    w.model_name = c.model;
    w.inference.requests_per_s = c.requests_per_s;
    if (c.ttft_ms > 0)
      w.inference.ttft_ms = c.ttft_ms;
    if (c.tpot_ms > 0)
      w.inference.tpot_ms = c.tpot_ms;
    w.inference.engine = c.engine;
    const ModelArch arch = ZooModel(c.model);
    const InstanceType* t = ServingCatalog().FindInstance(c.instance);
    ASSERT_NE(t, nullptr);
    Result<perf::Hardware> hw = perf::HardwareFor(ServingCatalog(), *t, 1);
    ASSERT_TRUE(hw.ok()) << hw.status().message();
    int evaluated = 0;
    const ServingSetup s = SearchServing(w, arch, *hw, cal, &evaluated);
    const testing::ServingBest brute =
        testing::BruteForceServing(w, arch, *hw, cal, MaxServingBatch(w, cal));
    ASSERT_GT(brute.groups, 0) << "the case must be servable";
    ASSERT_TRUE(s.ok) << s.reason;
    EXPECT_EQ(s.groups, brute.groups) << DescribeLayout(s.layout);
    EXPECT_GE(s.estimate.inference->requests_per_s, brute.rps * (1 - 1e-9))
        << "as many requests/s as the best of the space: " << DescribeLayout(s.layout);
    // The pick itself is what the estimator says it is: it fits and meets the targets.
    EXPECT_TRUE(s.estimate.memory.fits);
    if (c.ttft_ms > 0) {
      EXPECT_LE(s.estimate.inference->ttft_ms, c.ttft_ms);
    }
    if (c.tpot_ms > 0) {
      EXPECT_LE(s.estimate.inference->tpot_ms, c.tpot_ms);
    }
    EXPECT_EQ(s.copies_per_group * s.gpus_per_copy, t->whole_gpus())
        << "every GPU of the instance serves";
    EXPECT_LE(s.estimate.inference->batch, c.engine == Engine::kTrtllm ? 2048
                                           : c.engine == Engine::kVllm ? 256
                                                                       : 512);
  }
}

TEST(ServingSearchTest, EnginesReserveTheirDocumentedHeadroom) {
  struct Case {
    const char* name;
    Engine engine;
    double capacity, fixed;
    double want;
  };
  const Case kCases[] = {
      {"vllm_gpu_memory_utilization_0_9", Engine::kVllm, 80, 40, 72},
      {"trtllm_free_gpu_memory_fraction_0_9_of_free", Engine::kTrtllm, 80, 40, 76},
      {"hf_uses_the_whole_gpu", Engine::kHf, 80, 40, 80},
  };
  const Calibration& cal = testing::EmbeddedCalibration();
  EXPECT_DOUBLE_EQ(cal.vllm_gpu_memory_utilization, 0.9) << "vLLM's default";
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_NEAR(cal.EngineMemoryLimitGib(c.engine, c.capacity, c.fixed), c.want, 1e-9);
  }
}

TEST(ServingSearchTest, BatchesStopAtTheEngineLimit) {
  const Calibration& cal = testing::EmbeddedCalibration();
  Workload w;
  w.inference.engine = Engine::kVllm;
  EXPECT_EQ(MaxServingBatch(w, cal), 256);
  w.inference.engine = Engine::kTrtllm;
  EXPECT_EQ(MaxServingBatch(w, cal), 2048);
  w.inference.batch = 48;
  EXPECT_EQ(MaxServingBatch(w, cal), 48) << "a fixed batch is the only one tried";
}

TEST(ServingSearchTest, ChoosesBatchesBetweenPowersOfTwo) {
  // Llama-3-70B on 8 x A100 at a tight TPOT: the best batch is rarely a power of two, and the
  // search must find the one brute force finds, not the power of two below it.
  Workload w;
  w.task = Task::kInference;
  w.inference.requests_per_s = 25;
  w.inference.prompt_tokens = 2048;
  w.inference.output_tokens = 512;
  w.inference.ttft_ms = 2000;
  w.inference.tpot_ms = 60;
  const Calibration& cal = testing::EmbeddedCalibration();
  Result<perf::Hardware> hw = perf::HardwareFor(
      ServingCatalog(), *ServingCatalog().FindInstance("ecs.ebmgn7ex.32xlarge"), 1);
  ASSERT_TRUE(hw.ok());
  int evaluated = 0;
  const ServingSetup s = SearchServing(w, testing::Llama3_70B(), *hw, cal, &evaluated);
  ASSERT_TRUE(s.ok) << s.reason;
  const int b = s.layout.micro_batch;
  EXPECT_NE(b & (b - 1), 0) << "batch " << b << " is a power of two";
  EXPECT_LT(evaluated, 400) << "bisection, not every batch";
}

TEST(ServingSearchTest, ExpertParallelLayoutsOnlyForMoeOnEnginesThatRunThem) {
  Result<perf::Hardware> hw = perf::HardwareFor(
      ServingCatalog(), *ServingCatalog().FindInstance("ecs.ebmgn7ex.32xlarge"), 1);
  ASSERT_TRUE(hw.ok());
  auto has_ep = [&](const Workload& w, const ModelArch& arch) {
    for (const perf::Layout& l : ServingLayouts(w, arch, *hw)) {
      if (l.ep > 1)
        return true;
    }
    return false;
  };
  Workload vllm;
  vllm.task = Task::kInference;
  Workload hf = vllm;
  hf.inference.engine = Engine::kHf;
  EXPECT_TRUE(has_ep(vllm, testing::Qwen3_30B_A3B()));
  EXPECT_FALSE(has_ep(hf, testing::Qwen3_30B_A3B())) << "HF generate has no expert parallelism";
  EXPECT_FALSE(has_ep(vllm, testing::Llama3_70B())) << "a dense model has no experts";
}

}  // namespace
}  // namespace gpuplan::serving
