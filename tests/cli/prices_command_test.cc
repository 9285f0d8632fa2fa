// `gpuplan prices ...` end to end in-process: listing, refresh against the local mock API,
// import of aliyun CLI JSON, compare; a failed refresh or import leaves the cache byte-identical.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/file_util.h"
#include "testing/aliyun_mock.h"
#include "testing/cli_runner.h"

namespace gpuplan {
namespace {

using nlohmann::json;
using testing::AliyunMock;
using testing::AliyunTestdata;
using testing::RunGpuplan;

// A private cache directory, a fixed date and mock credentials for one test.
class PricesCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gpuplan-prices-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    env_.xdg_cache_home = dir_;
    env_.today = "2026-11-30";
    env_.access_key_id = "LTAI5tMockKeyId0001";
    env_.access_key_secret = AliyunMock::kSecret;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  testing::CliRun Run(const std::vector<std::string>& args) const {
    return testing::RunGpuplan(args, env_);
  }
  json PricesJson(const std::vector<std::string>& filters) const;
  std::string CachePath() const { return dir_ + "/gpuplan/prices.json"; }
  std::string CacheBytes() const {
    Result<std::string> text = io::ReadFile(CachePath());
    return text.ok() ? *text : "<none>";
  }

  // Queues the replies of a full refresh of one type in cn-hangzhou, spot history in 2 pages.
  static void QueueRefresh(AliyunMock& mock) {
    mock.Reply("DescribeAvailableResource", 200,
               AliyunTestdata("describe_available_resource.json"));
    mock.Reply("DescribePrice", 200, AliyunTestdata("describe_price_hour.json"));
    mock.Reply("DescribePrice", 200, AliyunTestdata("describe_price_month.json"));
    mock.Reply(
        "DescribePrice", 400,
        R"({"Code": "InvalidParameter.PriceUnit", "Message": "Year is not sold for this type"})");
    json spot = json::parse(AliyunTestdata("describe_spot_price_history.json"));
    json page1 = spot, page2 = spot;
    auto& all = spot["SpotPrices"]["SpotPriceType"];
    page1["SpotPrices"]["SpotPriceType"] = json::array({all[0], all[1]});
    page1["NextOffset"] = 2;
    page2["SpotPrices"]["SpotPriceType"] = json::array({all[2]});
    page2["NextOffset"] = 0;
    mock.Reply("DescribeSpotPriceHistory", 200, page1.dump());
    mock.Reply("DescribeSpotPriceHistory", 200, page2.dump());
    mock.Reply("DescribeSpotAdvice", 200, AliyunTestdata("describe_spot_advice.json"));
  }

  std::vector<std::string> Refresh(const AliyunMock& mock, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {
        "prices",     "refresh",  "--region",  "cn-hangzhou", "--types",   "gn7i-c8g1.2xlarge",
        "--endpoint", mock.url(), "--backoff", "0",           "--timeout", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  std::string dir_;
  cli::CliEnvironment env_ = testing::TestEnvironment();
};

json PricesCliTest::PricesJson(const std::vector<std::string>& filters) const {
  std::vector<std::string> args = {"prices", "--json"};
  args.insert(args.end(), filters.begin(), filters.end());
  testing::CliRun run = Run(args);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return json::parse(run.out);
}

TEST_F(PricesCliTest, ListingShowsSourceAndAgeOfBuiltinPrices) {
  json rows = PricesJson({"--instance", "gn7i-c8g1.2xlarge", "--region", "cn-hangzhou"});
  ASSERT_EQ(rows.size(), 1u);
  for (const char* key :
       {"instance", "region", "billing", "price", "currency", "unit", "source", "as_of"}) {
    EXPECT_TRUE(rows[0].contains(key)) << key;
  }
  EXPECT_EQ(rows[0]["source"], "builtin");
  EXPECT_EQ(rows[0]["price"], 9.5326);
  EXPECT_EQ(rows[0]["age_days"], 700);
  testing::CliRun bad = Run({"prices", "--instance", "gn7i-c8g1.2xlarg"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("did you mean ecs.gn7i-c8g1.2xlarge"), std::string::npos) << bad.err;
}

TEST_F(PricesCliTest, RefreshStoresApiPricesThatWinOverBuiltin) {
  AliyunMock mock;
  QueueRefresh(mock);
  testing::CliRun run = Run(Refresh(mock));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("1 types priced, 2 spot prices"), std::string::npos)
      << run.out << CacheBytes();
  EXPECT_EQ(run.out.find(AliyunMock::kSecret), std::string::npos);
  EXPECT_EQ(run.err.find(AliyunMock::kSecret), std::string::npos);
  EXPECT_NE(run.err.find("InvalidParameter.PriceUnit"), std::string::npos);  // a warning only
  // Every request was signed correctly; spot history followed NextOffset.
  std::vector<AliyunMock::Request> reqs = mock.requests();
  ASSERT_EQ(reqs.size(), 7u);
  for (const auto& r : reqs)
    EXPECT_TRUE(r.signature_ok) << r.action;
  EXPECT_EQ(reqs[5].action, "DescribeSpotPriceHistory");
  EXPECT_EQ(reqs[5].params["Offset"], "2");

  json payg = PricesJson(
      {"--instance", "gn7i-c8g1.2xlarge", "--region", "cn-hangzhou", "--billing", "payg"});
  // Region-wide DescribePrice plus the zone OriginPrice rows of the spot history; all api.
  ASSERT_GE(payg.size(), 1u);
  for (const json& row : payg) {
    EXPECT_EQ(row["source"], "api");
    EXPECT_EQ(row["price"], 9.5326);
  }
  json spot = PricesJson(
      {"--instance", "gn7i-c8g1.2xlarge", "--region", "cn-hangzhou", "--billing", "spot"});
  ASSERT_EQ(spot.size(), 2u);
  EXPECT_EQ(spot[0]["zone"], "cn-hangzhou-h");
  EXPECT_EQ(spot[0]["price"], 3.431);
  EXPECT_EQ(spot[1]["price"], 2.383);
  json month = PricesJson({"--instance", "gn7i-c8g1.2xlarge", "--region", "cn-hangzhou",
                           "--billing", "subscription_month"});
  ASSERT_EQ(month.size(), 1u);
  EXPECT_EQ(month[0]["price"], 4574.9);
  EXPECT_EQ(month[0]["unit"], "month");

  // The cached spot advice feeds the reclaim rate of compare.
  testing::CliRun cmp = Run({"prices", "compare", "--instance", "gn7i-c8g1.2xlarge", "--region",
                             "cn-hangzhou", "--hours", "50", "--json"});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  json c = json::parse(cmp.out);
  EXPECT_EQ(c["reclaim_rate_source"], "DescribeSpotAdvice (cache)");
  EXPECT_TRUE(c["availability"]["available"]);
  EXPECT_EQ(c["availability"]["zones"], json::array({"cn-hangzhou-h"}));
}

TEST_F(PricesCliTest, FailedRefreshLeavesCacheIntact) {
  {
    AliyunMock mock;
    QueueRefresh(mock);
    ASSERT_EQ(Run(Refresh(mock)).exit_code, 0);
  }
  const std::string before = CacheBytes();
  ASSERT_NE(before, "<none>");
  const std::string throttled = AliyunTestdata("throttled.json");
  struct Case {
    const char* name;
    std::vector<std::tuple<std::string, int, std::string, int>>
        replies;  // action, status, body, delay
    std::vector<std::string> extra;
    const char* want_err;
  };
  const Case kCases[] = {
      {"throttled_after_retries",
       {{"DescribeAvailableResource", 400, throttled, 0}},
       {"--retries", "2"},
       "Throttling.User"},
      {"malformed_json",
       {{"DescribeAvailableResource", 200, AliyunTestdata("describe_available_resource.json"), 0},
        {"DescribePrice", 200, "{\"PriceInfo\": {\"Price\": {", 0}},
       {},
       "malformed JSON"},
      {"timeout",
       {{"DescribeAvailableResource", 200, "{}", 1500}},
       {"--timeout", "0.2", "--retries", "0"},
       "DescribeAvailableResource"},
      {"server_error",
       {{"DescribeAvailableResource", 500, R"({"Code": "InternalError", "Message": "oops"})", 0}},
       {"--retries", "1"},
       "InternalError"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    AliyunMock mock;
    for (const auto& [action, status, body, delay] : c.replies)
      mock.Reply(action, status, body, delay);
    std::vector<std::string> args = Refresh(mock, c.extra);
    testing::CliRun run = Run(args);
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_NE(run.err.find("cache unchanged"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(c.want_err), std::string::npos) << run.err;
    EXPECT_EQ(CacheBytes(), before);
  }
}

TEST_F(PricesCliTest, RefreshRejectsPlainHttpToRemoteHosts) {
  testing::CliRun run = Run({"prices", "refresh", "--region", "cn-hangzhou", "--endpoint",
                             "http://ecs.cn-hangzhou.aliyuncs.com"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("plain http is allowed only for loopback"), std::string::npos) << run.err;
  EXPECT_EQ(CacheBytes(), "<none>");
  testing::CliRun help = Run({"prices", "refresh", "--help"});
  for (const char* flag : {"--region", "--types", "--endpoint"}) {
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag;
  }
}

TEST_F(PricesCliTest, ImportAliyunCliJson) {
  const std::string spot = testing::TestDataPath("aliyun/describe_spot_price_history.json");
  const std::string price = testing::TestDataPath("aliyun/describe_price_hour.json");
  testing::CliRun run = Run({"prices", "import", spot});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("imported 4 prices"), std::string::npos) << run.out;
  json rows = PricesJson(
      {"--instance", "gn7i-c8g1.2xlarge", "--region", "cn-hangzhou", "--billing", "spot"});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["source"], "import");
  EXPECT_EQ(rows[0]["as_of"], "2026-11-29");

  // DescribePrice needs its request context.
  testing::CliRun no_ctx = Run({"prices", "import", price});
  EXPECT_EQ(no_ctx.exit_code, 1);
  EXPECT_NE(no_ctx.err.find("does not name its instance type and region"), std::string::npos);
  testing::CliRun with_ctx = Run(
      {"prices", "import", "--instance", "gn7i-c8g1.2xlarge", "--region", "cn-shanghai", price});
  ASSERT_EQ(with_ctx.exit_code, 0) << with_ctx.err;
  json sh = PricesJson(
      {"--instance", "gn7i-c8g1.2xlarge", "--region", "cn-shanghai", "--billing", "payg"});
  ASSERT_EQ(sh.size(), 1u);
  EXPECT_EQ(sh[0]["source"], "import");  // import beats the built-in C1 row of cn-shanghai

  // A bad file anywhere in the list imports nothing.
  const std::string before = CacheBytes();
  const std::string bad = dir_ + "/bad.json";
  ASSERT_TRUE(io::WriteFileAtomic(bad, "{\"SpotPrices\": 3, \"Currency\": \"CNY\"}").ok());
  testing::CliRun failed = Run({"prices", "import", spot, bad});
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_NE(
      failed.err.find("bad.json: $.SpotPrices: expected a list under SpotPrices.SpotPriceType"),
      std::string::npos)
      << failed.err;
  EXPECT_EQ(CacheBytes(), before);
}

TEST_F(PricesCliTest, CorruptCacheIsAWarningForListingAndAnErrorForRefresh) {
  ASSERT_TRUE(io::WriteFileAtomic(CachePath(), "{not json").ok());
  testing::CliRun list = Run({"prices", "--instance", "gn7i-c8g1.2xlarge", "--json"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.err.find("not a gpuplan price cache"), std::string::npos) << list.err;
  AliyunMock mock;
  QueueRefresh(mock);
  testing::CliRun refresh = Run(Refresh(mock));
  EXPECT_EQ(refresh.exit_code, 1);
  EXPECT_EQ(CacheBytes(), "{not json");
}

TEST_F(PricesCliTest, CompareBillingModesForAJobAndAService) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    const char* amount_key;
  };
  const Case kCases[] = {
      {"job", {"--hours", "100", "--instances", "2", "--reclaim-rate", "0.05"}, "total"},
      {"service", {"--monthly-hours", "500", "--savings-plan-rate", "0.6"}, "per_month"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args = {"prices",   "compare",     "--instance", "gn7i-c8g1.2xlarge",
                                     "--region", "cn-hangzhou", "--json"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    testing::CliRun run = Run(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    json j = json::parse(run.out);
    EXPECT_EQ(j["currency"], "CNY");
    EXPECT_NEAR(j["break_even"]["utilisation"].get<double>(), 0.66, 1e-9);
    ASSERT_EQ(j["modes"].size(), 6u);
    EXPECT_EQ(j["modes"][0]["mode"], "payg");
    EXPECT_TRUE(j["modes"][0].contains(c.amount_key));
  }
  testing::CliRun both =
      Run({"prices", "compare", "--instance", "gn7i-c8g1.2xlarge", "--region", "cn-hangzhou"});
  EXPECT_EQ(both.exit_code, 2);
  testing::CliRun unpriced = Run({"prices", "compare", "--instance", "gn7i-c8g1.2xlarge",
                                  "--region", "xx-nowhere-1", "--hours", "5"});
  EXPECT_EQ(unpriced.exit_code, 1);
  EXPECT_NE(unpriced.err.find("price unknown"), std::string::npos) << unpriced.err;
}

TEST_F(PricesCliTest, GoldenOutputs) {
  struct Case {
    const char* golden;
    std::vector<std::string> args;
  };
  const Case kCases[] = {
      {"prices_gn7i_c8g1_2xlarge_ap_southeast_1.txt",
       {"prices", "--instance", "ecs.gn7i-c8g1.2xlarge", "--region", "ap-southeast-1"}},
      {"prices_compare_job_gn7i_c8g1_2xlarge.txt",
       {"prices", "compare", "--instance", "ecs.gn7i-c8g1.2xlarge", "--region", "cn-hangzhou",
        "--hours", "100", "--instances", "2", "--reclaim-rate", "0.05"}},
      {"prices_compare_service_gn8is_2xlarge.txt",
       {"prices", "compare", "--instance", "ecs.gn8is.2xlarge", "--region", "cn-shanghai",
        "--monthly-hours", "500", "--savings-plan-rate", "0.6"}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.golden);
    testing::CliRun run = Run(c.args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    testing::ExpectGolden(c.golden, run.out);
  }
}

}  // namespace
}  // namespace gpuplan
