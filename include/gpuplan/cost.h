// Cost: money with a currency, price lookup across sources, and the cost of a job or a service
// under each Alibaba Cloud billing mode (pay-as-you-go, spot, subscription, reserved instances,
// savings plans), plus storage, availability and the subscription break-even.
//
// Prices come from the Catalog (`Catalog::prices`, origin builtin|import|api). A lookup picks the
// most trusted one (api > import > builtin, then the newest) and says where it came from and how
// old it is; an unknown price is an error value ("price unknown"), never 0.
//
//   Result<cost::BillingRates> rates =
//       cost::ResolveRates(catalog, {"ecs.gn7i-c8g1.2xlarge", "cn-hangzhou", "", Billing::kPayg},
//                          cost::PriceRatios{}, "2026-11-30");
//   if (!rates.ok()) return rates.status();          // "price unknown for ..."
//   cost::JobSpec job{.work_hours = 100, .instances = 2};
//   cost::CostOptions spot_options = cost::CostOptions::Of(Billing::kSpot);
//   spot_options.spot.reclaim_rate_per_hour = cost::ReclaimRatePerHour(market, type, region);
//   Result<cost::JobCostEstimate> spot = cost::JobCost(*rates, job, spot_options);
//   // spot->total: Money; spot->checkpoint_interval_hours: the Young/Daly interval.
//
// Money never mixes currencies: `Money + Money` returns Result<Money>, an error when CNY meets USD.
// Everything here is pure (no I/O, no clock): callers pass today's date as "YYYY-MM-DD".
//
// Thread safety: values and pure functions; safe to share when not mutated.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_COST_H_
#define GPUPLAN_INCLUDE_GPUPLAN_COST_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/billing.h"
#include "gpuplan/catalog.h"
#include "gpuplan/enum_names.h"
#include "gpuplan/status.h"

namespace gpuplan {

enum class Currency { kCny, kUsd };
// "RMB" is a common spelling of CNY in quotes.
inline constexpr EnumNames<Currency, 3> kCurrencyNames = {
    {{Currency::kCny, "CNY"}, {Currency::kUsd, "USD"}, {Currency::kCny, "RMB", NameKind::kAlias}}};
// "CNY", "USD"
constexpr std::string_view CurrencyName(Currency c) { return NameOf(kCurrencyNames, c); }
// Parses "CNY" / "USD" / "RMB" (case-insensitive); nullopt otherwise.
constexpr std::optional<Currency> ParseCurrency(std::string_view code) {
  return ParseName(kCurrencyNames, code, NameCase::kIgnore);
}

// An amount of money in one currency. Scaling is always allowed; adding, subtracting and
// comparing two amounts check that the currencies match and return an error value otherwise.
class Money {
 public:
  Money() = default;  // CNY 0.
  Money(double amount, Currency currency) : amount_(amount), currency_(currency) {}
  static Money Cny(double amount) { return Money(amount, Currency::kCny); }
  static Money Usd(double amount) { return Money(amount, Currency::kUsd); }

  double amount() const { return amount_; }
  Currency currency() const { return currency_; }
  bool SameCurrency(const Money& other) const { return currency_ == other.currency_; }

  Money operator*(double k) const { return Money(amount_ * k, currency_); }
  Money operator/(double k) const { return Money(amount_ / k, currency_); }

  // this + other; kInvalidArgument "cannot add CNY 2.00 and USD 1.00: currencies differ ..."
  // when the currencies differ.
  Result<Money> Plus(const Money& other) const;
  Result<Money> Minus(const Money& other) const;
  // this / other as a plain number (e.g. spot / PAYG); error when currencies differ.
  Result<double> Ratio(const Money& other) const;
  // -1, 0 or 1; error when currencies differ.
  Result<int> Compare(const Money& other) const;

  // "CNY 12.35" (2 decimals; 4 for amounts under 1).
  std::string ToString() const;

 private:
  double amount_ = 0;
  Currency currency_ = Currency::kCny;
};

// `a + b` is a Result: mixing currencies is an error, never a number. Chains propagate the first
// error: `a + b + c`.
Result<Money> operator+(const Money& a, const Money& b);
Result<Money> operator+(const Result<Money>& a, const Money& b);
Result<Money> operator-(const Money& a, const Money& b);

// Days from `from` to `to` (both "YYYY-MM-DD"; "YYYY-MM" counts from the 1st); nullopt when
// either is not a date.
std::optional<int> DaysBetween(std::string_view from, std::string_view to);

namespace cost {

// ---------------------------------------------------------------------------------------------
// Ratios used when only the PAYG price is known. Defaults mirror data/price_ratios.csv (a test
// checks it); io::LoadPriceRatios() reads that file. Sources: alibaba_prices.md section 2.3.
struct PriceRatios {
  // Monthly subscription / (730 h x PAYG): 0.657-0.660 in Q1 quotes (2026-09-24), P1, B1.
  double subscription_month_vs_payg = 0.66;
  // Hours in a billing month used by the ratio above (Q1 analysis uses 730 h).
  double hours_per_month = 730;
  // RI No-Upfront hourly fee / PAYG: 0.6188 for five gn7i sizes (P1 2025-12-29 / C1).
  double reserved_no_upfront_vs_payg = 0.6188;
  // RI Partial-Upfront hourly part / No-Upfront fee: 0.4762 (P1); the upfront part is unknown.
  double reserved_partial_hourly_vs_no_upfront = 0.4762;
  // Spot / PAYG scenarios (C2 snapshot 2024-10-09: best-zone median 0.35; levels 0.15/0.25/0.35).
  std::vector<double> spot_scenarios = {0.15, 0.25, 0.35};
  double spot_default = 0.35;
  // Never assume spot below 0.10 x PAYG (docs "as low as 10%", S12; D2 example).
  double spot_floor = 0.10;
  // International-site USD = China-site CNY / 6.96 for overseas regions (F1: T1, N1).
  double cny_per_usd_overseas = 6.96;
  // A savings plan's discount off PAYG in Alibaba's own example: 1-year All Upfront
  // general-purpose on c5/ic5, 42.2% (S-plan docs, 2026). Not a GPU rate (none is published):
  // the campaign shows what a plan at this rate would do, beside the plan without one.
  double savings_plan_example_1y = 0.422;
};

// ---------------------------------------------------------------------------------------------
// Price lookup.

struct PriceQuery {
  std::string instance;  // "ecs.gn7i-c8g1.2xlarge" (the "ecs." prefix may be omitted)
  std::string region;    // "cn-hangzhou"
  std::string zone;      // "" = any zone (spot: the cheapest zone of the best source)
  Billing billing = Billing::kPayg;
};

// One price with where it came from. `derived` prices are computed from PAYG with PriceRatios.
struct PriceQuote {
  std::string instance;
  std::string region;
  std::string zone;  // "" for region-wide prices
  Billing billing = Billing::kPayg;
  Money price;       // per `unit`
  std::string unit;  // "hour" | "month" | "year"
  PriceSource source = PriceSource::kBuiltin;
  std::string as_of;            // date observed, "YYYY-MM-DD"
  std::optional<int> age_days;  // today - as_of, when both are dates
  std::string trust;            // "high" | "medium" | "low"
  bool derived = false;
  std::string basis;  // how it was obtained: "C1 list", "0.66 x 730 h x PAYG (price_ratios R1)"
  // The price per instance-hour (month: / hours_per_month; year: / 12 months).
  Money HourlyPrice(const PriceRatios& ratios) const;
};

// The most trusted listed price, ranked by source (api > import > builtin), then the asked zone
// over region-wide rows, then trust (high > medium > low), then the newest as_of; for spot with
// no zone asked, the cheapest zone among equals. Rows priced 0 mean "not priced" and are
// skipped. kNotFound "price unknown for <instance> <billing> in <region>" when none is listed.
// Never derives.
Result<PriceQuote> FindPrice(const Catalog& catalog, const PriceQuery& query,
                             std::string_view today = "");

// The rows `gpuplan prices` shows: for each (instance, region, zone, billing) the single most
// trusted row, so cached API prices hide built-in ones. Optional filters ("" = all). Sorted by
// instance, region, billing, zone.
std::vector<PriceQuote> EffectivePrices(const Catalog& catalog, std::string_view instance = "",
                                        std::string_view region = "",
                                        std::optional<Billing> billing = std::nullopt,
                                        std::string_view today = "");

// Every costed billing mode's price for one type in one region, in the currency of the PAYG
// price, per the mode's unit (BillingMode::unit). PAYG must be listed; the others are listed ones
// when present (same currency), else derived from PAYG with `ratios` (marked derived, with the
// basis):
//  spot: listed (capped at PAYG) or spot_default x PAYG (at least spot_floor);
//  subscription_month: subscription_month_vs_payg x hours_per_month x PAYG;
//  subscription_year: the upper bound 12 x monthly, trust "low" (no yearly discount is
//    documented, reference 3.3);
//  reserved_no_upfront: reserved_no_upfront_vs_payg x PAYG per hour of the term;
//  savings_plan: the PAYG quote (the plan's rate, CostOptions::savings_plan_rate, discounts it).
// Reserved Partial Upfront is never costed, so it has no quote here.
struct BillingRates {
  std::array<std::optional<PriceQuote>, kBillingCount> quotes;

  // REQUIRES: BillingModeOf(b).costed (ResolveRates fills those).
  const PriceQuote& Of(Billing b) const { return *quotes[static_cast<std::size_t>(b)]; }
  const PriceQuote& payg() const { return Of(Billing::kPayg); }
  Currency currency() const { return payg().price.currency(); }
};
Result<BillingRates> ResolveRates(const Catalog& catalog, const PriceQuery& query,
                                  const PriceRatios& ratios, std::string_view today = "");

// ---------------------------------------------------------------------------------------------
// Market data beyond prices: stock (DescribeAvailableResource) and spot advice
// (DescribeSpotAdvice), from the price cache (io/price_cache.h).

struct StockRecord {
  std::string instance;
  std::string region;
  std::string zone;
  std::string status;           // "Available" | "SoldOut" (SupportedResource.Status)
  std::string status_category;  // "WithStock" | "ClosedWithStock" | "WithoutStock" | ""
  std::string as_of;            // "YYYY-MM-DD"
  PriceSource origin = PriceSource::kApi;
  bool in_stock() const { return status == "Available" && status_category != "WithoutStock"; }
};

struct SpotAdvice {
  std::string instance;
  std::string region;
  std::string zone;
  // DescribeSpotAdvice InterruptionRate: the 30-day average release rate (0.03 = 3%).
  double interruption_rate = 0;
  std::string interrupt_rate_desc;  // "0-3%"
  // AverageSpotDiscount: average spot price as a percentage of PAYG over 30 days (17 = 17%).
  std::optional<double> average_spot_discount_pct;
  std::string as_of;
  PriceSource origin = PriceSource::kApi;
};

struct MarketData {
  std::vector<StockRecord> stock;
  std::vector<SpotAdvice> spot_advice;
  // Regions whose stock was fetched for every type (DescribeAvailableResource without an
  // InstanceType filter): there, a type with no stock record is not sold. Elsewhere absence
  // proves nothing (an import or a filtered refresh lists only some types).
  std::vector<std::string> complete_stock_regions;
};

// Whether a type can be bought in a region (and zone, when given), and why not.
struct Availability {
  bool available = true;
  std::string reason;              // always set: why available or why excluded
  std::vector<std::string> zones;  // zones with stock, when stock data exists
  bool stock_checked = false;      // true when DescribeAvailableResource data decided it
};
// Stock data for the type in the region decides when present (any zone in stock, or the given
// zone); in a complete-stock region a type without records is not sold; otherwise the price
// book decides: a type with no price of any billing in the region is not sold there.
Availability CheckAvailability(const Catalog& catalog, const MarketData& market,
                               std::string_view instance, std::string_view region,
                               std::string_view zone = "");

// Reclaim rate per instance-hour from DescribeSpotAdvice for (instance, region[, zone]); the
// highest zone rate when no zone is given (conservative). The 30-day release rate r is read as
// the share of spot instances released within 30 days (720 h), so rate = -ln(1 - r) / 720
// (an interpretation, see cost_spot.cc). nullopt when there is no advice.
std::optional<double> ReclaimRatePerHour(const MarketData& market, std::string_view instance,
                                         std::string_view region, std::string_view zone = "");

// ---------------------------------------------------------------------------------------------
// Job and service cost.

// The mode a cost is computed in is a Billing (gpuplan/billing.h) with `costed` set. `Mode` and
// ModeName are the same enum and name under their older spelling, kept while callers move.
using Mode = Billing;
constexpr std::string_view ModeName(Billing m) { return BillingName(m); }

// Spot interruption inputs. Alibaba facts (reference 3.2): 1-hour protection by default
// (SpotDuration=1), a 5-minute notice before release, per-second billing.
struct SpotRisk {
  // Reclaims per instance-hour; nullopt = unknown (the overhead is then reported unknown and
  // the cost is a lower bound). Use ReclaimRatePerHour() or a user's figure.
  std::optional<double> reclaim_rate_per_hour;
  // The two times below depend on the job and its storage; no source gives them. The defaults
  // are assumptions (15 min to get an instance, pull the image and reload; 3 min to write a
  // checkpoint): pass measured values (gpuplan prices compare --restart-min/--checkpoint-min).
  double restart_hours = 0.25;     // new instance + image + reload to resume, hours
  double checkpoint_hours = 0.05;  // time to write one checkpoint, hours
  // Fixed interval between checkpoints in hours; nullopt = Young/Daly sqrt(2 C MTBF).
  std::optional<double> checkpoint_interval_hours;
  bool protection_hour = true;  // SpotDuration=1: no reclaim in an instance's first hour
  // Checkpoint when the 5-minute notice arrives (only counts when checkpoint_hours fits in it):
  // an interruption then loses no work, only the checkpoint and the restart.
  bool checkpoint_on_notice = false;
  // Spot / PAYG when no spot price is listed; nullopt = PriceRatios::spot_default.
  std::optional<double> spot_ratio;
};

struct JobSpec {
  double work_hours = 0;  // uninterrupted wall-clock hours of the job on `instances` instances
  int instances = 1;      // instances that run together (a reclaim of any one stops the job)
};

struct CostOptions {
  Billing mode = Billing::kPayg;  // a costed mode
  SpotRisk spot;
  // Savings plan: price paid per PAYG unit (0.6 = 40% off). No GPU figure is documented
  // (reference 3.3: "up to 76%" off; ecs.c5 example 0.422), so nullopt = unknown -> error.
  std::optional<double> savings_plan_rate;
  int savings_plan_years = 1;  // 1 or 3
  // false: JobCost leaves JobCostEstimate::notes empty. The notes' text is most of what a spot
  // estimate costs, and a caller that only compares totals (the planner's bounds) needs none.
  bool explain = true;

  // Options for `mode` with every other field at its default (designated initializers that
  // skip fields trip -Wmissing-field-initializers).
  static CostOptions Of(Billing mode) {
    CostOptions o;
    o.mode = mode;
    return o;
  }
};

struct JobCostEstimate {
  Billing mode = Billing::kPayg;
  Money total;            // what the job costs in this mode
  Money rate_per_hour;    // price per instance-hour actually used (spot: market; sub: /730 h)
  double wall_hours = 0;  // including interruption overhead (spot)
  double billed_instance_hours = 0;  // instance-hours paid (subscription: whole months)
  bool lower_bound = false;          // spot with unknown reclaim rate: the overhead is not included
  // Spot only.
  double expected_interruptions = 0;
  std::optional<double> checkpoint_interval_hours;  // Young/Daly or the fixed interval
  std::optional<double> mtbf_hours;                 // of the whole job (all instances)
  Money interruption_overhead;                      // extra cost from reclaims + checkpoints
  // Commitment beyond the job (subscription, RI, savings plan): the whole term's price.
  std::optional<Money> commitment;
  PriceQuote price;                // the price used
  std::vector<std::string> notes;  // one line per modelling step, for the breakdown
};

// Cost of running `job` in `options.mode`:
//  payg: price x hours x instances (per-second billing, no rounding up).
//  spot: market price x expected wall time, where interruptions add restart time and rework
//    (half a checkpoint interval on average) and checkpoints add C per interval (Young/Daly).
//  subscription_month/_year: whole months/years per instance (the whole term is `total`).
//  reserved_no_upfront / savings_plan: the hours used at the discounted rate; `commitment` is
//    the whole term's charge, due whether used or not (reference 3.3).
// Errors: invalid job (hours <= 0, instances < 1), a mode that is not costed (kUnsupported),
// savings plan without a rate, spot whose expected loss per interruption reaches the MTBF
// (kUnsupported "spot cannot finish: ...").
Result<JobCostEstimate> JobCost(const BillingRates& rates, const JobSpec& job,
                                const CostOptions& options, const PriceRatios& ratios = {});

// A service running `hours_per_month` on `instances` instances, per month.
struct MonthlyCostEstimate {
  Billing mode = Billing::kPayg;
  Money per_month;
  double utilisation = 0;  // hours_per_month / PriceRatios::hours_per_month
  bool lower_bound = false;
  PriceQuote price;
  std::vector<std::string> notes;
};
Result<MonthlyCostEstimate> MonthlyCost(const BillingRates& rates, double hours_per_month,
                                        int instances, const CostOptions& options,
                                        const PriceRatios& ratios = {});

// The utilisation above which a monthly subscription beats PAYG: subscription_month /
// (PAYG x hours_per_month). 0.66 -> 66%, about 482 h a month.
struct BreakEven {
  double utilisation = 0;  // 0..1 (may exceed 1: subscription never pays off)
  double hours_per_month = 0;
  std::string basis;
};
Result<BreakEven> SubscriptionBreakEven(const BillingRates& rates, const PriceRatios& ratios = {});

// Young/Daly optimal checkpoint interval sqrt(2 * C * MTBF) (Young 1974; Daly 2006 first order),
// in the unit of the inputs. REQUIRES: checkpoint_cost > 0, mtbf > 0.
double YoungDalyInterval(double checkpoint_cost, double mtbf);

// The expected wall time of `work` hours of a synchronous job that stops on average every `mtbf`
// hours, spends `checkpoint_share` of its working time writing checkpoints (C / interval) and
// loses `lost_per_stop` hours at each stop (restart, plus half an interval of rework when it
// resumes from periodic checkpoints): work x (1 + checkpoint_share) / (1 - lost_per_stop / mtbf)
// (Young 1974, Daly 2006, first order). nullopt when a stop loses 90% or more of the time between
// stops: the job effectively never finishes. REQUIRES: mtbf > 0.
std::optional<double> InterruptedWallHours(double work, double checkpoint_share,
                                           double lost_per_stop, double mtbf);

// ---------------------------------------------------------------------------------------------
// Storage. Only prices that the reference data source are known; the rest say so.

enum class StorageKind { kEssdPl0, kEssdPl1, kEssdPl2, kEssdPl3, kLocalNvme, kCpfs, kNas, kOss };
inline constexpr EnumNames<StorageKind, 8> kStorageKindNames = {
    {{StorageKind::kEssdPl0, "essd_pl0"},
     {StorageKind::kEssdPl1, "essd_pl1"},
     {StorageKind::kEssdPl2, "essd_pl2"},
     {StorageKind::kEssdPl3, "essd_pl3"},
     {StorageKind::kLocalNvme, "local_nvme"},
     {StorageKind::kCpfs, "cpfs"},
     {StorageKind::kNas, "nas"},
     {StorageKind::kOss, "oss"}}};
// "essd_pl0", ..., "local_nvme", "cpfs", ...
constexpr std::string_view StorageKindName(StorageKind k) { return NameOf(kStorageKindNames, k); }
// Case-insensitive.
constexpr std::optional<StorageKind> ParseStorageKind(std::string_view name) {
  return ParseName(kStorageKindNames, name, NameCase::kIgnore);
}

struct StorageCostEstimate {
  StorageKind kind = StorageKind::kEssdPl1;
  std::optional<Money> total;  // nullopt = price unknown (see reason)
  std::string reason;          // basis of the price, or why it is unknown
};
// Cost of `size_gib` of `kind` kept for `hours`, at the price of its `storage` row
// (Catalog::storage, data/storage.csv; local NVMe comes with the instance). kInvalidArgument when
// the size is outside the documented range of the kind (its row's min_gib-max_gib).
Result<StorageCostEstimate> StorageCost(const std::vector<StorageClass>& storage, StorageKind kind,
                                        double size_gib, double hours);

}  // namespace cost
}  // namespace gpuplan

#endif  // GPUPLAN_INCLUDE_GPUPLAN_COST_H_
