// Issue 31: answers without hidden defaults. The issue's own cases, through the command line on
// the embedded catalog and prices: what a workload leaves unset is derived from the work and
// shown, a pick never risks an OOM the model can see, and `explain` says why a runner-up lost.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "testing/cli_runner.h"

namespace gpuplan {
namespace {

using testing::CliRun;

// The embedded prices alone: a cache of its own, which no other test of the process writes to.
CliRun RunGpuplan(const std::vector<std::string>& args) {
  cli::CliEnvironment env = testing::TestEnvironment();
  env.xdg_cache_home =
      std::filesystem::temp_directory_path() / ("gpuplan-issue31-" + std::to_string(::getpid()));
  return testing::RunGpuplan(args, env);
}

nlohmann::json PlanJson(std::vector<std::string> args) {
  args.insert(args.begin(), "plan");
  args.push_back("--json");
  const CliRun run = RunGpuplan(args);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return run.exit_code == 0 ? nlohmann::json::parse(run.out) : nlohmann::json::object();
}

// The value of `field` among the plan's assumptions, or "" when it is not listed.
std::string Assumed(const nlohmann::json& plan, const std::string& field) {
  for (const auto& a : plan["assumptions"]) {
    if (a["field"] == field)
      return a["value"].get<std::string>();
  }
  return "";
}

TEST(Issue31Test, DefaultsTheWorkLeavesUnsetAreDerivedAndListed) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> want;  // field -> assumed value
  };
  const Case kCases[] = {
      // "Pre-train 13B on 300B tokens in 3 weeks": 2M tokens per step (GPT-3 13B), not 32
      // sequences (65k tokens), which capped data parallelism at 32 GPUs.
      {"pretrain_13b_takes_a_published_batch",
       {"--model", "llama-2-13b", "--task", "pretrain", "--tokens", "300B", "--deadline-hours",
        "504"},
       {{"global_batch", "1024"},
        {"seq_len", "2048"},
        {"precision", "bf16"},
        {"memory_confidence", "0.9"},
        {"confidence", "0.5"},
        {"constraints.max_nodes", "16"}}},
      // DeepSeek-R1 ships FP8 weights and reasons before it answers.
      {"deepseek_r1_is_served_in_fp8_for_long_replies",
       {"--model", "deepseek-r1", "--task", "inference", "--requests-per-s", "1"},
       {{"precision", "fp8"},
        {"inference.output_tokens", "4000"},
        {"inference.prompt_tokens", "512"},
        {"constraints.billing", "[payg, subscription_month]"}}},
      {"given_values_are_not_assumed",
       {"--model", "llama-2-13b", "--task", "pretrain", "--tokens", "300B", "--global-batch", "64",
        "--precision", "bf16", "--seq-len", "4096", "--memory-confidence", "0.5"},
       {{"global_batch", ""}, {"precision", ""}, {"seq_len", ""}, {"memory_confidence", ""}}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const nlohmann::json plan = PlanJson(c.args);
    for (const auto& [field, value] : c.want)
      EXPECT_EQ(Assumed(plan, field), value) << field << "\n" << plan["assumptions"].dump(1);
  }
}

TEST(Issue31Test, PretrainingThirteenBillionOnAPublishedBatchPicksTheCheapestNodeCount) {
  // Before: global batch 32, 16 x ecs.sccgn7ex.32xlarge (unpriced), 421 h. With the derived
  // batch the data parallelism is no longer capped at 32 replicas, and every node count (not
  // only powers of two) is tried: the pick is the cheapest of its type and billing that meets
  // the three weeks at p50. (With the head's stage paced as it runs, 16 nodes of tp2 pp2 vp5
  // beat 10-15 nodes, whose layouts need deep pipelines or batches that do not divide.)
  const nlohmann::json plan = PlanJson({"--model", "llama-2-13b", "--task", "pretrain", "--tokens",
                                        "300B", "--deadline-hours", "504", "--top", "300"});
  ASSERT_FALSE(plan["candidates"].empty());
  const nlohmann::json& pick = plan["candidates"][0];
  EXPECT_EQ(plan["workload"]["global_batch"], 1024);
  EXPECT_GT(pick["gpus"].get<int>(), 32) << "no longer capped by a batch of 32";
  EXPECT_LE(pick["uncertainty"]["job_hours_at_confidence"].get<double>(), 504);
  std::set<int> other_counts;
  for (const nlohmann::json& c : plan["candidates"]) {
    if (c["instance"] != pick["instance"] || c["billing"] != pick["billing"] || c == pick)
      continue;
    const int nodes = c["nodes"].get<int>();
    if ((nodes & (nodes - 1)) != 0)
      other_counts.insert(nodes);
    if (c["uncertainty"]["job_hours_at_confidence"].get<double>() <= 504) {
      EXPECT_LE(pick["cost"]["total"].get<double>(), c["cost"]["total"].get<double>())
          << nodes << " node(s)";
    }
  }
  EXPECT_FALSE(other_counts.empty()) << "node counts that are no power of two are tried";
}

TEST(Issue31Test, TheLoraPickFitsAtTheMemoryConfidence) {
  // Qwen2.5-7B LoRA of 100M tokens: the pick used to be 4 x A100-80G at 74.21 GiB, 84.97 at p90
  // of 79.35 ("tight: may OOM"), while a layout that fits safely cost 1.2% more. By default the
  // fit is checked at p90; --memory-confidence 0.5 takes the old risk on purpose. (Since the
  // loss's memory is modelled by stack, 2026-12-06, the case is Llama 2 13B's: 1 x A100-80G at
  // 73.05 GiB, 83.57 at p90, at p50; 2 x at 60.50 GiB, 1.5% dearer, at p90.)
  struct Case {
    const char* name;
    std::vector<std::string> extra;
    bool want_tight;
  };
  const Case kCases[] = {
      {"default_fits_at_p90", {}, false},
      {"time_confidence_does_not_move_the_fit", {"--confidence", "0.1"}, false},
      {"median_memory_confidence_takes_the_risk", {"--memory-confidence", "0.5"}, true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args = {"--model",  "llama-2-13b", "--task",   "finetune",
                                     "--method", "lora",        "--tokens", "100M"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const nlohmann::json plan = PlanJson(args);
    ASSERT_FALSE(plan["candidates"].empty());
    const nlohmann::json& pick = plan["candidates"][0];
    const double p90 = pick["memory"]["per_gpu_gib_range"][1].get<double>();
    const double capacity = pick["memory"]["capacity_gib"].get<double>();
    EXPECT_EQ(p90 > capacity, c.want_tight)
        << pick["instance"] << " p90 " << p90 << " of " << capacity;
    EXPECT_EQ(pick["memory"]["verdict"] == "tight: may OOM", c.want_tight);
  }
}

TEST(Issue31Test, ExplainOfARunnerUpSaysWhyItRanksBelowWithTheNumbers) {
  const std::vector<std::string> job = {"--model",  "llama-2-13b", "--task",           "pretrain",
                                        "--tokens", "300B",        "--deadline-hours", "504"};
  std::vector<std::string> args = {"explain", "ecs.ebmgn7e.32xlarge"};
  args.insert(args.end(), job.begin(), job.end());
  const CliRun run = RunGpuplan(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Assumed (not given; set them to change the answer):"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("): it costs CNY "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(" against the pick's CNY "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(" more (+"), std::string::npos) << run.out;
  args.push_back("--json");
  const CliRun json = RunGpuplan(args);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_TRUE(j.contains("why_not_first")) << j.dump(1).substr(0, 2000);
  EXPECT_EQ(j["why_not_first"].get<std::string>().rfind("it costs CNY ", 0), 0);
  EXPECT_FALSE(j["assumptions"].empty());
}

}  // namespace
}  // namespace gpuplan
