#include "io/price_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuplan::io {
namespace {

Price ApiPrice(std::string region, std::string zone, Billing billing, double amount) {
  Price p;
  p.instance = "ecs.gn7i-c8g1.2xlarge";
  p.region = std::move(region);
  p.zone = std::move(zone);
  p.billing = billing;
  p.currency = "CNY";
  p.amount = amount;
  p.unit = "hour";
  p.as_of = "2026-11-30";
  p.trust = "high";
  p.origin = PriceSource::kApi;
  return p;
}

PriceCache Sample() {
  PriceCache c;
  c.prices.push_back(ApiPrice("cn-hangzhou", "", Billing::kPayg, 9.5326));
  c.prices.push_back(ApiPrice("cn-hangzhou", "cn-hangzhou-h", Billing::kSpot, 3.431));
  cost::StockRecord s;
  s.instance = "ecs.gn7i-c8g1.2xlarge";
  s.region = "cn-hangzhou";
  s.zone = "cn-hangzhou-h";
  s.status = "Available";
  s.status_category = "WithStock";
  s.as_of = "2026-11-30";
  c.market.stock.push_back(s);
  cost::SpotAdvice a;
  a.instance = s.instance;
  a.region = s.region;
  a.zone = s.zone;
  a.interruption_rate = 0.03;
  a.interrupt_rate_desc = "0-3%";
  a.average_spot_discount_pct = 35;
  a.as_of = "2026-11-30";
  c.market.spot_advice.push_back(a);
  c.market.complete_stock_regions.push_back("cn-hangzhou");
  return c;
}

TEST(PriceCacheTest, JsonRoundTrip) {
  const PriceCache c = Sample();
  Result<PriceCache> back = PriceCacheFromJson(PriceCacheToJson(c), "prices.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->prices.size(), 2u);
  EXPECT_EQ(back->prices[1].zone, "cn-hangzhou-h");
  EXPECT_EQ(back->prices[1].billing, Billing::kSpot);
  EXPECT_DOUBLE_EQ(back->prices[1].amount, 3.431);
  EXPECT_EQ(back->prices[1].origin, PriceSource::kApi);
  ASSERT_EQ(back->market.stock.size(), 1u);
  EXPECT_TRUE(back->market.stock[0].in_stock());
  ASSERT_EQ(back->market.spot_advice.size(), 1u);
  EXPECT_EQ(back->market.spot_advice[0].average_spot_discount_pct, 35.0);
  EXPECT_EQ(back->market.complete_stock_regions, std::vector<std::string>{"cn-hangzhou"});
  // Serialising again gives the same bytes (stable files, clean diffs).
  EXPECT_EQ(PriceCacheToJson(*back), PriceCacheToJson(c));
}

TEST(PriceCacheTest, CorruptFilesAreClearErrors) {
  struct Case {
    const char* name;
    const char* text;
    const char* want;
  };
  const char* fix = "; delete it or run 'gpuplan prices refresh' to rebuild it";
  const Case kCases[] = {
      {"not_json", "{oops", "p.json: not a gpuplan price cache (invalid JSON)"},
      {"wrong_version", R"({"version": 7})",
       "p.json: unsupported price cache version (expected 1)"},
      {"prices_not_list", R"({"version": 1, "prices": {}})", "p.json: \"prices\" must be a list"},
      {"builtin_source",
       R"({"version": 1, "prices": [{"instance": "ecs.x", "region": "r", "billing": "payg", "price": 1, "currency": "CNY", "unit": "hour", "source": "builtin", "as_of": "2026-01-01"}]})",
       "p.json: prices[0]: field \"source\" expected \"api\", \"import\" or \"user\", got "
       "\"builtin\""},
      {"bad_currency",
       R"({"version": 1, "prices": [{"instance": "ecs.x", "region": "r", "billing": "payg", "price": 1, "currency": "EUR", "unit": "hour", "source": "api", "as_of": "2026-01-01"}]})",
       "p.json: prices[0]: field \"currency\" expected CNY or USD, got \"EUR\""},
      {"price_not_number",
       R"({"version": 1, "prices": [{"instance": "ecs.x", "region": "r", "billing": "payg", "price": "1", "currency": "CNY", "unit": "hour", "source": "api", "as_of": "2026-01-01"}]})",
       "p.json: prices[0]: field \"price\" expected a number"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<PriceCache> got = PriceCacheFromJson(c.text, "p.json");
    ASSERT_FALSE(got.ok());
    const std::string msg = got.status().message();
    EXPECT_EQ(msg.rfind(c.want, 0), 0u) << msg;
    if (std::string(c.name) != "builtin_source" && std::string(c.name) != "bad_currency" &&
        std::string(c.name) != "price_not_number") {
      EXPECT_NE(msg.find(fix), std::string::npos);
    }
  }
}

// Issue 32: a cached row without a real date had no age and never turned stale; text a JSON
// writer cannot take made the next write throw.
TEST(PriceCacheTest, Issue32BadDatesAndTextAreFieldErrors) {
  auto price = [](const std::string& as_of, const std::string& notes) {
    return R"({"version": 1, "prices": [{"instance": "ecs.x", "region": "r", "billing": "payg", "price": 1, "currency": "CNY", "unit": "hour", "source": "api", "as_of": ")" +
           as_of + R"(", "notes": ")" + notes + R"("}]})";
  };
  struct Case {
    const char* name;
    std::string text;
    const char* want;
  };
  const Case kCases[] = {
      {"price_bad_date", price("2026-11-2X", ""),
       "p.json: prices[0]: field \"as_of\" expected a date YYYY-MM-DD, got \"2026-11-2X\""},
      {"price_impossible_date", price("9999-99-99", ""),
       "p.json: prices[0]: field \"as_of\" expected a date YYYY-MM-DD, got \"9999-99-99\""},
      {"price_empty_date", price("", ""),
       "p.json: prices[0]: field \"as_of\" expected a date YYYY-MM-DD, got \"\""},
      {"price_nul_in_notes", price("2026-11-30", "a\\u0000b"),
       "p.json: prices[0]: field \"notes\" holds a NUL byte at offset 1"},
      {"stock_bad_date",
       R"({"version": 1, "stock": [{"instance": "ecs.x", "region": "r", "status": "Available", "as_of": "2026-13-01", "source": "api"}]})",
       "p.json: stock[0]: field \"as_of\" expected a date YYYY-MM-DD, got \"2026-13-01\""},
      {"negative_rate",
       R"({"version": 1, "spot_advice": [{"instance": "ecs.x", "region": "r", "interruption_rate": -0.1, "source": "api", "as_of": "2026-11-30"}]})",
       "p.json: spot_advice[0]: field \"interruption_rate\" expected a rate from 0 to 1 (or a "
       "percent up to 100)"},
      {"negative_price",
       R"({"version": 1, "prices": [{"instance": "ecs.x", "region": "r", "billing": "payg", "price": -1, "currency": "CNY", "unit": "hour", "source": "api", "as_of": "2026-01-01"}]})",
       "p.json: prices[0]: field \"price\" expected a number above 0 (a zero price means not "
       "priced)"},
      {"advice_missing_date",
       R"({"version": 1, "spot_advice": [{"instance": "ecs.x", "region": "r", "interruption_rate": 0.1, "source": "api"}]})",
       "p.json: spot_advice[0]: field \"as_of\" is missing; expected a string"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<PriceCache> got = PriceCacheFromJson(c.text, "p.json");
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().message(), c.want);
  }
}

TEST(PriceCacheTest, Issue32WriterNeverThrowsOnInvalidUtf8) {
  PriceCache c = Sample();
  c.prices[0].notes = "bad \xC7";
  std::string text;
  EXPECT_NO_THROW(text = PriceCacheToJson(c));
  EXPECT_NE(text.find("bad \xEF\xBF\xBD"), std::string::npos);  // U+FFFD
}

TEST(PriceCacheTest, MergeReplacesSameKeysAndCompleteRegions) {
  PriceCache cache = Sample();
  PriceCache update;
  update.prices.push_back(ApiPrice("cn-hangzhou", "", Billing::kPayg, 9.74));    // replaces
  update.prices.push_back(ApiPrice("cn-shanghai", "", Billing::kPayg, 9.5326));  // appends
  Price imported = ApiPrice("cn-hangzhou", "", Billing::kPayg, 9.60);
  imported.origin = PriceSource::kImport;  // another origin: kept beside the api row
  update.prices.push_back(imported);
  cost::StockRecord fresh = cache.market.stock[0];
  fresh.zone = "cn-hangzhou-i";
  update.market.stock.push_back(fresh);
  update.market.complete_stock_regions.push_back("cn-hangzhou");
  MergePriceCache(update, &cache);
  ASSERT_EQ(cache.prices.size(), 4u);
  EXPECT_DOUBLE_EQ(cache.prices[0].amount, 9.74);
  EXPECT_EQ(cache.prices[2].region, "cn-shanghai");
  // A complete refresh of the region replaces its old stock rows: zone h is gone.
  ASSERT_EQ(cache.market.stock.size(), 1u);
  EXPECT_EQ(cache.market.stock[0].zone, "cn-hangzhou-i");
  EXPECT_EQ(cache.market.complete_stock_regions.size(), 1u);
}

TEST(PriceCacheTest, CacheDirFollowsXdg) {
  struct Case {
    const char* name;
    const char* xdg;
    const char* home;
    const char* want;
  };
  const Case kCases[] = {{"xdg", "/x/cache", "/home/u", "/x/cache/gpuplan"},
                         {"empty_xdg_uses_home", "", "/home/u", "/home/u/.cache/gpuplan"},
                         {"home_only", nullptr, "/home/u", "/home/u/.cache/gpuplan"}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<std::string> dir = PriceCacheDir(c.xdg, c.home);
    ASSERT_TRUE(dir.ok());
    EXPECT_EQ(*dir, c.want);
  }
  EXPECT_FALSE(PriceCacheDir(nullptr, nullptr).ok());
}

TEST(PriceCacheTest, ApplySkipsUnknownTypesAndKeepsBuiltin) {
  Catalog catalog;
  InstanceType t;
  t.name = "ecs.gn7i-c8g1.2xlarge";
  catalog.instances.push_back(t);
  Price builtin = ApiPrice("cn-hangzhou", "", Billing::kPayg, 9.5326);
  builtin.origin = PriceSource::kBuiltin;
  catalog.prices.push_back(builtin);
  PriceCache cache = Sample();
  Price unknown = ApiPrice("cn-hangzhou", "", Billing::kPayg, 1.0);
  unknown.instance = "ecs.gn99-future.2xlarge";
  cache.prices.push_back(unknown);
  EXPECT_EQ(ApplyPriceCache(cache, &catalog), 1);
  ASSERT_EQ(catalog.prices.size(), 3u);  // builtin + 2 api rows
  EXPECT_EQ(catalog.prices[0].origin, PriceSource::kBuiltin);
}

}  // namespace
}  // namespace gpuplan::io
