#include "io/price_import.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "io/embedded_data.h"
#include "io/file_util.h"
#include "testing/cli_runner.h"

namespace gpuplan::io {
namespace {

std::string Testdata(const std::string& name) {
  Result<std::string> text = ReadFile(gpuplan::testing::TestDataPath("aliyun/" + name));
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : "";
}

ImportContext Ctx() {
  ImportContext c;
  c.as_of = "2026-11-30";
  return c;
}

TEST(PriceImportTest, SpotPriceHistoryKeepsLatestPerZoneAndPayg) {
  Result<PriceCache> got =
      ParseAliyunResponse(Testdata("describe_spot_price_history.json"), "spot.json", Ctx());
  ASSERT_TRUE(got.ok()) << got.status().message();
  // Zone h (latest of two observations) and zone i, each with its PAYG OriginPrice.
  ASSERT_EQ(got->prices.size(), 4u);
  int spot = 0;
  for (const Price& p : got->prices) {
    SCOPED_TRACE(p.zone + " " + std::string(BillingName(p.billing)));
    EXPECT_EQ(p.instance, "ecs.gn7i-c8g1.2xlarge");
    EXPECT_EQ(p.region, "cn-hangzhou");
    EXPECT_EQ(p.currency, "CNY");
    EXPECT_EQ(p.origin, PriceSource::kImport);
    EXPECT_EQ(p.as_of, "2026-11-29");
    if (p.billing == Billing::kSpot) {
      ++spot;
      EXPECT_DOUBLE_EQ(p.amount, p.zone == "cn-hangzhou-h" ? 3.431 : 2.383);
    } else {
      EXPECT_DOUBLE_EQ(p.amount, 9.5326);
    }
  }
  EXPECT_EQ(spot, 2);
}

TEST(PriceImportTest, DescribePriceUsesTheInstancePartAndContext) {
  struct Case {
    const char* name;
    const char* file;
    const char* unit;
    Billing want_billing;
    double want;
    const char* want_unit;
  };
  const Case kCases[] = {
      {"hour_excludes_system_disk", "describe_price_hour.json", "Hour", Billing::kPayg, 9.5326,
       "hour"},
      {"month", "describe_price_month.json", "Month", Billing::kSubscriptionMonth, 4574.9, "month"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    ImportContext ctx = Ctx();
    ctx.instance = "gn7i-c8g1.2xlarge";
    ctx.region = "cn-hangzhou";
    ctx.price_unit = c.unit;
    Result<PriceCache> got = ParseAliyunResponse(Testdata(c.file), c.file, ctx);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(got->prices.size(), 1u);
    const Price& p = got->prices[0];
    EXPECT_EQ(p.instance, "ecs.gn7i-c8g1.2xlarge");
    EXPECT_EQ(p.billing, c.want_billing);
    EXPECT_DOUBLE_EQ(p.amount, c.want);
    EXPECT_EQ(p.unit, c.want_unit);
    EXPECT_EQ(p.as_of, "2026-11-30");
  }
}

TEST(PriceImportTest, StockAndSpotAdvice) {
  Result<PriceCache> stock =
      ParseAliyunResponse(Testdata("describe_available_resource.json"), "stock.json", Ctx());
  ASSERT_TRUE(stock.ok()) << stock.status().message();
  ASSERT_EQ(stock->market.stock.size(), 4u);
  EXPECT_EQ(stock->market.stock[0].zone, "cn-hangzhou-h");
  EXPECT_TRUE(stock->market.stock[0].in_stock());
  EXPECT_FALSE(stock->market.stock[3].in_stock());
  EXPECT_TRUE(stock->market.complete_stock_regions.empty());  // an import may be filtered

  Result<PriceCache> advice =
      ParseAliyunResponse(Testdata("describe_spot_advice.json"), "advice.json", Ctx());
  ASSERT_TRUE(advice.ok()) << advice.status().message();
  ASSERT_EQ(advice->market.spot_advice.size(), 1u);
  const cost::SpotAdvice& a = advice->market.spot_advice[0];
  EXPECT_EQ(a.region, "cn-hangzhou");
  EXPECT_DOUBLE_EQ(a.interruption_rate, 0.03);
  EXPECT_EQ(a.interrupt_rate_desc, "0-3%");
  EXPECT_EQ(a.average_spot_discount_pct, 35.0);
}

TEST(PriceImportTest, BadInputNamesFileAndPath) {
  struct Case {
    const char* name;
    std::string text;
    ImportContext ctx;
    const char* want;
  };
  ImportContext no_instance = Ctx();
  const Case kCases[] = {
      {"malformed_json", "{\"SpotPrices\": [", Ctx(),
       "x.json:1:17: malformed JSON: syntax error while parsing value - unexpected end of input; "
       "expected '[', '{', or a literal; expected the output of an aliyun CLI call such as "
       "'aliyun ecs DescribeSpotPriceHistory'"},
      {"unknown_shape", "{\"Regions\": {}}", Ctx(),
       "x.json: not a response of DescribePrice, DescribeSpotPriceHistory, "
       "DescribeAvailableResource or DescribeSpotAdvice (expected one of the keys PriceInfo, "
       "SpotPrices, AvailableZones, AvailableSpotZones)"},
      {"api_error_body", Testdata("throttled.json"), Ctx(),
       "x.json: the file holds an API error, not data: Throttling.User: Request was denied due "
       "to user flow control."},
      {"spot_price_not_number",
       R"({"Currency":"CNY","SpotPrices":{"SpotPriceType":[{"ZoneId":"cn-hangzhou-h","InstanceType":"ecs.gn7i-c8g1.2xlarge","Timestamp":"2026-11-29T10:00:00Z","SpotPrice":"cheap"}]}})",
       Ctx(), "x.json: SpotPrices.SpotPriceType[0].SpotPrice: expected a number"},
      {"missing_currency", R"({"SpotPrices":{"SpotPriceType":[]}})", Ctx(),
       "x.json: $.Currency: is missing; expected a string"},
      {"describe_price_without_context", Testdata("describe_price_hour.json"), no_instance,
       "x.json: PriceInfo: a DescribePrice response does not name its instance type and region; "
       "give them (gpuplan prices import --instance T --region R [--price-unit "
       "Hour|Month|Year])"},
      {"bad_stock_status",
       R"({"AvailableZones":{"AvailableZone":[{"ZoneId":"cn-hangzhou-h","AvailableResources":{"AvailableResource":[{"Type":"InstanceType","SupportedResources":{"SupportedResource":[{"Value":"ecs.gn7i-c8g1.2xlarge","Status":"Maybe"}]}}]}}]}})",
       Ctx(),
       "x.json: AvailableZones.AvailableZone[0].AvailableResources.AvailableResource[0]."
       "SupportedResources.SupportedResource[0].Status: expected Available or SoldOut, got "
       "\"Maybe\""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<PriceCache> got = ParseAliyunResponse(c.text, "x.json", c.ctx);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().message(), c.want);
  }
}

// Issue 32: a Timestamp whose 10th byte starts a multi-byte character was cut in half into the
// date, and the cache writer then threw nlohmann type_error 316; malformed dates imported with no
// age. Each is now an error naming the file and the field.
TEST(PriceImportTest, Issue32BadTextAndDatesAreErrorsNamingFileAndField) {
  auto spot = [](const std::string& zone, const std::string& ts) {
    return R"({"Currency":"CNY","SpotPrices":{"SpotPriceType":[{"ZoneId":")" + zone +
           R"(","InstanceType":"ecs.gn7i-c8g1.2xlarge","Timestamp":")" + ts +
           R"(","SpotPrice":3.4}]}})";
  };
  const std::string field = "x.json: SpotPrices.SpotPriceType[0].";
  struct Case {
    const char* name;
    std::string text;
    std::string want;
  };
  const Case kCases[] = {
      {"multibyte_in_timestamp", spot("cn-hangzhou-h", "2026-11-2\u01c711:00:00Z"),
       field + "Timestamp: expected an RFC 3339 time like 2026-11-29T10:00:00Z, got "
               "\"2026-11-2\xC7\x87"
               "11:00:00Z\""},
      {"letters_in_day", spot("cn-hangzhou-h", "2026-11-2XY11:00:00Z"),
       field + "Timestamp: expected an RFC 3339 time like 2026-11-29T10:00:00Z, got "
               "\"2026-11-2XY11:00:00Z\""},
      {"all_nines", spot("cn-hangzhou-h", "9999-99-99T99:99:99Z"),
       field + "Timestamp: expected an RFC 3339 time like 2026-11-29T10:00:00Z, got "
               "\"9999-99-99T99:99:99Z\""},
      {"february_30", spot("cn-hangzhou-h", "2026-02-30T10:00:00Z"),
       field + "Timestamp: expected an RFC 3339 time like 2026-11-29T10:00:00Z, got "
               "\"2026-02-30T10:00:00Z\""},
      {"nul_in_zone", spot("cn-hangzhou-h\\u0000", "2026-11-29T10:00:00Z"),
       field + "ZoneId: holds a NUL byte at offset 13"},
      {"nul_in_timestamp", spot("cn-hangzhou-h", "2026-11-29T10:00:00Z\\u0000"),
       field + "Timestamp: holds a NUL byte at offset 20"},
      {"escape_in_type",
       R"({"Currency":"CNY","SpotPrices":{"SpotPriceType":[{"ZoneId":"cn-hangzhou-h","InstanceType":"gn7i\u001b[2J","Timestamp":"2026-11-29T10:00:00Z","SpotPrice":3.4}]}})",
       field + "InstanceType: holds control character 0x1B at offset 4"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<PriceCache> got = ParseAliyunResponse(c.text, "x.json", Ctx());
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().message(), c.want);
  }
}

// A document built in memory (the API client's pages) may hold bytes no JSON text could.
TEST(PriceImportTest, Issue32InvalidUtf8InParsedDocumentIsAnError) {
  nlohmann::json doc = nlohmann::json::parse(Testdata("describe_spot_price_history.json"));
  doc["SpotPrices"]["SpotPriceType"][1]["ZoneId"] = std::string("cn-hangzhou-\xC7");
  Result<PriceCache> got = ParseAliyunJson(doc, "page.json", Ctx());
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(),
            "page.json: SpotPrices.SpotPriceType[1].ZoneId: is not valid UTF-8 (byte 0xC7 at "
            "offset 12)");
}

TEST(PriceImportTest, Issue32SpotDateIsTheUtcDateOfTheLatestObservation) {
  const std::string text =
      R"({"Currency":"CNY","SpotPrices":{"SpotPriceType":[)"
      R"({"ZoneId":"cn-hangzhou-h","InstanceType":"ecs.gn7i-c8g1.2xlarge","Timestamp":"2026-11-30T01:00:00+08:00","SpotPrice":3.1},)"
      R"({"ZoneId":"cn-hangzhou-h","InstanceType":"ecs.gn7i-c8g1.2xlarge","Timestamp":"2026-11-29T18:30:00Z","SpotPrice":3.2}]}})";
  Result<PriceCache> got = ParseAliyunResponse(text, "x.json", Ctx());
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->prices.size(), 1u);
  // 18:30Z is later than 01:00+08:00 (= 17:00Z the day before), though it sorts first as text.
  EXPECT_DOUBLE_EQ(got->prices[0].amount, 3.2);
  EXPECT_EQ(got->prices[0].as_of, "2026-11-29");
}

TEST(PriceImportTest, Issue32ContextWithoutAValidDateIsRefused) {
  for (const char* as_of : {"", "2026-02-30", "2026-11", "tomorrow"}) {
    SCOPED_TRACE(as_of);
    ImportContext ctx = Ctx();
    ctx.as_of = as_of;
    Result<PriceCache> got =
        ParseAliyunResponse(Testdata("describe_spot_advice.json"), "x.json", ctx);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().message(),
              "x.json: as-of date must be a date YYYY-MM-DD, got \"" + std::string(as_of) + "\"");
  }
}

TEST(PriceImportTest, ListOfPagesIsAccepted) {
  const std::string page = Testdata("describe_spot_advice.json");
  Result<PriceCache> got = ParseAliyunResponse("[" + page + "," + page + "]", "pages.json", Ctx());
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->market.spot_advice.size(), 2u);
}

TEST(PriceImportTest, RegionOfZone) {
  struct Case {
    const char* zone;
    const char* want;
  };
  const Case kCases[] = {{"cn-hangzhou-h", "cn-hangzhou"},
                         {"us-east-1a", "us-east-1"},
                         {"ap-southeast-1c", "ap-southeast-1"},
                         {"cn-hangzhou", "cn-hangzhou"},
                         {"eu-central-1", "eu-central-1"}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.zone);
    EXPECT_EQ(RegionOfZone(c.zone), c.want);
  }
}

TEST(PriceRatiosTest, EmbeddedFileMatchesModelDefaults) {
  Result<cost::PriceRatios> r = LoadPriceRatios();
  ASSERT_TRUE(r.ok()) << r.status().message();
  const cost::PriceRatios d;
  EXPECT_DOUBLE_EQ(r->subscription_month_vs_payg, d.subscription_month_vs_payg);
  EXPECT_DOUBLE_EQ(r->hours_per_month, d.hours_per_month);
  EXPECT_DOUBLE_EQ(r->reserved_no_upfront_vs_payg, d.reserved_no_upfront_vs_payg);
  EXPECT_DOUBLE_EQ(r->reserved_partial_hourly_vs_no_upfront,
                   d.reserved_partial_hourly_vs_no_upfront);
  EXPECT_EQ(r->spot_scenarios, d.spot_scenarios);
  EXPECT_DOUBLE_EQ(r->spot_default, d.spot_default);
  EXPECT_DOUBLE_EQ(r->spot_floor, d.spot_floor);
  EXPECT_DOUBLE_EQ(r->cny_per_usd_overseas, d.cny_per_usd_overseas);
}

TEST(PriceRatiosTest, BadRowsAreErrors) {
  const std::string header = "name,value,unit,source,as_of,trust,notes\n";
  struct Case {
    const char* name;
    std::string text;
    const char* want_part;
  };
  const Case kCases[] = {
      {"unknown_name", header + "spot_magic,0.5,ratio,X,2024-01-01,low,\n",
       "unknown ratio \"spot_magic\""},
      {"out_of_range", header + "spot_floor,3,ratio,X,2024-01-01,low,\n",
       "r.csv:2:12: field \"value\": expected a number from 0.01 to 1"},
      {"missing_ratio", header + "spot_floor,0.1,ratio,X,2024-01-01,low,\n", "missing ratio"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<cost::PriceRatios> r = ParsePriceRatios(c.text, "r.csv");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(c.want_part), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace gpuplan::io
