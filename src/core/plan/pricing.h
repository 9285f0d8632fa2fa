// Pricing a plan's candidates (internal to the core): each instance type's rates per region,
// resolved once, and a candidate (hardware, layout and estimate known) priced in every allowed
// region and billing mode with the cost model (gpuplan/cost.h), held to the budget; or kept
// unpriced with how to get a price. The billing modes themselves come from the billing table
// (gpuplan/billing.h): a new mode is a row there, priced here like the others.
#ifndef GPUPLAN_SRC_CORE_PLAN_PRICING_H_
#define GPUPLAN_SRC_CORE_PLAN_PRICING_H_

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/billing.h"
#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/plan.h"
#include "gpuplan/workload.h"
#include "plan/shortcuts.h"

namespace gpuplan::planner {

// One region's rates for an instance type, or why it cannot be bought or priced there.
struct RegionRates {
  std::string region;
  std::optional<cost::BillingRates> rates;
  std::string reason;
  bool price_unknown = false;  // no price, and nothing says it is not sold there
};

// How to get a price gpuplan does not have.
std::string PriceHint(const std::string& instance, const std::string& region);

// Spare instances a spot service keeps so a reclaim (5-minute notice, about 15 minutes to
// replace) never drops below the rate: one per ten instances, at least one. An assumption;
// the advice says so.
int SpareInstances(int instances);

// Everything pricing needs that is the same for every candidate of one instance type.
struct Pricing {
  std::vector<RegionRates> rates;
  std::vector<cost::Mode> modes;
  std::string currency;
  const PlanOptions* options = nullptr;
  bool every_region = false;  // Shortcuts::price_dominated_regions

  // Spot's hours differ by region only through the reclaim rate the market knows there, and
  // under a cost objective its score through whether its price can rank (SpotAtPaygCap). Where
  // no region has a rate (every one ranks with the same default, or the user's) and the plan
  // ranks by time (the price only breaks ties), spot is priced as the other modes are.
  bool spot_by_price = false;

  // Whether `mode` is priced in rates[i]. Outside spot a candidate's hours are the same in
  // every region and its cost (and cost range, commitment and monthly cost) grows with the
  // mode's price alone, so the region where that price is least ranks before every other
  // (RankCandidates keeps only it; the first of equal prices, as the ranking does): only it is
  // priced. Spot is priced in every region unless spot_by_price.
  bool Prices(size_t i, cost::Mode mode) const {
    const std::optional<size_t>& least = cheapest[static_cast<size_t>(mode)];
    return (mode == cost::Mode::kSpot && !spot_by_price) || every_region || !least || *least == i;
  }

  // Per billing mode, the region (into `rates`) where its price is least, the first of equal
  // prices (FindCheapest); none when no region prices it.
  std::array<std::optional<size_t>, kBillingCount> cheapest{};
  void FindCheapest() {
    for (size_t m = 0; m < kBillingCount; ++m) {
      for (size_t j = 0; j < rates.size(); ++j) {
        if (!rates[j].rates || !rates[j].rates->quotes[m])
          continue;
        const double price = rates[j].rates->quotes[m]->price.amount();
        if (!cheapest[m] || price < rates[*cheapest[m]].rates->quotes[m]->price.amount())
          cheapest[m] = j;
      }
    }
  }
};

// `t`'s rates in every region the workload allows (or, when it names none, every region with a
// price in `prices`, the catalog's rows for `t`), each with why not; `modes` and `currency` are
// the plan's.
Pricing PriceRegions(const Workload& w, const PlanOptions& options, const Shortcuts& shortcuts,
                     const InstanceType& t, const Catalog& prices,
                     const std::vector<cost::Mode>& modes, const std::string& currency);

// Unpriced: no region has a price, and either none was asked (no rows anywhere) or an asked
// one simply lacks a price.
bool Unpriced(const Pricing& pricing);

// One candidate to price: `base` with its hardware, layout and estimate filled in.
struct PriceRequest {
  const Workload& w;
  const InstanceType& t;
  const Candidate& base;
  // The job's length in hours; 0 = no amount of work: price one hour and rank by cost per
  // `units_per_hour`.
  double hours = 0;
  double units_per_hour = 0;  // tokens (or TFLOPS for rendering and HPC) per hour
  bool serving = false;       // a service: copies, monthly cost, spot spares
  // Candidates a plan may show, with the costs' notes: only those the ranking or the spot
  // alternative can take. Without it, a bound's candidates, only compared (every one, without
  // notes).
  bool explain = true;
};

// What pricing one candidate gave.
struct Offered {
  bool added = false;                 // some candidate met the budget (or was kept unpriced)
  std::vector<Candidate> candidates;  // in pricing order
  std::string rejection;              // the last reason a region or mode was dropped, or ""
};

// Prices `r.base` in every allowed region and billing mode (Pricing::Prices); the candidates
// that meet the budget. A service with a traffic profile is priced as a fleet per region
// (serving/fleet_plan.h).
Offered PriceCandidate(const PriceRequest& r, const Pricing& pricing);

// `r.base` with no price: its speed is known, so it stays in the plan (ranked by time; under a
// cost objective after every priced candidate), with the cost unknown and how to get it. A
// budget cannot be checked without a price: then it is rejected with the same hint.
Offered AddUnpriced(const PriceRequest& r, const std::string& region);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_PLAN_PRICING_H_
