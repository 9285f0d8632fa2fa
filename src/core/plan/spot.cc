// Spot prices that cannot decide a plan (src/core/plan/spot.h).
#include "plan/spot.h"

#include <algorithm>

namespace gpuplan::planner {
namespace {

// The user asked for spot alone (constraints.billing lists nothing else): then spot is ranked
// at its own price, whatever its age.
bool AsksSpotOnly(const Workload& w) {
  const auto& listed = w.constraints.billing;
  return !listed.empty() &&
         std::all_of(listed.begin(), listed.end(), [](Billing b) { return b == Billing::kSpot; });
}

// What a candidate costs in words: per month for a service, the job's total, or per hour.
std::string CostText(const Candidate& c) {
  if (c.monthly)
    return c.monthly->per_month.ToString() + " per month";
  return c.cost.total.ToString() + (c.job_hours > 0 ? "" : " per hour");
}

// Why a spot price is not ranked on: how old or how derived it is.
std::string SpotPriceDoubt(const cost::PriceQuote& q) {
  if (q.derived)
    return "not a market price but " + q.basis;
  std::string what = PriceTrust(q);  // "list", "user", "published figure (medium)", ...
  if (what == "list" || what == "user")
    what += " price";
  return "a " + what + " of " + q.as_of +
         (q.age_days ? ", " + std::to_string(*q.age_days) + " days old" : "");
}

// How to bring a spot price for `c` that can be ranked on.
std::string SpotRefreshHint(const Candidate& c) {
  return "'gpuplan prices refresh --region " + c.region +
         "' reads today's spot prices (DescribeSpotPriceHistory), 'gpuplan prices add " +
         c.instance + " AMOUNT --region " + c.region +
         " --billing spot' stores a quote you hold, and --billing spot alone ranks spot on the "
         "price as it is";
}

}  // namespace

std::optional<cost::BillingRates> SpotAtPaygCap(const Workload& w, const PlanOptions& options,
                                                bool ranked_by_time,
                                                const cost::BillingRates& rates,
                                                const Candidate& c) {
  const cost::PriceQuote* q = PriceUsed(c);
  if (c.billing != cost::Mode::kSpot || q == nullptr || SpotPriceRankable(*q) ||
      options.spot.spot_ratio || AsksSpotOnly(w) || ranked_by_time) {
    return std::nullopt;
  }
  cost::BillingRates capped = rates;
  std::optional<cost::PriceQuote>& spot = capped.quotes[static_cast<size_t>(Billing::kSpot)];
  if (!spot || !rates.payg().price.Ratio(spot->price).ok())
    return std::nullopt;
  spot->price = rates.payg().price;
  return capped;
}

std::optional<Candidate> CheapestSpotAtQuote(const std::vector<Candidate>& all) {
  const Candidate* best = nullptr;
  for (const Candidate& c : all) {
    if (c.spot_ranked_at_payg > 0 && (best == nullptr || c.score_at_quote < best->score_at_quote))
      best = &c;
  }
  return best ? std::optional<Candidate>(*best) : std::nullopt;
}

std::string SpotNotRankedWhy(const Candidate& c) {
  const cost::PriceQuote* q = PriceUsed(c);
  return "ranked as if spot cost its PAYG cap " +
         Money(c.spot_ranked_at_payg, c.cost.total.currency()).ToString() +
         "/h, the most spot can cost: its spot price " + q->price.ToString() + "/h is " +
         SpotPriceDoubt(*q) +
         ", and spot prices follow the market. To rank on a current one: " + SpotRefreshHint(c);
}

std::string SpotAlternativeNote(const Candidate& alt, const Candidate& top) {
  const cost::PriceQuote* q = PriceUsed(alt);
  return "spot not ranked on its price: " + std::to_string(alt.nodes) + " x " + alt.instance +
         " spot in " + alt.region + " would come first at " + CostText(alt) +
         " (the pick: " + CostText(top) + "), but its spot price " + q->price.ToString() +
         "/h is " + SpotPriceDoubt(*q) +
         "; spot prices follow the market, so gpuplan ranks it at its PAYG "
         "cap " +
         Money(alt.spot_ranked_at_payg, alt.cost.total.currency()).ToString() +
         "/h until it is refreshed: " + SpotRefreshHint(alt);
}

}  // namespace gpuplan::planner
