// Price lookup across sources, billing-mode rates and availability (include/gpuplan/cost.h).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "gpuplan/cost.h"
#include "gpuplan/enum_names.h"
#include "gpuplan/strings.h"

namespace gpuplan::cost {
namespace {

// Trust order of sources: what the user says they pay ('prices add') beats live API data beats
// a user's import beats the embedded book.
int SourceRank(PriceSource s) {
  switch (s) {
    case PriceSource::kUser:
      return 3;
    case PriceSource::kApi:
      return 2;
    case PriceSource::kImport:
      return 1;
    case PriceSource::kBuiltin:
      return 0;
  }
  return 0;
}

int TrustRank(std::string_view trust) {
  if (trust == "high")
    return 2;
  if (trust == "medium")
    return 1;
  return 0;
}

// The catalog's spelling of an instance name ("gn7i-c8g1.2xlarge" -> "ecs.gn7i-c8g1.2xlarge").
std::string CanonicalInstance(const Catalog& catalog, std::string_view name) {
  if (const InstanceType* t = catalog.FindInstance(name))
    return t->name;
  return NormalizeInstanceName(name);
}

// Ratios exactly as documented (0.6188, 0.66), not rounded to two decimals like strings::Num.
std::string RatioText(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : strings::Num(v);
}

// Without copies: the planner compares names for every price row of every candidate.
bool SameName(std::string_view a, std::string_view b) {
  return internal::SameName(a, b, NameCase::kIgnore);
}

PriceQuote Quote(const Price& p, Currency currency, std::string_view today) {
  PriceQuote q;
  q.instance = p.instance;
  q.region = p.region;
  q.zone = p.zone;
  q.billing = p.billing;
  q.price = Money(p.amount, currency);
  q.unit = p.unit;
  q.source = p.origin;
  q.as_of = p.as_of;
  if (!today.empty())
    q.age_days = DaysBetween(p.as_of, today);
  q.trust = p.trust;
  q.basis =
      p.provenance.source.empty() ? std::string(PriceSourceName(p.origin)) : p.provenance.source;
  if (!p.notes.empty())
    q.basis += "; " + p.notes;
  return q;
}

// Sort key: higher is better. Source, then exact zone, then trust, then newest date; for spot
// with no zone asked, the cheapest zone last (ties keep catalog order).
struct Rank {
  int source, zone_exact, trust;
  std::string as_of;
  double neg_amount;
  auto Tie() const { return std::tie(source, zone_exact, trust, as_of, neg_amount); }
  bool operator>(const Rank& o) const { return Tie() > o.Tie(); }
};

Rank RankOf(const Price& p, const PriceQuery& q) {
  const bool cheapest = q.billing == Billing::kSpot && q.zone.empty();
  return Rank{SourceRank(p.origin), !q.zone.empty() && p.zone == q.zone ? 1 : 0, TrustRank(p.trust),
              p.as_of, cheapest ? -p.amount : 0.0};
}

std::string Describe(const PriceQuery& q, std::string_view instance) {
  std::string s =
      std::string(instance) + " " + std::string(BillingName(q.billing)) + " in " + q.region;
  if (!q.zone.empty())
    s += " zone " + q.zone;
  return s;
}

}  // namespace

Money PriceQuote::HourlyPrice(const PriceRatios& ratios) const {
  if (unit == "month")
    return price / ratios.hours_per_month;
  if (unit == "year")
    return price / (12 * ratios.hours_per_month);
  return price;
}

namespace {

// The best row for `query` of `instance` (the catalog's spelling), optionally only in
// `currency` and `unit` (so a USD quote never hides a CNY one when the caller needs CNY).
struct BestRow {
  const Price* row;
  Currency currency;
};
std::optional<BestRow> FindRow(const Catalog& catalog, const PriceQuery& query,
                               std::string_view instance, std::optional<Currency> want_currency,
                               std::string_view want_unit) {
  const Price* best = nullptr;
  Currency best_currency = Currency::kCny;
  Rank best_rank{};
  for (const Price& p : catalog.prices) {
    if (p.billing != query.billing || !SameName(p.instance, instance) ||
        !SameName(p.region, query.region)) {
      continue;
    }
    if (!query.zone.empty() && !p.zone.empty() && !SameName(p.zone, query.zone))
      continue;
    std::optional<Currency> currency = ParseCurrency(p.currency);
    if (!currency || !(p.amount > 0))
      continue;  // 0 means "not priced", never free
    if (want_currency && *currency != *want_currency)
      continue;
    if (!want_unit.empty() && p.unit != want_unit)
      continue;
    Rank r = RankOf(p, query);
    if (!best || r > best_rank) {
      best = &p;
      best_rank = r;
      best_currency = *currency;
    }
  }
  if (!best)
    return std::nullopt;
  return BestRow{best, best_currency};
}

Result<PriceQuote> FindBest(const Catalog& catalog, const PriceQuery& query, std::string_view today,
                            std::optional<Currency> want_currency, std::string_view want_unit) {
  const std::string instance = CanonicalInstance(catalog, query.instance);
  const std::optional<BestRow> best = FindRow(catalog, query, instance, want_currency, want_unit);
  if (!best)
    return Status::NotFound("price unknown for " + Describe(query, instance));
  return Quote(*best->row, best->currency, today);
}

}  // namespace

Result<PriceQuote> FindPrice(const Catalog& catalog, const PriceQuery& query,
                             std::string_view today) {
  return FindBest(catalog, query, today, std::nullopt, "");
}

std::vector<PriceQuote> EffectivePrices(const Catalog& catalog, std::string_view instance,
                                        std::string_view region, std::optional<Billing> billing,
                                        std::string_view today) {
  const std::string want = instance.empty() ? "" : CanonicalInstance(catalog, instance);
  using Key = std::tuple<std::string, std::string, int, std::string>;
  std::map<Key, std::pair<const Price*, Rank>> best;
  std::map<Key, Currency> currency_of;
  for (const Price& p : catalog.prices) {
    if (!want.empty() && !SameName(p.instance, want))
      continue;
    if (!region.empty() && !SameName(p.region, region))
      continue;
    if (billing && p.billing != *billing)
      continue;
    std::optional<Currency> currency = ParseCurrency(p.currency);
    if (!currency || !(p.amount > 0))
      continue;
    PriceQuery q{p.instance, p.region, p.zone, p.billing};
    Key key{p.instance, p.region, static_cast<int>(p.billing), p.zone};
    Rank r = RankOf(p, q);
    auto it = best.find(key);
    if (it == best.end() || r > it->second.second) {
      best[key] = {&p, r};
      currency_of[key] = *currency;
    }
  }
  std::vector<PriceQuote> out;
  out.reserve(best.size());
  for (const auto& [key, entry] : best)
    out.push_back(Quote(*entry.first, currency_of[key], today));
  return out;  // std::map order: instance, region, billing, zone
}

namespace {

// The price of `mode` derived from PAYG (BillingRates documents each rule); `rates` holds the
// quotes of the modes before it in table order.
PriceQuote DerivedQuote(Billing mode, const BillingRates& rates, const PriceRatios& ratios) {
  const Money hourly = rates.payg().price;
  auto derived = [&](Money price, std::string trust, std::string basis) {
    PriceQuote d = rates.payg();
    d.billing = mode;
    d.price = price;
    d.unit = std::string(BillingModeOf(mode).unit);
    d.derived = true;
    d.trust = std::move(trust);
    d.basis = std::move(basis);
    return d;
  };
  switch (mode) {
    case Billing::kSpot: {
      const double ratio = std::max(ratios.spot_default, ratios.spot_floor);
      return derived(hourly * ratio, "low",
                     RatioText(ratio) +
                         " x PAYG (spot scenario: C2 best-zone median "
                         "2024-10-09; no spot price listed)");
    }
    case Billing::kSubscriptionMonth:
      return derived(
          hourly * (ratios.subscription_month_vs_payg * ratios.hours_per_month), "medium",
          RatioText(ratios.subscription_month_vs_payg) + " x " + RatioText(ratios.hours_per_month) +
              " h x PAYG (Q1/P1/B1 ratio, price_ratios.csv)");
    case Billing::kSubscriptionYear:
      return derived(rates.Of(Billing::kSubscriptionMonth).price * 12.0, "low",
                     "upper bound 12 x monthly subscription: no yearly discount is documented");
    case Billing::kReservedNoUpfront:
      return derived(hourly * ratios.reserved_no_upfront_vs_payg, "low",
                     RatioText(ratios.reserved_no_upfront_vs_payg) +
                         " x PAYG (RI No-Upfront ratio seen on gn7i only, P1 2025-12-29)");
    case Billing::kPayg:
    case Billing::kReservedPartialUpfront:
    case Billing::kSavingsPlan:
      break;
  }
  return rates.payg();  // the plan's own rate discounts PAYG (savings plan)
}

}  // namespace

Result<BillingRates> ResolveRates(const Catalog& catalog, const PriceQuery& query,
                                  const PriceRatios& ratios, std::string_view today) {
  PriceQuery q = query;
  q.billing = Billing::kPayg;
  const std::string instance = CanonicalInstance(catalog, query.instance);
  const std::optional<BestRow> payg_row = FindRow(catalog, q, instance, std::nullopt, "hour");
  if (!payg_row)
    return Status::NotFound("price unknown for " + Describe(q, instance));
  const PriceQuote payg = Quote(*payg_row->row, payg_row->currency, today);
  BillingRates rates;
  rates.quotes[static_cast<size_t>(Billing::kPayg)] = payg;
  const Currency cur = payg.price.currency();
  for (const BillingMode& m : kBillingModes) {
    if (!m.costed || m.billing == Billing::kPayg)
      continue;
    std::optional<PriceQuote>& quote = rates.quotes[static_cast<size_t>(m.billing)];
    // A listed price of another mode is used only in the PAYG currency and its own unit.
    PriceQuery lq = query;
    lq.billing = m.billing;
    const std::optional<BestRow> listed =
        m.unit.empty() ? std::nullopt : FindRow(catalog, lq, instance, cur, m.unit);
    if (!listed) {
      quote = DerivedQuote(m.billing, rates, ratios);
      continue;
    }
    quote = Quote(*listed->row, listed->currency, today);
    // SpotAsPriceGo bids are capped at the PAYG price (reference 3.2).
    if (m.billing == Billing::kSpot && quote->price.amount() > payg.price.amount()) {
      quote->price = payg.price;
      quote->basis += "; capped at the PAYG price";
    }
  }
  return rates;
}

Availability CheckAvailability(const Catalog& catalog, const MarketData& market,
                               std::string_view instance, std::string_view region,
                               std::string_view zone) {
  const std::string name = CanonicalInstance(catalog, instance);
  Availability a;
  std::set<std::string> zones_seen;
  std::string as_of;
  bool any_record = false;
  for (const StockRecord& s : market.stock) {
    if (!SameName(s.instance, name) || !SameName(s.region, region))
      continue;
    if (!zone.empty() && !SameName(s.zone, zone))
      continue;
    any_record = true;
    as_of = std::max(as_of, s.as_of);
    if (s.in_stock())
      zones_seen.insert(s.zone);
  }
  const std::string where =
      std::string(region) + (zone.empty() ? "" : " zone " + std::string(zone));
  if (any_record) {
    a.stock_checked = true;
    a.zones.assign(zones_seen.begin(), zones_seen.end());
    a.available = !a.zones.empty();
    a.reason = a.available
                   ? name + " in stock in " + where + " (DescribeAvailableResource " + as_of + ")"
                   : name + " sold out in " + where + " (DescribeAvailableResource " + as_of + ")";
    return a;
  }
  const bool complete =
      std::any_of(market.complete_stock_regions.begin(), market.complete_stock_regions.end(),
                  [&](const std::string& r) { return SameName(r, region); });
  if (complete) {
    a.stock_checked = true;
    a.available = false;
    a.reason = name + " is not offered in " + where + " (not listed by DescribeAvailableResource)";
    return a;
  }
  const bool priced_here =
      std::any_of(catalog.prices.begin(), catalog.prices.end(), [&](const Price& p) {
        return p.amount > 0 && SameName(p.instance, name) && SameName(p.region, region);
      });
  if (priced_here) {
    a.available = true;
    a.reason = name + " has a price in " + std::string(region) +
               " (price book; stock not checked - run 'gpuplan prices refresh')";
    return a;
  }
  a.available = false;
  std::set<std::string> priced_regions;
  for (const Price& p : catalog.prices) {
    if (p.amount > 0 && SameName(p.instance, name))
      priced_regions.insert(p.region);
  }
  if (priced_regions.empty()) {
    a.reason = name +
               " has no price in any region of the price book; not plannable without "
               "'gpuplan prices refresh' or 'gpuplan prices import'";
  } else {
    std::string list;
    int n = 0;
    for (const std::string& r : priced_regions) {
      if (n++ == 6) {
        list += ", ...";
        break;
      }
      list += (list.empty() ? "" : ", ") + r;
    }
    a.reason = name + " is not sold in " + std::string(region) + " per the price book (priced in " +
               list + ")";
  }
  return a;
}

std::optional<double> ReclaimRatePerHour(const MarketData& market, std::string_view instance,
                                         std::string_view region, std::string_view zone) {
  std::optional<double> worst;
  for (const SpotAdvice& s : market.spot_advice) {
    if (!SameName(s.region, region) || (!zone.empty() && !SameName(s.zone, zone)))
      continue;
    if (NormalizeInstanceName(s.instance) != NormalizeInstanceName(instance))
      continue;
    // InterruptionRate is a fraction (0.03); values above 1 are read as percent.
    double r = s.interruption_rate > 1 ? s.interruption_rate / 100 : s.interruption_rate;
    r = std::clamp(r, 0.0, 0.999);
    // Share of instances released within the 30-day (720 h) window -> constant hazard per hour.
    const double rate = -std::log1p(-r) / 720.0;
    if (!worst || rate > *worst)
      worst = rate;
  }
  return worst;
}

}  // namespace gpuplan::cost
