// Issue 32: `plan --epochs nan` planned a job of no hours, `estimate --inter-node-gbps nan`
// printed "nan Gbit/s", `prices compare --hours inf` and `--reclaim-rate nan` passed, and
// `watch-spot --max-polls -3` polled forever. Every numeric option now refuses NaN, infinities
// and negative values, naming the option and its range (cli/number_flags.h).
#include "cli/number_flags.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/cli_runner.h"

namespace gpuplan::cli {
namespace {

TEST(NumberFlagsTest, Issue32EveryNumericOptionRefusesNanInfinityAndNegatives) {
  const std::vector<std::string> compare = {
      "prices", "compare", "--instance", "ecs.gn7i-c8g1.2xlarge", "--region", "cn-hangzhou"};
  auto with = [](std::vector<std::string> base, std::vector<std::string> more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
  };
  struct Case {
    const char* name;
    std::vector<std::string> args;
    const char* want;
  };
  const Case kCases[] = {
      {"plan_epochs_nan",
       {"plan", "--model", "llama-2-7b", "--samples", "1000", "--epochs", "nan"},
       "--epochs: expected a finite number >= 0, got nan"},
      {"plan_budget_inf",
       {"plan", "--model", "llama-2-7b", "--budget", "inf"},
       "--budget: expected a finite number >= 0, got inf"},
      {"plan_deadline_overflow",
       {"plan", "--model", "llama-2-7b", "--deadline-hours", "1e999"},
       "--deadline-hours: expected a finite number >= 0, got 1e999"},
      {"plan_requests_mixed_case_nan",
       {"plan", "--task", "inference", "--model", "llama-3-8b", "--requests-per-s", "NaN"},
       "--requests-per-s: expected a finite number >= 0, got NaN"},
      {"plan_max_gpus_negative",
       {"plan", "--model", "llama-2-7b", "--max-gpus", "-8"},
       "--max-gpus: expected a number >= 0, got -8"},
      {"estimate_inter_node_nan",
       {"estimate", "--model", "llama-2-7b", "--gpu", "A10", "--gpus", "16", "--inter-node-gbps",
        "nan"},
       "--inter-node-gbps: expected a finite number >= 0, got nan"},
      {"compare_hours_inf", with(compare, {"--hours", "inf"}),
       "--hours: expected a finite number >= 0, got inf"},
      {"compare_reclaim_rate_nan", with(compare, {"--hours", "10", "--reclaim-rate", "nan"}),
       "--reclaim-rate: expected a finite number in [0 - 10], got nan"},
      {"compare_checkpoint_every_infinity",
       with(compare, {"--hours", "10", "--checkpoint-every", "-infinity"}),
       "--checkpoint-every: expected a finite number > 0, got -infinity"},
      {"compare_hours_negative", with(compare, {"--hours", "-1"}),
       "--hours: expected a number >= 0, got -1"},
      {"compare_range_kept", with(compare, {"--instances", "0"}),
       "--instances: expected a number in [1 - 10000], got 0"},
      {"compare_positive_kept", with(compare, {"--hours", "10", "--checkpoint-every", "0"}),
       "--checkpoint-every: expected a number > 0, got 0"},
      {"watch_spot_max_polls_negative",
       {"watch-spot", "--max-polls", "-3"},
       "--max-polls: expected a number >= 0, got -3"},
      {"watch_spot_interval_nan",
       {"watch-spot", "--interval", "nan"},
       "--interval: expected a finite number >= 0, got nan"},
      {"prices_add_amount_nan",
       {"prices", "add", "gn7i-c8g1.2xlarge", "nan", "--region", "cn-hangzhou", "--billing",
        "payg"},
       "amount: expected a finite number >= 0, got nan"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    testing::CliRun run = testing::RunGpuplan(c.args);
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_EQ(run.err,
              "gpuplan: error: " + std::string(c.want) + "\nRun 'gpuplan --help' for usage.\n");
    EXPECT_EQ(run.out, "");
  }
}

// A FLOAT option without a CLI11 range keeps its command's message for a negative value, which
// states the real range; the value is refused all the same.
TEST(NumberFlagsTest, NegativeFloatsKeepTheirCommandsRange) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    const char* want;
  };
  const Case kCases[] = {
      {"plan_epochs",
       {"plan", "--model", "llama-2-7b", "--samples", "1000", "--epochs", "-2"},
       "gpuplan: error: --epochs: expected a number above 0 and at most 10000, got -2\n"},
      {"plan_ttft",
       {"plan", "--model", "llama-3-8b", "--task", "inference", "--ttft-ms", "-5"},
       "gpuplan: error: --ttft-ms: expected a time above 0 and at most 3600000 ms (one hour), "
       "got -5\n"},
      {"estimate_inter_node",
       {"estimate", "--model", "llama-2-7b", "--gpu", "A10", "--inter-node-gbps", "-1"},
       "gpuplan: error: --inter-node-gbps: expected a number above 0 and at most 100000 "
       "(Gbit/s), got -1\n"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    testing::CliRun run = testing::RunGpuplan(c.args);
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_EQ(run.err, c.want);
  }
}

TEST(NumberFlagsTest, NumberFlagProblem) {
  struct Case {
    const char* text;
    const char* range;
    const char* want;  // nullptr: accepted (or left to CLI11's conversion)
  };
  const Case kCases[] = {
      {"0", "", nullptr},
      {"1.5", "", nullptr},
      {"1e3", "", nullptr},
      {"-0", "", nullptr},
      {"abc", "", nullptr},  // not a number: CLI11 says so
      {"12abc", "", nullptr},
      {"nan", "", "expected a finite number >= 0, got nan"},
      {"-nan", "", "expected a finite number >= 0, got -nan"},
      {"INF", "[0 - 1]", "expected a finite number in [0 - 1], got INF"},
      {"1e400", "", "expected a finite number >= 0, got 1e400"},
      {"-1", "[1 - 60]", "expected a number in [1 - 60], got -1"},
      {"-1e-300", "", "expected a number >= 0, got -1e-300"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.text);
    std::optional<std::string> why = NumberFlagProblem(c.text, c.range);
    if (c.want == nullptr) {
      EXPECT_FALSE(why.has_value()) << *why;
    } else {
      ASSERT_TRUE(why.has_value());
      EXPECT_EQ(*why, c.want);
    }
  }
}

}  // namespace
}  // namespace gpuplan::cli
