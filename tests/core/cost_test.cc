#include "gpuplan/cost.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace gpuplan::cost {
namespace {

constexpr char kA10[] = "ecs.gn7i-c8g1.2xlarge";

Price P(std::string instance, std::string region, std::string zone, Billing billing,
        std::string currency, double amount, std::string unit, std::string as_of,
        PriceSource origin, std::string trust = "high") {
  Price p;
  p.instance = std::move(instance);
  p.region = std::move(region);
  p.zone = std::move(zone);
  p.billing = billing;
  p.currency = std::move(currency);
  p.amount = amount;
  p.unit = std::move(unit);
  p.as_of = std::move(as_of);
  p.origin = origin;
  p.trust = std::move(trust);
  return p;
}

// C1 list price of the 1x A10 type in cn-hangzhou (alibaba_prices.md Appendix A).
Catalog A10Catalog() {
  Catalog c;
  c.prices.push_back(P(kA10, "cn-hangzhou", "", Billing::kPayg, "CNY", 9.5326, "hour", "2024-12-30",
                       PriceSource::kBuiltin));
  return c;
}

BillingRates A10Rates() {
  Result<BillingRates> r = ResolveRates(A10Catalog(), {kA10, "cn-hangzhou", "", Billing::kPayg},
                                        PriceRatios{}, "2026-11-30");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return *r;
}

// ------------------------------------------------------------------------------------------
// Money

TEST(MoneyTest, MixingCurrenciesIsAnErrorNeverASum) {
  struct Case {
    const char* name;
    Result<Money> got;
    bool ok;
    double want;
  };
  const Money cny = Money::Cny(2), usd = Money::Usd(1);
  const Case kCases[] = {
      {"cny_plus_cny", cny + Money::Cny(3), true, 5},
      {"usd_minus_usd", Money::Usd(5) - usd, true, 4},
      {"cny_plus_usd", cny + usd, false, 0},
      {"usd_plus_cny", usd + cny, false, 0},
      {"chain_keeps_first_error", cny + usd + Money::Cny(1), false, 0},
      {"chain_of_same_currency", cny + cny + cny, true, 6},
      {"minus_mixed", cny - usd, false, 0},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    ASSERT_EQ(c.got.ok(), c.ok);
    if (c.ok) {
      EXPECT_DOUBLE_EQ(c.got->amount(), c.want);
    } else {
      EXPECT_EQ(c.got.status().code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(c.got.status().message().find("currencies differ"), std::string::npos);
    }
  }
  EXPECT_EQ((cny + usd).status().message(),
            "cannot add CNY 2.00 and USD 1.00: currencies differ (CNY and USD are never mixed)");
  EXPECT_FALSE(cny.Ratio(usd).ok());
  EXPECT_FALSE(cny.Compare(usd).ok());
  EXPECT_EQ((Money::Usd(3) * 2.0).currency(), Currency::kUsd);
}

TEST(MoneyTest, PrintsCurrencyAndSensibleDecimals) {
  EXPECT_EQ(Money::Cny(9.5326).ToString(), "CNY 9.53");
  EXPECT_EQ(Money::Usd(0.0838).ToString(), "USD 0.0838");
  EXPECT_EQ(Money::Cny(0).ToString(), "CNY 0.00");
  EXPECT_EQ(ParseCurrency("usd"), Currency::kUsd);
  EXPECT_EQ(ParseCurrency("EUR"), std::nullopt);
}

TEST(MoneyTest, DaysBetweenDates) {
  EXPECT_EQ(DaysBetween("2024-12-30", "2026-11-30"), 700);
  EXPECT_EQ(DaysBetween("2024-02-28", "2024-03-01"), 2);  // leap year
  EXPECT_EQ(DaysBetween("2025-11", "2025-11-15"), 14);
  EXPECT_EQ(DaysBetween("~2026", "2026-11-30"), std::nullopt);
  EXPECT_EQ(DaysBetween("2024-13-01", "2026-11-30"), std::nullopt);
}

// ------------------------------------------------------------------------------------------
// Price lookup

TEST(PriceLookupTest, MostTrustedSourceWinsAndSaysWhereFrom) {
  Catalog c = A10Catalog();
  c.prices.push_back(P(kA10, "cn-hangzhou", "", Billing::kPayg, "CNY", 9.60, "hour", "2026-01-10",
                       PriceSource::kImport));
  c.prices.push_back(P(kA10, "cn-hangzhou", "", Billing::kPayg, "CNY", 9.74, "hour", "2026-11-01",
                       PriceSource::kApi));
  c.prices.push_back(P(kA10, "cn-beijing", "", Billing::kPayg, "CNY", 9.5326, "hour", "2024-12-30",
                       PriceSource::kBuiltin));
  struct Case {
    const char* name;
    PriceQuery query;
    double want;
    PriceSource want_source;
    int want_age;
  };
  const Case kCases[] = {
      {"api_beats_import_and_builtin",
       {kA10, "cn-hangzhou", "", Billing::kPayg},
       9.74,
       PriceSource::kApi,
       29},
      {"prefix_optional",
       {"gn7i-c8g1.2xlarge", "cn-hangzhou", "", Billing::kPayg},
       9.74,
       PriceSource::kApi,
       29},
      {"builtin_when_only_source",
       {kA10, "cn-beijing", "", Billing::kPayg},
       9.5326,
       PriceSource::kBuiltin,
       700},
      {"zone_query_falls_back_to_region_wide",
       {kA10, "cn-beijing", "cn-beijing-k", Billing::kPayg},
       9.5326,
       PriceSource::kBuiltin,
       700},
  };
  for (const Case& k : kCases) {
    SCOPED_TRACE(k.name);
    Result<PriceQuote> q = FindPrice(c, k.query, "2026-11-30");
    ASSERT_TRUE(q.ok()) << q.status().message();
    EXPECT_DOUBLE_EQ(q->price.amount(), k.want);
    EXPECT_EQ(q->source, k.want_source);
    EXPECT_EQ(q->age_days, k.want_age);
    EXPECT_EQ(q->price.currency(), Currency::kCny);
  }
}

TEST(PriceLookupTest, UnknownPriceIsNotFoundNeverZero) {
  Catalog c = A10Catalog();
  // C1 marks missing prices with 0; they must not read as free.
  c.prices.push_back(P(kA10, "us-east-1", "", Billing::kPayg, "CNY", 0, "hour", "2024-12-30",
                       PriceSource::kBuiltin));
  struct Case {
    const char* name;
    PriceQuery query;
    const char* want;
  };
  const Case kCases[] = {
      {"zero_price_row",
       {kA10, "us-east-1", "", Billing::kPayg},
       "price unknown for ecs.gn7i-c8g1.2xlarge payg in us-east-1"},
      {"no_row_for_region",
       {kA10, "eu-central-1", "", Billing::kPayg},
       "price unknown for ecs.gn7i-c8g1.2xlarge payg in eu-central-1"},
      {"no_row_for_billing",
       {kA10, "cn-hangzhou", "cn-hangzhou-h", Billing::kSpot},
       "price unknown for ecs.gn7i-c8g1.2xlarge spot in cn-hangzhou zone cn-hangzhou-h"},
  };
  for (const Case& k : kCases) {
    SCOPED_TRACE(k.name);
    Result<PriceQuote> q = FindPrice(c, k.query);
    ASSERT_FALSE(q.ok());
    EXPECT_EQ(q.status().code(), ErrorCode::kNotFound);
    EXPECT_EQ(q.status().message(), k.want);
  }
}

TEST(PriceLookupTest, SpotPicksZoneOrCheapestZone) {
  Catalog c = A10Catalog();
  for (auto [zone, price] :
       {std::pair{"cn-hangzhou-h", 3.34}, {"cn-hangzhou-i", 2.38}, {"cn-hangzhou-j", 9.53}}) {
    c.prices.push_back(P(kA10, "cn-hangzhou", zone, Billing::kSpot, "CNY", price, "hour",
                         "2024-10-09", PriceSource::kBuiltin, "medium"));
  }
  Result<PriceQuote> any = FindPrice(c, {kA10, "cn-hangzhou", "", Billing::kSpot});
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->zone, "cn-hangzhou-i");
  EXPECT_DOUBLE_EQ(any->price.amount(), 2.38);
  Result<PriceQuote> h = FindPrice(c, {kA10, "cn-hangzhou", "cn-hangzhou-h", Billing::kSpot});
  ASSERT_TRUE(h.ok());
  EXPECT_DOUBLE_EQ(h->price.amount(), 3.34);
}

TEST(PriceLookupTest, EffectivePricesHideBuiltinBehindApi) {
  Catalog c = A10Catalog();
  c.prices.push_back(P(kA10, "cn-hangzhou", "", Billing::kPayg, "CNY", 9.74, "hour", "2026-11-01",
                       PriceSource::kApi));
  c.prices.push_back(P(kA10, "cn-shanghai", "", Billing::kPayg, "CNY", 9.5326, "hour", "2024-12-30",
                       PriceSource::kBuiltin));
  std::vector<PriceQuote> rows = EffectivePrices(c, "", "", std::nullopt, "2026-11-30");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].region, "cn-hangzhou");
  EXPECT_EQ(rows[0].source, PriceSource::kApi);
  EXPECT_DOUBLE_EQ(rows[0].price.amount(), 9.74);
  EXPECT_EQ(rows[1].region, "cn-shanghai");
  EXPECT_EQ(EffectivePrices(c, "gn7i-c8g1.2xlarge", "cn-shanghai").size(), 1u);
  EXPECT_TRUE(EffectivePrices(c, "", "", Billing::kSpot).empty());
}

TEST(PriceLookupTest, ResolveRatesDerivesMissingModesAndLabelsThem) {
  BillingRates r = A10Rates();
  struct Case {
    const char* name;
    const PriceQuote& quote;
    double want;
    const char* unit;
    bool derived;
  };
  const Case kCases[] = {
      {"payg_listed", r.payg(), 9.5326, "hour", false},
      {"spot_0.35", r.Of(Billing::kSpot), 0.35 * 9.5326, "hour", true},
      {"month_0.66_x_730h", r.Of(Billing::kSubscriptionMonth), 0.66 * 730 * 9.5326, "month", true},
      {"year_upper_bound_12_months", r.Of(Billing::kSubscriptionYear), 12 * 0.66 * 730 * 9.5326,
       "year", true},
      {"ri_no_upfront_0.6188", r.Of(Billing::kReservedNoUpfront), 5.89877288, "hour", true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_NEAR(c.quote.price.amount(), c.want, 1e-6);
    EXPECT_EQ(c.quote.unit, c.unit);
    EXPECT_EQ(c.quote.derived, c.derived);
    EXPECT_FALSE(c.quote.basis.empty());
  }
  EXPECT_EQ(r.payg().age_days, 700);
}

TEST(PriceLookupTest, ResolveRatesUsesListedPricesOnlyInThePaygCurrency) {
  Catalog c = A10Catalog();
  // A listed monthly quote in CNY is used; a USD one (international site) is not mixed in.
  c.prices.push_back(P(kA10, "cn-hangzhou", "", Billing::kSubscriptionMonth, "USD", 600, "month",
                       "2026-09-24", PriceSource::kImport));
  c.prices.push_back(P(kA10, "cn-hangzhou", "", Billing::kSpot, "CNY", 12.0, "hour", "2026-11-01",
                       PriceSource::kApi));
  Result<BillingRates> r = ResolveRates(c, {kA10, "cn-hangzhou", "", Billing::kPayg}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->Of(Billing::kSubscriptionMonth).derived);
  EXPECT_EQ(r->Of(Billing::kSubscriptionMonth).price.currency(), Currency::kCny);
  // A spot price above PAYG is capped at PAYG (SpotAsPriceGo).
  EXPECT_DOUBLE_EQ(r->Of(Billing::kSpot).price.amount(), 9.5326);
  EXPECT_FALSE(r->Of(Billing::kSpot).derived);
  c.prices.push_back(P(kA10, "cn-hangzhou", "", Billing::kSubscriptionMonth, "CNY", 4675.66,
                       "month", "2026-09-24", PriceSource::kImport));
  r = ResolveRates(c, {kA10, "cn-hangzhou", "", Billing::kPayg}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->Of(Billing::kSubscriptionMonth).derived);
  EXPECT_DOUBLE_EQ(r->Of(Billing::kSubscriptionMonth).price.amount(), 4675.66);
}

// ------------------------------------------------------------------------------------------
// Job cost per billing mode (worked examples; numbers computed by hand from the formulas).

TEST(JobCostTest, WorkedExamplesPerMode) {
  const BillingRates rates = A10Rates();
  struct Case {
    const char* name;
    JobSpec job;
    CostOptions options;
    double want_total;
    double want_wall;
  };
  CostOptions sp;
  sp.mode = Mode::kSavingsPlan;
  sp.savings_plan_rate = 0.6;
  const Case kCases[] = {
      // 9.5326 x 100 h x 2 instances.
      {"payg_100h_2x", {100, 2}, CostOptions::Of(Mode::kPayg), 1906.52, 100},
      // Per-second billing: 10 minutes cost a sixth of an hour.
      {"payg_10min", {1.0 / 6, 1}, CostOptions::Of(Mode::kPayg), 9.5326 / 6, 1.0 / 6},
      // One whole month even for 100 h: 0.66 x 730 x 9.5326.
      {"month_100h", {100, 1}, CostOptions::Of(Mode::kSubscriptionMonth), 4592.80668, 100},
      // 800 h needs two months.
      {"month_800h", {800, 1}, CostOptions::Of(Mode::kSubscriptionMonth), 9185.61336, 800},
      {"year_800h_2x", {800, 2}, CostOptions::Of(Mode::kSubscriptionYear), 2 * 55113.68016, 800},
      // RI fee 0.6188 x PAYG for the hours used.
      {"ri_100h", {100, 1}, CostOptions::Of(Mode::kReservedNoUpfront), 589.877288, 100},
      {"savings_plan_0.6_100h", {100, 1}, sp, 0.6 * 953.26, 100},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<JobCostEstimate> e = JobCost(rates, c.job, c.options);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_NEAR(e->total.amount(), c.want_total, 1e-6);
    EXPECT_NEAR(e->wall_hours, c.want_wall, 1e-9);
    EXPECT_EQ(e->total.currency(), Currency::kCny);
    EXPECT_FALSE(e->notes.empty());
  }
}

TEST(JobCostTest, CommitmentsReportTheWholeTerm) {
  const BillingRates rates = A10Rates();
  Result<JobCostEstimate> ri = JobCost(rates, {100, 1}, CostOptions::Of(Mode::kReservedNoUpfront));
  ASSERT_TRUE(ri.ok());
  ASSERT_TRUE(ri->commitment.has_value());
  EXPECT_NEAR(ri->commitment->amount(), 5.89877288 * 8760, 1e-6);
  CostOptions sp;
  sp.mode = Mode::kSavingsPlan;
  sp.savings_plan_rate = 0.5;
  sp.savings_plan_years = 3;
  Result<JobCostEstimate> plan = JobCost(rates, {10, 2}, sp);
  ASSERT_TRUE(plan.ok());
  EXPECT_NEAR(plan->commitment->amount(), 0.5 * 9.5326 * 2 * 8760 * 3, 1e-6);
}

TEST(JobCostTest, SpotInterruptionOverheadWithYoungDaly) {
  const BillingRates rates = A10Rates();
  struct Case {
    const char* name;
    JobSpec job;
    SpotRisk risk;
    double want_wall;
    std::optional<double> want_interval;
    double want_interruptions;
  };
  auto risk = [](double rate, bool notice, std::optional<double> interval = std::nullopt) {
    SpotRisk r;
    r.reclaim_rate_per_hour = rate;
    r.restart_hours = 0.25;
    r.checkpoint_hours = 0.05;
    r.checkpoint_on_notice = notice;
    r.checkpoint_interval_hours = interval;
    return r;
  };
  const double tau = std::sqrt(2 * 0.05 * 21);  // MTBF 1/0.05 + 1 h protection = 21 h
  const Case kCases[] = {
      // wall = 100 (1 + C/tau) / (1 - (R + tau/2) / MTBF)
      {"young_daly_rate_0.05",
       {100, 1},
       risk(0.05, false),
       108.4848993303306,
       tau,
       108.4848993303306 / 21},
      // Checkpoint (3 min) fits in the 5-minute notice: only C + R lost per reclaim.
      {"checkpoint_on_notice",
       {100, 1},
       risk(0.05, true),
       100 / (1 - 0.3 / 21),
       std::nullopt,
       100 / (1 - 0.3 / 21) / 21},
      {"zero_rate_no_overhead", {100, 1}, risk(0.0, false), 100, std::nullopt, 0},
      // Fixed 4 h interval: wall = 100 (1 + 0.05/4) / (1 - (0.25 + 2) / 21).
      {"fixed_interval_4h",
       {100, 1},
       risk(0.05, false, 4.0),
       100 * 1.0125 / (1 - 2.25 / 21),
       4.0,
       100 * 1.0125 / (1 - 2.25 / 21) / 21},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    CostOptions o;
    o.mode = Mode::kSpot;
    o.spot = c.risk;
    Result<JobCostEstimate> e = JobCost(rates, c.job, o);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_NEAR(e->wall_hours, c.want_wall, 1e-9);
    EXPECT_EQ(e->checkpoint_interval_hours.has_value(), c.want_interval.has_value());
    if (c.want_interval) {
      EXPECT_NEAR(*e->checkpoint_interval_hours, *c.want_interval, 1e-9);
    }
    EXPECT_NEAR(e->expected_interruptions, c.want_interruptions, 1e-9);
    // Derived spot price 0.35 x PAYG, for the whole wall time.
    EXPECT_NEAR(e->total.amount(), 0.35 * 9.5326 * c.want_wall, 1e-6);
    EXPECT_NEAR(e->interruption_overhead.amount(), 0.35 * 9.5326 * (c.want_wall - 100), 1e-6);
    EXPECT_FALSE(e->lower_bound);
  }
}

TEST(JobCostTest, SpotEdgeCases) {
  const BillingRates rates = A10Rates();
  CostOptions o;
  o.mode = Mode::kSpot;
  // Unknown reclaim rate: cost without overhead, flagged as a lower bound.
  Result<JobCostEstimate> unknown = JobCost(rates, {10, 1}, o);
  ASSERT_TRUE(unknown.ok());
  EXPECT_TRUE(unknown->lower_bound);
  EXPECT_NEAR(unknown->total.amount(), 0.35 * 9.5326 * 10, 1e-9);
  // 16 instances at 1 reclaim per 2 h each: the job never progresses.
  o.spot.reclaim_rate_per_hour = 0.5;
  o.spot.protection_hour = false;
  o.spot.restart_hours = 0.5;
  Result<JobCostEstimate> hopeless = JobCost(rates, {100, 16}, o);
  ASSERT_FALSE(hopeless.ok());
  EXPECT_EQ(hopeless.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(hopeless.status().message().find("spot cannot finish"), std::string::npos);
  // A scenario ratio below the documented 0.10 floor is raised to it.
  CostOptions low;
  low.mode = Mode::kSpot;
  low.spot.spot_ratio = 0.05;
  Result<JobCostEstimate> floored = JobCost(rates, {10, 1}, low);
  ASSERT_TRUE(floored.ok());
  EXPECT_NEAR(floored->rate_per_hour.amount(), 0.95326, 1e-9);
}

TEST(JobCostTest, InvalidInputsAreErrors) {
  const BillingRates rates = A10Rates();
  struct Case {
    const char* name;
    JobSpec job;
    CostOptions options;
  };
  CostOptions sp;
  sp.mode = Mode::kSavingsPlan;  // no rate: unknown, must not default silently
  CostOptions sp_bad = sp;
  sp_bad.savings_plan_rate = 1.5;
  const Case kCases[] = {
      {"zero_hours", {0, 1}, CostOptions::Of(Mode::kPayg)},
      {"negative_hours", {-3, 1}, CostOptions::Of(Mode::kPayg)},
      {"nan_hours", {std::nan(""), 1}, CostOptions::Of(Mode::kPayg)},
      {"zero_instances", {10, 0}, CostOptions::Of(Mode::kPayg)},
      {"savings_plan_without_rate", {10, 1}, sp},
      {"savings_plan_rate_above_1", {10, 1}, sp_bad},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<JobCostEstimate> e = JobCost(rates, c.job, c.options);
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.status().code(), ErrorCode::kInvalidArgument);
  }
}

TEST(JobCostTest, YoungDalyInterval) {
  struct Case {
    const char* name;
    double c, mtbf, want;
  };
  const Case kCases[] = {
      {"6min_checkpoint_20h_mtbf", 0.1, 20, 2.0},
      {"1min_checkpoint_24h_mtbf", 1.0 / 60, 24, std::sqrt(0.8)},
      {"seconds_units", 30, 3600 * 8, std::sqrt(2 * 30 * 28800.0)},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_NEAR(YoungDalyInterval(c.c, c.mtbf), c.want, 1e-9);
  }
}

// ------------------------------------------------------------------------------------------
// Service per month and break-even.

TEST(MonthlyCostTest, ServiceHoursPerMonthAndBreakEven) {
  const BillingRates rates = A10Rates();
  Result<BreakEven> b = SubscriptionBreakEven(rates);
  ASSERT_TRUE(b.ok());
  EXPECT_NEAR(b->utilisation, 0.66, 1e-12);
  EXPECT_NEAR(b->hours_per_month, 481.8, 1e-9);
  struct Case {
    const char* name;
    double hours;
    CostOptions options;
    double want;
  };
  CostOptions sp;
  sp.mode = Mode::kSavingsPlan;
  sp.savings_plan_rate = 0.6;
  const Case kCases[] = {
      {"payg_300h", 300, CostOptions::Of(Mode::kPayg), 2859.78},
      {"month_any_use", 300, CostOptions::Of(Mode::kSubscriptionMonth), 4592.80668},
      {"payg_at_break_even_equals_month", 481.8, CostOptions::Of(Mode::kPayg), 4592.80668},
      // Utilisation 0.41 < 0.6: the plan does not pay off, PAYG.
      {"savings_plan_low_use", 300, sp, 2859.78},
      // Utilisation 0.82 > 0.6: commit 0.6 x PAYG for all 730 h.
      {"savings_plan_high_use", 600, sp, 0.6 * 9.5326 * 730},
      {"ri_every_hour", 10, CostOptions::Of(Mode::kReservedNoUpfront), 5.89877288 * 730},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<MonthlyCostEstimate> m = MonthlyCost(rates, c.hours, 1, c.options);
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_NEAR(m->per_month.amount(), c.want, 1e-6);
  }
  EXPECT_FALSE(MonthlyCost(rates, 800, 1, CostOptions::Of(Mode::kPayg)).ok());
}

// ------------------------------------------------------------------------------------------
// Availability and spot advice.

TEST(AvailabilityTest, StockDataThenPriceBookDecide) {
  Catalog c = A10Catalog();
  MarketData m;
  auto stock = [](std::string region, std::string zone, std::string status, std::string cat) {
    StockRecord s;
    s.instance = kA10;
    s.region = std::move(region);
    s.zone = std::move(zone);
    s.status = std::move(status);
    s.status_category = std::move(cat);
    s.as_of = "2026-11-29";
    return s;
  };
  m.stock.push_back(stock("cn-hangzhou", "cn-hangzhou-h", "Available", "WithStock"));
  m.stock.push_back(stock("cn-hangzhou", "cn-hangzhou-i", "SoldOut", "WithoutStock"));
  m.stock.push_back(stock("cn-beijing", "cn-beijing-k", "SoldOut", "WithoutStock"));
  m.complete_stock_regions.push_back("cn-shanghai");
  struct Case {
    const char* name;
    const char* region;
    const char* zone;
    bool want_available;
    const char* want_reason_part;
  };
  const Case kCases[] = {
      {"in_stock_somewhere", "cn-hangzhou", "", true, "in stock in cn-hangzhou"},
      {"zone_sold_out", "cn-hangzhou", "cn-hangzhou-i", false, "sold out in cn-hangzhou zone"},
      {"all_zones_sold_out", "cn-beijing", "", false, "sold out in cn-beijing"},
      {"complete_region_without_type", "cn-shanghai", "", false, "not offered in cn-shanghai"},
      {"no_stock_data_but_priced", "cn-hangzhou-x", "", false,
       "not sold in cn-hangzhou-x per the price book"},
  };
  for (const Case& k : kCases) {
    SCOPED_TRACE(k.name);
    Availability a = CheckAvailability(c, m, "gn7i-c8g1.2xlarge", k.region, k.zone);
    EXPECT_EQ(a.available, k.want_available);
    EXPECT_NE(a.reason.find(k.want_reason_part), std::string::npos) << a.reason;
  }
  // Without stock data the price book alone says it is sold in cn-hangzhou.
  Availability book = CheckAvailability(c, MarketData{}, kA10, "cn-hangzhou");
  EXPECT_TRUE(book.available);
  EXPECT_FALSE(book.stock_checked);
  Availability none = CheckAvailability(c, MarketData{}, "ecs.gn8v.4xlarge", "cn-hangzhou");
  EXPECT_FALSE(none.available);
  EXPECT_NE(none.reason.find("no price in any region"), std::string::npos);
}

TEST(AvailabilityTest, ReclaimRateFromSpotAdvice) {
  MarketData m;
  SpotAdvice a;
  a.instance = kA10;
  a.region = "cn-hangzhou";
  a.zone = "cn-hangzhou-h";
  a.interruption_rate = 0.03;
  m.spot_advice.push_back(a);
  a.zone = "cn-hangzhou-i";
  a.interruption_rate = 12;  // percent form
  m.spot_advice.push_back(a);
  std::optional<double> h =
      ReclaimRatePerHour(m, "gn7i-c8g1.2xlarge", "cn-hangzhou", "cn-hangzhou-h");
  ASSERT_TRUE(h.has_value());
  EXPECT_NEAR(*h, -std::log(0.97) / 720, 1e-12);
  std::optional<double> worst = ReclaimRatePerHour(m, kA10, "cn-hangzhou");
  ASSERT_TRUE(worst.has_value());
  EXPECT_NEAR(*worst, -std::log(0.88) / 720, 1e-12);
  EXPECT_FALSE(ReclaimRatePerHour(m, kA10, "cn-beijing").has_value());
}

// ------------------------------------------------------------------------------------------
// Storage.

TEST(StorageCostTest, KindAndBillingNamesParse) {
  EXPECT_EQ(ParseStorageKind("ESSD_PL3"), StorageKind::kEssdPl3);
  EXPECT_EQ(ParseBilling("savings_plan"), Billing::kSavingsPlan);
}

}  // namespace
}  // namespace gpuplan::cost
