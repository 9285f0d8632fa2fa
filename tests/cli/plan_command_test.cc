#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "testing/cli_runner.h"

namespace gpuplan {
namespace {

using testing::RunGpuplan;
using testing::TestDataPath;

std::string Example(const std::string& name) {
  return std::string(GPUPLAN_SOURCE_DIR) + "/examples/" + name;
}

TEST(PlanCommandTest, JsonHasTheDocumentedShape) {
  auto run = RunGpuplan({"plan", Example("llm-lora-finetune.yaml"), "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto j = nlohmann::json::parse(run.out);
  ASSERT_TRUE(j["candidates"].is_array());
  ASSERT_FALSE(j["candidates"].empty());
  ASSERT_TRUE(j["rejected"].is_array());
  ASSERT_TRUE(j["pareto"].is_array());
  for (const auto& c : j["candidates"]) {
    for (const char* key : {"instance", "nodes", "gpus", "layout", "billing", "fits", "advice"}) {
      EXPECT_TRUE(c.contains(key)) << key;
    }
    EXPECT_TRUE(c["fits"].get<bool>());
    EXPECT_GT(c["memory"]["per_gpu_gib"].get<double>(), 0);
    EXPECT_GT(c["time"]["job_hours"].get<double>(), 0);
    EXPECT_GT(c["cost"]["total"].get<double>(), 0);
    EXPECT_EQ(c["cost"]["currency"], "CNY");
    EXPECT_LE(c["cost"]["total"].get<double>(), 5000) << "the example's budget";
    EXPECT_LE(c["time"]["job_hours"].get<double>(), 48) << "the example's deadline";
    for (const auto& a : c["advice"]) {
      EXPECT_TRUE(a.contains("rule") && a.contains("severity") && a.contains("message"));
    }
  }
  for (const auto& r : j["rejected"])
    EXPECT_FALSE(r["reason"].get<std::string>().empty());
}

TEST(PlanCommandTest, UnsatisfiableWorkloadExitsZeroWithReasons) {
  auto run = RunGpuplan({"plan", TestDataPath("workloads/impossible.yaml"), "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto j = nlohmann::json::parse(run.out);
  EXPECT_TRUE(j["candidates"].empty());
  EXPECT_FALSE(j["rejected"].empty());
}

TEST(PlanCommandTest, MalformedWorkloadFailsNamingLineAndField) {
  auto run = RunGpuplan({"plan", TestDataPath("workloads/bad_method.yaml")});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("bad_method.yaml:2:"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("method"), std::string::npos) << run.err;
  auto missing = RunGpuplan({"plan", "/nonexistent/w.yaml"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("/nonexistent/w.yaml"), std::string::npos) << missing.err;
}

TEST(PlanCommandTest, TextAndMarkdownReportsExplainTheWinner) {
  auto text = RunGpuplan({"plan", Example("llm-lora-finetune.yaml")});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* part :
       {"Why:", "Memory per GPU", "Storage:", "Image:", "Advice:", "Rejected:"}) {
    EXPECT_NE(text.out.find(part), std::string::npos) << part;
  }
  auto md = RunGpuplan({"plan", Example("llm-lora-finetune.yaml"), "--markdown"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  for (const char* part :
       {"# GPU plan", "## Recommendation", "| # | instance", "## Advice", "## Rejected"}) {
    EXPECT_NE(md.out.find(part), std::string::npos) << part;
  }
}

TEST(PlanCommandTest, ExplainSaysWhyNot) {
  auto run =
      RunGpuplan({"explain", "ecs.gn6i-c4g1.xlarge", TestDataPath("workloads/full70b.yaml")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("cannot run this workload"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("first choice is"), std::string::npos) << run.out;
  auto unknown =
      RunGpuplan({"explain", "ecs.gn7-m20.8xlarge", TestDataPath("workloads/full70b.yaml")});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("did you mean"), std::string::npos) << unknown.err;
}

TEST(PlanCommandTest, EveryExampleWorkloadPlans) {
  for (const char* name :
       {"llm-lora-finetune.yaml", "high-concurrency-inference.yaml", "light-image-processing.yaml",
        "rendering-farm.yaml", "llama-70b-pretrain.yaml", "llama-13b-qlora-budget.yaml",
        "resnet50-classify-10m.yaml", "sdxl-batch-generation.yaml", "wan-video-serving.yaml",
        "whisper-transcription.yaml"}) {
    SCOPED_TRACE(name);
    auto run = RunGpuplan({"plan", Example(name), "--json"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    auto j = nlohmann::json::parse(run.out);
    EXPECT_FALSE(j["candidates"].empty()) << "an example must have an answer";
  }
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

TEST(PlanCommandTest, ProbeCalibrationChangesOnlyTheMeasuredGpu) {
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& gpu, double gemm) {
    const std::string path = dir + name;
    std::ofstream(path)
        << R"({"format": "gpuplan-probe-calibration", "version": 1, "created": "2026-11-30T00:00:00Z",
      "instance_type": "ecs.gn7i-c8g1.2xlarge", "gpu": ")"
        << gpu << R"(", "gpu_count": 1,
      "efficiency": {"gemm_bf16": )"
        << gemm << R"(, "memory_bandwidth": 0.8}, "measured": {}})";
    return path;
  };
  const std::string workload = std::string(GPUPLAN_SOURCE_DIR) + "/examples/llm-lora-finetune.yaml";
  auto hours = [&](const std::vector<std::string>& extra, const std::string& gpu) {
    std::vector<std::string> args = {"plan", workload, "--json", "--top", "200"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto run = testing::RunGpuplan(args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const nlohmann::json plan = nlohmann::json::parse(run.out);
    for (const auto& c : plan["candidates"]) {
      if (c["gpu"] == gpu && c["nodes"] == 1 && c["gpus"] == 1 && c["billing"] == "payg") {
        return c["time"]["job_hours"].get<double>();
      }
    }
    return 0.0;
  };
  const std::string slow = write("a10-slow.json", "A10-24G", 0.4);
  const double base_a10 = hours({}, "A10-24G");
  const double measured_a10 = hours({"--probe-calibration", slow}, "A10-24G");
  ASSERT_GT(base_a10, 0);
  // Longer, though not by the GEMM ratio: part of the step streams offloaded weights over PCIe.
  EXPECT_GT(measured_a10, base_a10 * 1.1) << "a slow measured GEMM makes the A10 job longer";
  const double base_a100 = hours({}, "A100-80G-SXM");
  const double with_a10_file = hours({"--probe-calibration", slow}, "A100-80G-SXM");
  EXPECT_DOUBLE_EQ(base_a100, with_a10_file) << "another Ampere GPU keeps its fitted efficiency";
  auto bad =
      testing::RunGpuplan({"plan", workload, "--probe-calibration", write("x.json", "H2OO", 0.5)});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("the catalog does not know"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace gpuplan
