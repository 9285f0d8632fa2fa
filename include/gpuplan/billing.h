// Billing modes: the ways Alibaba Cloud charges for an instance, as one enum and one table.
//
// Every reader of a billing mode reads this table: the price-row loaders (prices.csv, the price
// cache), the CLI's --billing flags with their help and errors, the workload's
// constraints.billing, the cost model (which mode it can price, the term), the planner's default
// modes and the deploy renderer's RunInstances charge type. A mode is one row.
//
//   const BillingMode& m = BillingModeOf(Billing::kSubscriptionMonth);
//   m.name;         // "subscription_month" (also parses as "subscription")
//   m.charge_type;  // "PrePaid"
//   ParseBilling("SPOT");                   // Billing::kSpot
//   BillingChoices(BillingUse::kPriceRow);  // "payg, spot, ... or reserved_partial_upfront"
//
// Sources: reference alibaba_prices.md sections 3.2 (spot) and 3.3 (subscription, reserved
// instances, savings plans); the ratios named are rows of data/price_ratios.csv.
//
// Thread safety: a constexpr table and pure functions.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_BILLING_H_
#define GPUPLAN_INCLUDE_GPUPLAN_BILLING_H_

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

// In table order; the order is also the order modes are listed, priced and sorted in.
enum class Billing {
  kPayg,
  kSpot,
  kSubscriptionMonth,
  kSubscriptionYear,
  kReservedNoUpfront,
  kReservedPartialUpfront,
  kSavingsPlan,
};
inline constexpr std::size_t kBillingCount = 7;

// One row. Unnamed fields take the usual case: no alias, no term, billed after use, costed,
// not a planner default, PostPaid, no ratio.
struct BillingMode {
  Billing billing;
  std::string_view name;     // the spelling of flags, YAML, CSV, the price cache and JSON
  std::string_view alias{};  // another accepted spelling, or ""
  // Unit of a listed price: "hour", "month" or "year". "" = the mode has no price of its own
  // (a savings plan is a discount on PAYG), so no price row may name it.
  std::string_view unit;
  int term_months = 0;   // the commitment bought: 0 = none (payg, spot)
  bool prepaid = false;  // some or all of the term is paid when it is bought
  // The cost model prices it. Reserved Partial Upfront is not: its upfront part is unknown
  // (price_ratios.csv), so its rows are shown but never costed.
  bool costed = true;
  bool job_default = false;  // the planner prices it for a job when constraints.billing is empty
  bool service_default = false;  // ... and for a service (inference with a rate, or long_running)
  std::string_view charge_type = "PostPaid";  // RunInstances InstanceChargeType of the instances
  // The data/price_ratios.csv row that derives its price from PAYG when none is listed; "" =
  // listed only, or derived otherwise (see `summary`).
  std::string_view ratio{};
  std::string_view summary;  // one line for people (docs, help)
};

inline constexpr std::array<BillingMode, kBillingCount> kBillingModes = {{
    {.billing = Billing::kPayg,
     .name = "payg",
     .unit = "hour",
     .job_default = true,
     .service_default = true,
     .summary = "pay-as-you-go, billed per second at the listed hourly price"},
    {.billing = Billing::kSpot,
     .name = "spot",
     .unit = "hour",
     .job_default = true,
     .ratio = "spot_default",
     .summary = "market price, at most PAYG, with reclaims after a 5-minute notice"},
    {.billing = Billing::kSubscriptionMonth,
     .name = "subscription_month",
     .alias = "subscription",
     .unit = "month",
     .term_months = 1,
     .prepaid = true,
     .service_default = true,
     .charge_type = "PrePaid",
     .ratio = "subscription_month_vs_payg",
     .summary = "whole months paid up front"},
    {.billing = Billing::kSubscriptionYear,
     .name = "subscription_year",
     .unit = "year",
     .term_months = 12,
     .prepaid = true,
     .charge_type = "PrePaid",
     .summary = "whole years paid up front; unlisted: at most 12 x monthly (no yearly discount "
                "is documented)"},
    {.billing = Billing::kReservedNoUpfront,
     .name = "reserved_no_upfront",
     .unit = "hour",
     .term_months = 12,
     .ratio = "reserved_no_upfront_vs_payg",
     .summary = "reserved instance, No Upfront: an hourly fee for every hour of a 1-year term"},
    {.billing = Billing::kReservedPartialUpfront,
     .name = "reserved_partial_upfront",
     .unit = "hour",
     .term_months = 12,
     .prepaid = true,
     .costed = false,
     .ratio = "reserved_partial_hourly_vs_no_upfront",
     .summary = "reserved instance, Partial Upfront: shown when listed, never costed (the "
                "upfront part is unknown)"},
    {.billing = Billing::kSavingsPlan,
     .name = "savings_plan",
     .unit = "",
     .term_months = 12,
     .summary = "committed spend per hour at the rate you were quoted (no GPU rate is "
                "documented), 1 or 3 years"},
}};

// The row of `b`. The table is in enum order (checked below).
constexpr const BillingMode& BillingModeOf(Billing b) {
  return kBillingModes[static_cast<std::size_t>(b)];
}
static_assert(
    [] {
      for (std::size_t i = 0; i < kBillingModes.size(); ++i) {
        if (static_cast<std::size_t>(kBillingModes[i].billing) != i)
          return false;
      }
      return true;
    }(),
    "kBillingModes must list the modes in enum order");

// "payg", "spot", "subscription_month", ...
constexpr std::string_view BillingName(Billing b) { return BillingModeOf(b).name; }

// Which modes a reader accepts.
enum class BillingUse {
  kAny,       // every mode (constraints.billing, plan --billing)
  kPriceRow,  // modes with a price of their own (prices.csv, the cache, prices --billing)
  kCosted,    // modes the cost model prices (prices compare)
};
constexpr bool BillingAllowed(const BillingMode& m, BillingUse use) {
  switch (use) {
    case BillingUse::kAny:
      return true;
    case BillingUse::kPriceRow:
      return !m.unit.empty();
    case BillingUse::kCosted:
      return m.costed;
  }
  return false;
}

// A mode by name or alias, ignoring ASCII case; nullopt when unknown or not allowed for `use`.
std::optional<Billing> ParseBilling(std::string_view name, BillingUse use = BillingUse::kAny);
// The modes allowed for `use`, in table order.
std::vector<Billing> BillingModes(BillingUse use);
// Their names only (no aliases), e.g. for a CSV column's allowed values.
std::vector<std::string_view> BillingNames(BillingUse use);
// For messages and help: "payg, spot, subscription_month (or subscription), ... or savings_plan".
std::string BillingChoices(BillingUse use);

}  // namespace gpuplan

#endif  // GPUPLAN_INCLUDE_GPUPLAN_BILLING_H_
