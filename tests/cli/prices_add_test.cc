// `gpuplan prices add`: a price the user knows goes into the cache with source "user" and today's
// date, and plans then price the type with it; bad arguments are errors in our words.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/billing.h"
#include "io/file_util.h"
#include "testing/cli_runner.h"

namespace gpuplan {
namespace {

using testing::RunGpuplan;

class PricesAddTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gpuplan-prices-add-XXXXXX";
    dir_ = mkdtemp(tmpl);
    env_.xdg_cache_home = dir_;
    env_.today = "2026-12-01";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  testing::CliRun Run(const std::vector<std::string>& args) const {
    return testing::RunGpuplan(args, env_);
  }
  std::string dir_;
  cli::CliEnvironment env_ = testing::TestEnvironment();
};

TEST_F(PricesAddTest, StoresAUserPriceThatPlansThenUse) {
  testing::CliRun add = Run(
      {"prices", "add", "gn8v-4x.8xlarge", "120", "--region", "cn-beijing", "--billing", "payg"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  EXPECT_NE(add.out.find("added ecs.gn8v-4x.8xlarge payg cn-beijing: CNY 120 per hour (source "
                         "user, as of 2026-12-01)"),
            std::string::npos)
      << add.out;
  Result<std::string> cache = io::ReadFile(dir_ + "/gpuplan/prices.json");
  ASSERT_TRUE(cache.ok());
  const nlohmann::json j = nlohmann::json::parse(*cache);
  ASSERT_EQ(j["prices"].size(), 1u);
  EXPECT_EQ(j["prices"][0]["source"], "user");
  EXPECT_EQ(j["prices"][0]["as_of"], "2026-12-01");
  EXPECT_EQ(j["prices"][0]["price"], 120);

  testing::CliRun plan =
      Run({"plan", "--task", "inference", "--model", "llama-3-8b", "--requests-per-s", "5",
           "--region", "cn-beijing", "--json", "--top", "200"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const nlohmann::json p = nlohmann::json::parse(plan.out);
  bool found = false;
  for (const auto& c : p["candidates"]) {
    if (c["instance"] != "ecs.gn8v-4x.8xlarge")
      continue;
    found = true;
    EXPECT_TRUE(c["cost"]["known"].get<bool>());
    EXPECT_EQ(c["cost"]["price_trust"], "user");
    EXPECT_FALSE(c["cost"]["price_stale"].get<bool>());
    EXPECT_EQ(c["cost"]["price_age_days"], 0);
  }
  EXPECT_TRUE(found) << "the user's price puts the type in the plan";
}

TEST_F(PricesAddTest, SubscriptionIsPerMonthAndUsdWorks) {
  testing::CliRun add =
      Run({"prices", "add", "ecs.gn8is.4xlarge", "1500", "--region", "cn-hongkong", "--billing",
           "subscription", "--currency", "USD", "--unit", "month"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  EXPECT_NE(
      add.out.find("added ecs.gn8is.4xlarge subscription_month cn-hongkong: USD 1500 per month"),
      std::string::npos)
      << add.out;
}

// Every mode with a price of its own can be added, in the unit of its billing-table row.
TEST_F(PricesAddTest, EveryPriceRowModeTakesItsUnit) {
  for (const BillingMode& m : kBillingModes) {
    if (!BillingAllowed(m, BillingUse::kPriceRow))
      continue;
    SCOPED_TRACE(std::string(m.name));
    testing::CliRun add = RunGpuplan({"prices", "add", "ecs.gn8is.4xlarge", "10", "--region",
                                      "cn-beijing", "--billing", std::string(m.name)});
    ASSERT_EQ(add.exit_code, 0) << add.err;
    EXPECT_NE(add.out.find("added ecs.gn8is.4xlarge " + std::string(m.name) +
                           " cn-beijing: CNY 10 per " + std::string(m.unit)),
              std::string::npos)
        << add.out;
  }
}

TEST_F(PricesAddTest, BadArgumentsAreUsageErrors) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    std::string message;
  };
  const Case kCases[] = {
      {"unknown_type_suggests",
       {"prices", "add", "ecs.gn8is.4xlarg", "10", "--region", "cn-beijing", "--billing", "payg"},
       "unknown instance type \"ecs.gn8is.4xlarg\"; did you mean ecs.gn8is.4xlarge"},
      {"zero_amount",
       {"prices", "add", "ecs.gn8is.4xlarge", "0", "--region", "cn-beijing", "--billing", "payg"},
       "AMOUNT: expected a price above 0 and at most 1e8, got 0"},
      {"bad_billing",
       {"prices", "add", "ecs.gn8is.4xlarge", "10", "--region", "cn-beijing", "--billing",
        "reserved"},
       "--billing: expected " + BillingChoices(BillingUse::kPriceRow) + ", got \"reserved\""},
      {"savings_plan_has_no_price_of_its_own",
       {"prices", "add", "ecs.gn8is.4xlarge", "10", "--region", "cn-beijing", "--billing",
        "savings_plan"},
       "--billing: expected " + BillingChoices(BillingUse::kPriceRow) + ", got \"savings_plan\""},
      {"yearly_subscription_per_month",
       {"prices", "add", "ecs.gn8is.4xlarge", "10", "--region", "cn-beijing", "--billing",
        "subscription_year", "--unit", "month"},
       "--unit: subscription_year prices are per instance-year (--unit year), got \"month\""},
      {"payg_per_month",
       {"prices", "add", "ecs.gn8is.4xlarge", "10", "--region", "cn-beijing", "--billing", "payg",
        "--unit", "month"},
       "--unit: payg prices are per instance-hour (--unit hour), got \"month\""},
      {"subscription_per_hour",
       {"prices", "add", "ecs.gn8is.4xlarge", "10", "--region", "cn-beijing", "--billing",
        "subscription", "--unit", "hour"},
       "--unit: subscription prices are per instance-month (--unit month), got \"hour\""},
      {"bad_currency",
       {"prices", "add", "ecs.gn8is.4xlarge", "10", "--region", "cn-beijing", "--billing", "payg",
        "--currency", "EUR"},
       "--currency: expected CNY or USD, got \"EUR\""},
      {"not_a_region_id",
       {"prices", "add", "ecs.gn8is.4xlarge", "10", "--region", "Beijing", "--billing", "payg"},
       "--region: expected a region id like cn-hangzhou or ap-southeast-1, got \"Beijing\""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    testing::CliRun run = Run(c.args);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.err.rfind(std::string("gpuplan: error: ") + c.message, 0), 0u) << run.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/gpuplan/prices.json")) << "nothing is written";
  }
}

}  // namespace
}  // namespace gpuplan
