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
      // Typos and nonsense (issue 31).
      {"misspelt_command_suggests_the_nearest",
       {"paln", "--model", "llama-2-7b"},
       2,
       "unknown command \"paln\"; did you mean plan? The commands: plan, explain, wizard, "
       "deploy, "},
      {"misspelt_subcommand_suggests_the_nearest",
       {"catalog", "instnces"},
       2,
       "catalog: unknown command \"instnces\"; did you mean instances?"},
      {"misspelt_flag_suggests_the_nearest",
       {"plan", "--model", "llama-2-7b", "--precison", "bf16"},
       2,
       "plan: unknown flag \"--precison\"; did you mean --precision?"},
      {"misspelt_flag_with_value_suggests_the_nearest",
       {"estimate", "--model", "llama-2-7b", "--gpu=A10", "--seqlen=4096"},
       2,
       "estimate: unknown flag \"--seqlen\"; did you mean --seq-len?"},
      {"unrelated_flag_points_at_help",
       {"plan", "--model", "llama-2-7b", "--zzzzzzzz"},
       2,
       "plan: unknown flag \"--zzzzzzzz\"; 'gpuplan plan --help' lists the flags"},
      {"model_beyond_any_published_size_names_the_limit",
       {"plan", "--task", "pretrain", "--tokens", "1e9", "--layers", "1000", "--hidden", "100000",
        "--heads", "100", "--kv-heads", "100", "--ffn", "400000", "--vocab", "32000"},
       2,
       "inline architecture: field \"params\": expected a model of at most 1e13 parameters (10T; "
       "the largest published, Wu Dao 2.0, has 1.75T), got 120.01T from this shape: check layers, "
       "hidden, ffn, experts and vocab"},
      {"memory_confidence_out_of_range",
       {"plan", "--model", "llama-2-7b", "--tokens", "1B", "--memory-confidence", "0.99"},
       2,
       "--memory-confidence: expected a percentile between 0.1 and 0.9 (0.9 = fits with 90% "
       "confidence), got 0.99"},
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

// Where a file is broken, the message says: file, line and column (issue 31).
TEST(InputChecksTest, BrokenFilesNameTheLineAndColumn) {
  struct Case {
    const char* name;
    const char* file;
    const char* text;
    std::vector<std::string> args;  // the file's path is appended
    const char* where;              // expected after the path
  };
  const Case kCases[] = {
      {"model_config_json",
       "gpuplan-broken-config.json",
       "{\"hidden_size\": 4096,\n \"num_hidden_layers\": }",
       {"plan", "--task", "finetune", "--model-config"},
       ":2:23: malformed JSON: syntax error while parsing value"},
      {"workload_json",
       "gpuplan-broken-workload.json",
       "{\"task\": \"finetune\",\n}",
       {"plan"},
       ":2:1: malformed JSON: syntax error while parsing object key"},
      {"workload_yaml",
       "gpuplan-broken-workload.yaml",
       "task: [pretrain\nmodel: x\n",
       {"plan"},
       ":2:6: malformed YAML"},
      {"price_import",
       "gpuplan-broken-prices.json",
       "{\"SpotPrices\": [1,\n 2,,]}",
       {"prices", "import"},
       ":2:4: malformed JSON"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::string path = std::filesystem::temp_directory_path() / c.file;
    {
      FILE* f = std::fopen(path.c_str(), "w");
      ASSERT_NE(f, nullptr);
      std::fputs(c.text, f);
      std::fclose(f);
    }
    std::vector<std::string> args = c.args;
    args.push_back(path);
    const testing::CliRun run = RunGpuplan(args);
    EXPECT_NE(run.exit_code, 0);
    EXPECT_NE(run.err.find(path + c.where), std::string::npos) << run.err;
    std::filesystem::remove(path);
  }
}

// A typo in a GPU or family name of the constraints names the field and the nearest names,
// instead of emptying the plan (issue 31).
TEST(InputChecksTest, UnknownGpuOrFamilyInTheConstraintsSuggestsTheNearest) {
  struct Case {
    const char* name;
    const char* constraint;
    const char* message;
  };
  const Case kCases[] = {
      {"gpu", "include_gpus: [A1000]",
       "field \"constraints.include_gpus\": unknown GPU \"A1000\"; did you mean "},
      {"family", "exclude_families: [gn7ii]",
       "field \"constraints.exclude_families\": unknown family \"gn7ii\"; did you mean gn7i?"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::string path = std::filesystem::temp_directory_path() / "gpuplan-bad-gpu.yaml";
    {
      FILE* f = std::fopen(path.c_str(), "w");
      ASSERT_NE(f, nullptr);
      std::fputs(("task: finetune\nmethod: lora\nmodel: qwen2.5-7b\ntokens: 10M\nconstraints:\n  " +
                  std::string(c.constraint) + "\n")
                     .c_str(),
                 f);
      std::fclose(f);
    }
    const testing::CliRun run = RunGpuplan({"plan", path});
    EXPECT_NE(run.exit_code, 0);
    EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
    std::filesystem::remove(path);
  }
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
