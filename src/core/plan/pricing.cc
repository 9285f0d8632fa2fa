// Pricing a plan's candidates (src/core/plan/pricing.h).
#include "plan/pricing.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "gpuplan/plan_ranges.h"
#include "gpuplan/strings.h"
#include "gpuplan/uncertainty.h"
#include "plan/ranking.h"
#include "plan/show_bar.h"
#include "plan/spot.h"
#include "serving/fleet_plan.h"

namespace gpuplan::planner {
namespace {

using strings::Num;

// Spot with no reclaim rate: ranks with the default interruption allowance (replacing `jc` and
// `co` with it) and returns the lower bound without interruptions to show the range.
std::optional<Money> ApplySpotAllowance(const PlanOptions& options, const cost::BillingRates& rates,
                                        double work_hours, int instances, cost::CostOptions& co,
                                        Result<cost::JobCostEstimate>& jc) {
  if (co.mode != cost::Mode::kSpot || co.spot.reclaim_rate_per_hour ||
      options.default_spot_release_rate_30d <= 0 || options.default_spot_release_rate_30d >= 1) {
    return std::nullopt;
  }
  cost::CostOptions allow = co;
  allow.spot.reclaim_rate_per_hour = -std::log(1 - options.default_spot_release_rate_30d) / 720;
  Result<cost::JobCostEstimate> ja =
      cost::JobCost(rates, {.work_hours = work_hours, .instances = instances}, allow);
  if (!ja.ok())
    return std::nullopt;
  const Money low = jc->total;
  if (co.explain) {
    ja->notes.push_back(
        "no reclaim rate known: ranked with the default interruption allowance (a 30-day "
        "release rate of " +
        Num(options.default_spot_release_rate_30d * 100) +
        "%, an assumption); without interruptions it is " + jc->total.ToString());
  }
  jc = std::move(ja);
  co = allow;
  return low;
}

// Why `c` breaks the budget (at the workload's confidence when ranges are known), or "".
std::string OverBudget(const Workload& w, const InstanceType& t, const Candidate& base,
                       cost::Mode mode, const Candidate& c, bool per_hour,
                       const std::string& currency) {
  if (!w.constraints.budget || w.constraints.budget->amount <= 0 || per_hour)
    return "";
  const bool ranged = c.ranges && c.ranges->cost_at_confidence > 0;
  const double checked = ranged ? c.ranges->cost_at_confidence : c.cost.total.amount();
  if (checked <= w.constraints.budget->amount)
    return "";
  return std::to_string(base.nodes) + " x " + t.name + " " + std::string(cost::ModeName(mode)) +
         " costs " + c.cost.total.ToString() +
         (ranged ? " (" + currency + " " + Num(c.ranges->cost_at_confidence) + " at p" +
                       std::to_string(std::lround(w.confidence * 100)) + ")"
                 : "") +
         ", over the budget of " + currency + " " + Num(w.constraints.budget->amount);
}

// What one region and billing mode of a candidate are priced with.
struct PriceCase {
  const cost::BillingRates* rates = nullptr;
  std::string region;
  cost::Mode mode = cost::Mode::kPayg;
  double work_hours = 1;  // hours of work (one hour when there is no amount of work)
  bool per_hour = false;  // no amount of work
  bool serving = false;
  bool explain = true;  // the cost's notes (CostOptions::explain)
};

// `base` priced in one region and mode: cost, spot spares, ranges and the monthly cost of a
// service; errors from the cost model.
Result<Candidate> PriceIn(const Workload& w, const InstanceType& t, const Candidate& base,
                          const PriceCase& p, const PlanOptions& options) {
  cost::CostOptions co;
  co.mode = p.mode;
  co.spot = options.spot;
  co.explain = p.explain;
  if (!co.spot.reclaim_rate_per_hour)
    co.spot.reclaim_rate_per_hour = cost::ReclaimRatePerHour(options.market, t.name, p.region);
  // A spot service keeps spare copies for reclaims (SpareInstances).
  const int per_copy = std::max(base.nodes_per_copy, 1);
  const int spare = p.serving && p.mode == cost::Mode::kSpot
                        ? SpareInstances(base.nodes / per_copy) * per_copy
                        : 0;
  const int instances = base.nodes + spare;
  Result<cost::JobCostEstimate> jc =
      cost::JobCost(*p.rates, {.work_hours = p.work_hours, .instances = instances}, co);
  if (!jc.ok())
    return jc.status();
  const std::optional<Money> spot_low =
      ApplySpotAllowance(options, *p.rates, p.work_hours, instances, co, jc);
  Candidate c = base;
  c.spot_cost_low = spot_low;
  if (spare > 0) {
    c.spare_instances = spare;
    c.nodes = instances;
    c.gpus = base.gpus / std::max(base.nodes, 1) * instances;
    c.copies = base.copies + spare / per_copy * base.copies_per_instance_group;
  }
  c.region = p.region;
  c.billing = p.mode;
  c.job_hours = p.per_hour ? 0 : jc->wall_hours;
  c.cost = std::move(*jc);
  if (c.ranges && !p.per_hour && !p.serving) {
    c.ranges->job_hours.point = c.job_hours;
    c.ranges->cost.point = c.cost.total.amount();
    if (Status s = PriceRanges(*c.ranges, *p.rates, co, p.work_hours, base.nodes,
                               SpotAdviceDesc(options.market, t.name, p.region));
        !s.ok()) {
      return s;
    }
  }
  if (p.serving || w.constraints.long_running) {
    Result<cost::MonthlyCostEstimate> m =
        cost::MonthlyCost(*p.rates, options.ratios.hours_per_month, instances, co, options.ratios);
    if (m.ok())
      c.monthly = *m;
  }
  return c;
}

// The service's monthly cost range: more copies when the engine is slower than predicted, in
// whole instances.
void AddServiceRange(const Workload& w, const Candidate& base, bool serving, Candidate& c) {
  if (!c.ranges || !c.monthly || c.ranges->time.regime == "none")
    return;
  c.ranges->cost = uncertainty::Scale(c.monthly->per_month.amount(), c.ranges->time);
  if (serving && base.estimate.inference && base.estimate.inference->requests_per_s > 0) {
    const double per_instance = c.monthly->per_month.amount() / std::max(c.nodes, 1);
    c.ranges->cost =
        ServiceCostRange(c.ranges->time, *w.inference.PeakRps(),
                         base.estimate.inference->requests_per_s, std::max(base.nodes_per_copy, 1),
                         per_instance, c.billing == cost::Mode::kSpot ? &SpareInstances : nullptr);
  }
}

// A service with a traffic profile: in each region the fleet of least month cost (a committed
// base and an elastic layer following the traffic, serving/fleet_plan.h), priced at the base's
// mode (the elastic layer's when the base is empty) for its quote and notes.
Offered PriceFleets(const PriceRequest& r, const Pricing& pricing) {
  const Workload& w = r.w;
  const InstanceType& t = r.t;
  const Candidate& base = r.base;
  Offered offered;
  std::vector<Candidate>& out = offered.candidates;
  std::string& rejection = offered.rejection;
  const PlanOptions& options = *pricing.options;
  const serving::DayDemand need =
      serving::DemandOf(*w.inference.traffic, base.estimate.inference->requests_per_s);
  const serving::FleetShape shape{std::max(base.nodes_per_copy, 1),
                                  serving::LeadTimeHours(w, options, t, base)};
  const serving::MonthCalendar month{options.ratios.hours_per_month};
  for (const RegionRates& rr : pricing.rates) {
    if (!rr.rates) {
      rejection = rr.reason;
      continue;
    }
    const std::optional<serving::FleetPrices> prices =
        serving::FleetPricesIn(*rr.rates, pricing.modes, options.ratios);
    if (!prices) {
      rejection = "no pay-as-you-go price in " + rr.region + " for the elastic layer";
      continue;
    }
    serving::FleetShape region_shape = shape;
    region_shape.min_base_replicas = prices->elastic_billing == Billing::kSpot ? 1 : 0;
    serving::Fleet fleet = serving::ChooseFleet(need, region_shape, *prices, month);
    const PriceCase p{.rates = &*rr.rates,
                      .region = rr.region,
                      .mode = fleet.base_replicas > 0 ? fleet.base_billing : fleet.elastic_billing,
                      .work_hours = options.ratios.hours_per_month,
                      .per_hour = false,
                      .serving = false,
                      .explain = true};
    Result<Candidate> c = PriceIn(w, t, base, p, options);
    if (!c.ok()) {
      rejection = c.status().message();
      continue;
    }
    const Money month_cost(fleet.month_cost, c->cost.total.currency());
    c->cost.total = month_cost;
    c->monthly = cost::MonthlyCostEstimate{.mode = c->billing,
                                           .per_month = month_cost,
                                           .utilisation = 1,
                                           .price = c->cost.price,
                                           .notes = {}};
    c->nodes = fleet.PeakInstances();
    c->gpus = base.gpus / std::max(base.nodes, 1) * c->nodes;
    c->spare_instances = 0;
    c->copies = base.copies;
    if (c->ranges && c->ranges->time.regime != "none")
      c->ranges->cost = uncertainty::Scale(fleet.month_cost, c->ranges->time);
    if (std::string over = OverBudget(w, t, base, p.mode, *c, false, pricing.currency);
        !over.empty()) {
      rejection = over;
      continue;
    }
    c->cost.notes = {serving::FleetSummary(fleet) + ": " + c->cost.total.ToString() + " per month"};
    c->score = c->score_at_quote = RanksByTime(w) ? HoursForRanking(*c) : fleet.month_cost;
    c->fleet = fleet;
    out.push_back(std::move(*c));
  }
  offered.added = !out.empty();
  return offered;
}

}  // namespace

// How to get a price gpuplan does not have.
std::string PriceHint(const std::string& instance, const std::string& region) {
  const std::string r = region.empty() ? "REGION" : region;
  return "price unknown for " + instance + (region.empty() ? "" : " in " + region) +
         ": run 'gpuplan prices refresh --region " + r +
         "' (Alibaba Cloud API), 'gpuplan prices import FILE' "
         "(aliyun CLI output), or enter a quote with 'gpuplan prices add " +
         instance + " AMOUNT --region " + r + " --billing payg'";
}

int SpareInstances(int instances) { return std::max(1, (instances + 9) / 10); }

Offered PriceCandidate(const PriceRequest& r, const Pricing& pricing) {
  if (r.serving && r.w.inference.traffic)
    return PriceFleets(r, pricing);
  const Workload& w = r.w;
  const InstanceType& t = r.t;
  const Candidate& base = r.base;
  const double hours = r.hours, units_per_hour = r.units_per_hour;
  const bool serving = r.serving, explain = r.explain;
  Offered offered;
  std::vector<Candidate>& out = offered.candidates;
  std::string& rejection = offered.rejection;
  const PlanOptions& options = *pricing.options;
  const bool per_hour = hours <= 0;
  // The objective's score of a candidate ranked at `money`.
  auto score = [&](const Candidate& c, double money) {
    if (RanksByTime(w))
      return per_hour && units_per_hour > 0 ? 1 / units_per_hour : HoursForRanking(c);
    return per_hour && units_per_hour > 0 ? money / units_per_hour * 1e6 : money;
  };
  // One region and mode into `into`, or why not (into `rejection`).
  auto price = [&](PriceCase p, std::vector<Candidate>& into) {
    const cost::BillingRates& rates = *p.rates;
    Result<Candidate> c = PriceIn(w, t, base, p, options);
    if (!c.ok()) {
      rejection = c.status().message();
      return false;
    }
    if (std::string over = OverBudget(w, t, base, p.mode, *c, per_hour, pricing.currency);
        !over.empty()) {
      rejection = over;
      return false;
    }
    AddServiceRange(w, base, serving, *c);
    c->score = c->score_at_quote = score(*c, CostForRanking(*c));
    if (std::optional<cost::BillingRates> capped =
            SpotAtPaygCap(w, options, RanksByTime(w), rates, *c)) {
      p.rates = &*capped;
      if (Result<Candidate> at_cap = PriceIn(w, t, base, p, options); at_cap.ok()) {
        c->spot_ranked_at_payg = rates.payg().price.amount();
        c->score = score(*at_cap, CostForRanking(*at_cap));
      }
    }
    into.push_back(std::move(*c));
    return true;
  };
  // A bound's candidates (!explain) are only compared: all go out as they are.
  std::vector<Candidate> own;
  std::vector<Candidate>& priced = explain ? own : out;
  const size_t before = out.size();
  std::vector<PriceCase> cases;
  for (size_t i = 0; i < pricing.rates.size(); ++i) {
    const RegionRates& rr = pricing.rates[i];
    if (!rr.rates) {
      rejection = rr.reason;
      continue;
    }
    for (cost::Mode mode : pricing.modes) {
      if (!pricing.Prices(i, mode))
        continue;
      // Spot in every region waits for its notes until the regions that can be shown are
      // known (below); a mode priced in one region (Pricing::Prices) gets them now.
      const PriceCase p{.rates = &*rr.rates,
                        .region = rr.region,
                        .mode = mode,
                        .work_hours = per_hour ? 1.0 : hours,
                        .per_hour = per_hour,
                        .serving = serving,
                        .explain = explain && (mode != cost::Mode::kSpot || pricing.spot_by_price)};
      if (price(p, priced) && explain)
        cases.push_back(p);
    }
  }
  if (!explain) {
    offered.added = out.size() > before;
    return offered;
  }
  // The showable get their notes (priced again, unless they have them), in their order; the
  // rest are dropped.
  for (size_t i : Showable(w, priced)) {
    PriceCase p = cases[i];
    if (p.explain) {
      out.push_back(std::move(priced[i]));
      continue;
    }
    p.explain = true;
    price(p, out);
  }
  offered.added = !priced.empty();
  return offered;
}

Offered AddUnpriced(const PriceRequest& r, const std::string& region) {
  const Workload& w = r.w;
  const Candidate& base = r.base;
  const double hours = r.hours, units_per_hour = r.units_per_hour;
  const bool serving = r.serving;
  const bool per_hour = hours <= 0;
  Offered offered;
  if (w.constraints.budget && !per_hour) {
    offered.rejection =
        PriceHint(base.instance, region) + "; without a price it cannot be held against the budget";
    return offered;
  }
  Candidate c = base;
  c.region = region;
  c.billing = cost::Mode::kPayg;
  c.price_known = false;
  c.price_hint = PriceHint(base.instance, region);
  c.job_hours = per_hour ? 0 : hours;
  c.cost.wall_hours = c.job_hours;
  // A service has no job length: fewer GPUs for the same rate is the best guess of cheaper. A
  // job's hours are read at the percentile the priced are ranked at (HoursForRanking).
  c.score = serving                          ? base.gpus
            : per_hour && units_per_hour > 0 ? 1 / units_per_hour
                                             : HoursForRanking(c);
  offered.candidates.push_back(std::move(c));
  offered.added = true;
  return offered;
}

Pricing PriceRegions(const Workload& w, const PlanOptions& options, const Shortcuts& shortcuts,
                     const InstanceType& t, const Catalog& prices,
                     const std::vector<cost::Mode>& modes, const std::string& currency) {
  std::vector<std::string> regions = w.constraints.regions;
  if (regions.empty()) {
    std::set<std::string> seen;
    for (const Price& p : prices.prices)
      seen.insert(p.region);
    regions.assign(seen.begin(), seen.end());
  }
  Pricing pricing{{}, modes, currency, &options, shortcuts.price_dominated_regions};
  for (const std::string& region : regions) {
    RegionRates rr{region, std::nullopt, ""};
    const cost::Availability avail =
        cost::CheckAvailability(prices, options.market, t.name, region);
    Result<cost::BillingRates> rates = cost::ResolveRates(
        prices, {.instance = t.name, .region = region, .zone = "", .billing = Billing::kPayg},
        options.ratios, options.today);
    if (!avail.available) {
      rr.reason = avail.reason;
      // Without stock data "not sold" only means "no price here": unknown, not excluded.
      rr.price_unknown = !avail.stock_checked && prices.prices.empty();
    } else if (!rates.ok()) {
      rr.reason = rates.status().message() +
                  " (bring a price with 'gpuplan prices refresh', 'prices import' or 'prices add')";
      rr.price_unknown = true;
    } else if (CurrencyName(rates->currency()) != currency) {
      rr.reason = "priced in " + std::string(CurrencyName(rates->currency())) + " in " + region +
                  ", the plan's currency is " + currency + " (set constraints.budget.currency)";
    } else {
      rr.rates = *rates;
    }
    pricing.rates.push_back(std::move(rr));
  }
  pricing.FindCheapest();
  pricing.spot_by_price =
      RanksByTime(w) && !options.spot.spot_ratio &&
      (options.spot.reclaim_rate_per_hour ||
       std::none_of(regions.begin(), regions.end(), [&](const std::string& region) {
         return cost::ReclaimRatePerHour(options.market, t.name, region).has_value();
       }));
  return pricing;
}

bool Unpriced(const Pricing& pricing) {
  return std::none_of(pricing.rates.begin(), pricing.rates.end(),
                      [](const RegionRates& r) { return r.rates.has_value(); }) &&
         (pricing.rates.empty() ||
          std::any_of(pricing.rates.begin(), pricing.rates.end(),
                      [](const RegionRates& r) { return r.price_unknown; }));
}

}  // namespace gpuplan::planner
