// Input that used to be silently ignored or answered in CLI11's words (issue 12): every bad input
// gets our own message naming the flag or field, the range or the fix, and exit status 2.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "testing/cli_runner.h"

namespace gpuplan {
namespace {

using testing::RunGpuplan;

struct BadInputCase {
  const char* name;
  std::vector<std::string> args;
  int exit_code;
  const char* message;  // the whole first line of stderr after "gpuplan: error: ", or its start
};

const std::vector<std::string> kLora = {"plan", "--task",  "finetune",  "--method",
                                        "lora", "--model", "qwen2.5-7b"};

std::vector<std::string> With(std::vector<std::string> base,
                              const std::vector<std::string>& extra) {
  base.insert(base.end(), extra.begin(), extra.end());
  return base;
}

TEST(InputChecksTest, BadInputIsAnErrorInOurWordsWithExitCode2) {
  const BadInputCase kCases[] = {
      {"misspelt_region_suggests_and_lists",
       With(kLora, {"--tokens", "100M", "--region", "cn-hangzhuo"}), 2,
       "--region: unknown region \"cn-hangzhuo\"; did you mean cn-hangzhou? Known regions (those "
       "with a price or "
       "stock record): ap-northeast-1, "},
      {"budget_without_work", With(kLora, {"--budget", "1"}), 2,
       "--budget: a budget needs an amount of work to hold it against: give tokens or samples "
       "(--tokens, --samples)"},
      {"deadline_without_work", With(kLora, {"--deadline-hours", "0.01"}), 2,
       "--deadline-hours: a deadline needs an amount of work to hold it against: give tokens or "
       "samples (--tokens, "
       "--samples)"},
      {"inference_budget_without_work_names_the_rate",
       {"plan", "--task", "inference", "--model", "qwen2.5-7b", "--budget", "100"},
       2,
       "--budget: a budget needs an amount of work to hold it against: give tokens or samples "
       "(--tokens, --samples), "
       "or requests_per_s for a service (--requests-per-s)"},
      {"tokens_beyond_any_job", With(kLora, {"--tokens", "1e30"}), 2,
       "--tokens: expected an amount from 1 to 1e15 (the largest published pre-training runs use "
       "about 3.6e13), got "
       "1e+30"},
      {"samples_beyond_any_dataset", With(kLora, {"--samples", "1e14"}), 2,
       "--samples: expected a number from 1 to 1e13, got 1e+14"},
      {"epochs_out_of_range", With(kLora, {"--tokens", "1B", "--epochs", "1e6"}), 2,
       "--epochs: expected a number above 0 and at most 10000, got 1000000"},
      {"seq_len_beyond_any_context", With(kLora, {"--tokens", "1B", "--seq-len", "4000000"}), 2,
       "--seq-len: expected at most 1048576 tokens (no model gpuplan knows has a longer context), "
       "got 4000000"},
      {"zero_gpus", With(kLora, {"--tokens", "1B", "--max-gpus", "0"}), 2,
       "--max-gpus: expected a whole number from 1 to 100000, got 0"},
      {"too_many_nodes", With(kLora, {"--tokens", "1B", "--max-nodes", "20000"}), 2,
       "--max-nodes: expected a whole number from 1 to 10000, got 20000"},
      {"zero_context_parallel",
       {"estimate", "--model", "llama-2-7b", "--gpu", "A100", "--gpus", "8", "--cp", "0"},
       2,
       "--cp: expected a context-parallel degree from 1 to 65536, got 0"},
      {"unknown_offload",
       {"plan", "--model", "llama-2-7b", "--tokens", "1B", "--offload", "nvme"},
       2,
       "--offload: expected none, optimizer or params, got \"nvme\""},
      {"zero_request_rate_in_our_words",
       {"plan", "--task", "inference", "--model", "qwen2.5-7b", "--requests-per-s", "0"},
       2,
       "--requests-per-s: expected a rate above 0 and at most 1000000 requests per second, got 0"},
      {"negative_ttft",
       {"plan", "--task", "inference", "--model", "qwen2.5-7b", "--requests-per-s", "1",
        "--ttft-ms", "-5"},
       2,
       "--ttft-ms: expected a time above 0 and at most 3600000 ms (one hour), got -5"},
      {"explain_checks_regions too",
       {"explain", "ecs.gn7i-c8g1.2xlarge", "--task", "finetune", "--method", "lora", "--model",
        "qwen2.5-7b", "--tokens", "1M", "--region", "mars-1"},
       2,
       "--region: unknown region \"mars-1\" Known regions"},
  };
  for (const BadInputCase& c : kCases) {
    SCOPED_TRACE(c.name);
    testing::CliRun run = RunGpuplan(c.args);
    EXPECT_EQ(run.exit_code, c.exit_code) << run.out << run.err;
    const std::string want = std::string("gpuplan: error: ") + c.message;
    EXPECT_EQ(run.err.substr(0, want.size()), want) << run.err;
    EXPECT_TRUE(run.out.empty()) << "no plan is printed for bad input";
  }
}

TEST(InputChecksTest, AWorkloadFileWithAnUnknownRegionNamesTheFile) {
  const std::string path = std::filesystem::temp_directory_path() / "gpuplan-bad-region.yaml";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "task: finetune\nmethod: lora\nmodel: qwen2.5-7b\ntokens: 10M\nconstraints:\n  regions: "
        "[cn-hangzhuo]\n",
        f);
    std::fclose(f);
  }
  testing::CliRun run = RunGpuplan({"plan", path});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(path + ": field \"constraints.regions\": unknown region \"cn-hangzhuo\"; "
                                "did you mean cn-hangzhou?"),
            std::string::npos)
      << run.err;
  std::filesystem::remove(path);
}

TEST(InputChecksTest, SmallGlobalBatchSaysItCapsDataParallel) {
  // Pre-training GPT-3 175B at global batch 4 on at most 32 nodes: more than 4 data-parallel
  // replicas cannot exist, so ZeRO cannot shard the states over more, and the reasons of the
  // types where nothing fits must say so.
  testing::CliRun run =
      RunGpuplan({"plan", "--task", "pretrain", "--model", "gpt3-175b", "--tokens", "1B",
                  "--global-batch", "4", "--max-nodes", "32", "--json", "--billing", "payg"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  bool said = false;
  for (const auto& r : j["rejected"]) {
    said |= r["reason"].get<std::string>().find(
                "global_batch 4 limits data parallel to 4 replicas at micro-batch 1") !=
            std::string::npos;
  }
  EXPECT_TRUE(said) << j["rejected"].dump(1);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// A day's traffic on the command line (issue 25): every malformed profile names its flag.
TEST(InputChecksTest, TrafficFlagsNameWhatIsWrong) {
  const std::vector<std::string> serve = {"plan", "--task", "inference", "--model", "qwen2.5-7b"};
  const std::string day23 = "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1";
  struct Case {
    const char* name;
    std::vector<std::string> extra;
    const char* message;
  };
  const Case kTraffic[] = {
      {"short_day", {"--hourly-rps", day23}, "--hourly-rps: expected 24 comma-separated rates"},
      {"negative_hour", {"--hourly-rps", day23 + ",-2"}, "--hourly-rps: value 23 \"-2\""},
      {"peak_below_base",
       {"--base-rps", "5", "--peak-rps", "3", "--peak-hours", "19-22"},
       "--peak-rps: expected a rate from --base-rps (5)"},
      {"hours_out_of_range",
       {"--base-rps", "1", "--peak-rps", "3", "--peak-hours", "19-25"},
       "--peak-hours: expected FROM-TO hours from 0 to 24"},
      {"peak_without_hours",
       {"--base-rps", "1", "--peak-rps", "3"},
       "--base-rps, --peak-rps and --peak-hours go together"},
      {"profile_and_rate",
       {"--base-rps", "1", "--peak-rps", "3", "--peak-hours", "19-22", "--requests-per-s", "2"},
       "--requests-per-s is a constant rate"},
      {"unknown_zone",
       {"--base-rps", "1", "--peak-rps", "3", "--peak-hours", "19-22", "--timezone", "Mars/Base"},
       "--timezone: expected a UTC offset"},
      {"zone_without_profile", {"--timezone", "UTC"}, "--weekend-hourly-rps, --timezone"},
  };
  for (const Case& c : kTraffic) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args = serve;
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const testing::CliRun run = testing::RunGpuplan(args);
    EXPECT_EQ(run.exit_code, 2) << run.out;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
  }
}

}  // namespace
}  // namespace gpuplan
