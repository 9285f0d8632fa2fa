// How far a price can be trusted, and when it is stale (include/gpuplan/plan.h).
#include <algorithm>

#include "gpuplan/plan.h"

namespace gpuplan::planner {

std::string PriceTrust(const cost::PriceQuote& q) {
  if (q.source == PriceSource::kUser)
    return "user";
  if (q.derived)
    return "derived (" + q.trust + ")";
  if (q.trust == "high")
    return "list";
  // Published figures (a bill, a quote, a blog) are one account's price, never a list price.
  const bool bill = q.basis.find("bill") != std::string::npos;
  return std::string(bill ? "published bill" : "published figure") + " (" +
         (q.trust.empty() ? "unknown" : q.trust) + ")";
}

bool PriceStale(const cost::PriceQuote& q) { return q.age_days && *q.age_days > kStalePriceDays; }

bool SpotPriceRankable(const cost::PriceQuote& q) { return !q.derived && !PriceStale(q); }

const cost::PriceQuote* PriceUsed(const Candidate& c) {
  if (!c.price_known)
    return nullptr;
  return c.monthly ? &c.monthly->price : &c.cost.price;
}

}  // namespace gpuplan::planner
