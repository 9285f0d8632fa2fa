// The billing table (gpuplan/billing.h): every row parses back to itself under its name and
// alias, the readers' subsets and lists come from the table, and the cost model agrees with it.
#include "gpuplan/billing.h"

#include <gtest/gtest.h>

#include <string>

#include "gpuplan/cost.h"

namespace gpuplan {
namespace {

TEST(BillingTableTest, EveryRowRoundTripsNameAndAliasInAnyCase) {
  for (const BillingMode& m : kBillingModes) {
    SCOPED_TRACE(std::string(m.name));
    EXPECT_EQ(&BillingModeOf(m.billing), &m);
    EXPECT_EQ(BillingName(m.billing), m.name);
    EXPECT_EQ(ParseBilling(m.name), m.billing);
    std::string upper(m.name);
    for (char& c : upper)
      c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    EXPECT_EQ(ParseBilling(upper), m.billing);
    if (!m.alias.empty()) {
      EXPECT_EQ(ParseBilling(m.alias), m.billing);
    }
    EXPECT_TRUE(m.charge_type == "PostPaid" || m.charge_type == "PrePaid");
    EXPECT_FALSE(m.summary.empty());
  }
  EXPECT_EQ(ParseBilling("monthly"), std::nullopt);
  EXPECT_EQ(ParseBilling(""), std::nullopt);
}

// The spellings that flags, YAML files, prices.csv and JSON already use stay as they were.
TEST(BillingTableTest, KeepsEveryExistingSpelling) {
  struct Case {
    const char* name;
    Billing want;
  };
  const Case kCases[] = {
      {"payg", Billing::kPayg},
      {"spot", Billing::kSpot},
      {"subscription", Billing::kSubscriptionMonth},
      {"subscription_month", Billing::kSubscriptionMonth},
      {"subscription_year", Billing::kSubscriptionYear},
      {"reserved_no_upfront", Billing::kReservedNoUpfront},
      {"reserved_partial_upfront", Billing::kReservedPartialUpfront},
      {"savings_plan", Billing::kSavingsPlan},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ParseBilling(c.name), c.want);
  }
}

TEST(BillingTableTest, EachReaderGetsItsSubsetOfTheTable) {
  struct Case {
    const char* name;
    BillingUse use;
    const char* choices;
  };
  const Case kCases[] = {
      {"any", BillingUse::kAny,
       "payg, spot, subscription_month (or subscription), subscription_year, reserved_no_upfront, "
       "reserved_partial_upfront or savings_plan"},
      {"price_rows", BillingUse::kPriceRow,
       "payg, spot, subscription_month (or subscription), subscription_year, reserved_no_upfront "
       "or reserved_partial_upfront"},
      {"costed", BillingUse::kCosted,
       "payg, spot, subscription_month (or subscription), subscription_year, reserved_no_upfront "
       "or savings_plan"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(BillingChoices(c.use), c.choices);
    const std::vector<Billing> modes = BillingModes(c.use);
    const std::vector<std::string_view> names = BillingNames(c.use);
    ASSERT_EQ(modes.size(), names.size());
    for (size_t i = 0; i < modes.size(); ++i) {
      EXPECT_EQ(names[i], BillingName(modes[i]));
      EXPECT_EQ(ParseBilling(names[i], c.use), modes[i]);
      EXPECT_NE(BillingChoices(c.use).find(names[i]), std::string::npos);
    }
    for (const BillingMode& m : kBillingModes) {
      const bool allowed = BillingAllowed(m, c.use);
      EXPECT_EQ(ParseBilling(m.name, c.use).has_value(), allowed) << m.name;
    }
  }
  // A savings plan is a discount on PAYG, never a price row; partial upfront is never costed.
  EXPECT_EQ(ParseBilling("savings_plan", BillingUse::kPriceRow), std::nullopt);
  EXPECT_EQ(ParseBilling("reserved_partial_upfront", BillingUse::kCosted), std::nullopt);
}

// The charge type a deploy uses and the term the cost model bills come from the same row.
TEST(BillingTableTest, PrepaidModesArePrePaidTermsAndCostedModesPrice) {
  Catalog catalog;
  catalog.prices.push_back({.instance = "ecs.t1",
                            .region = "r",
                            .zone = "",
                            .billing = Billing::kPayg,
                            .currency = "CNY",
                            .amount = 10,
                            .unit = "hour",
                            .as_of = "2026-01-01",
                            .trust = "high",
                            .origin = PriceSource::kBuiltin,
                            .notes = "",
                            .provenance = {}});
  Result<cost::BillingRates> rates =
      cost::ResolveRates(catalog, {"ecs.t1", "r", "", Billing::kPayg}, cost::PriceRatios{});
  ASSERT_TRUE(rates.ok()) << rates.status().message();
  for (const BillingMode& m : kBillingModes) {
    SCOPED_TRACE(std::string(m.name));
    if (m.charge_type == "PrePaid") {
      EXPECT_TRUE(m.prepaid);
      EXPECT_GT(m.term_months, 0);
    }
    cost::CostOptions options = cost::CostOptions::Of(m.billing);
    options.savings_plan_rate = 0.6;
    Result<cost::JobCostEstimate> e =
        cost::JobCost(*rates, {.work_hours = 10, .instances = 1}, options);
    EXPECT_EQ(e.ok(), m.costed) << (e.ok() ? "" : e.status().message());
    if (!e.ok())
      continue;
    EXPECT_EQ(e->mode, m.billing);
    EXPECT_EQ(e->commitment.has_value(), m.term_months > 0);
    if (!m.unit.empty() && m.billing != Billing::kSavingsPlan) {
      EXPECT_EQ(rates->Of(m.billing).unit, m.unit);
    }
  }
}

}  // namespace
}  // namespace gpuplan
