// The planner's ranges (include/gpuplan/plan_ranges.h).
#include <algorithm>
#include <cmath>

#include "gpuplan/plan_ranges.h"
#include "gpuplan/strings.h"

namespace gpuplan::planner {
namespace {

using strings::Num;

// "p90" for 0.9.
std::string PercentileName(double p) { return "p" + std::to_string(std::lround(p * 100)); }

std::string ChanceText(double chance) {
  if (chance >= 0.9)
    return "at least 90%";
  if (chance <= 0.1)
    return "at most 10%";
  return "about " + std::to_string(std::lround(chance * 100)) + "%";
}

// A 30-day release share -> reclaims per instance-hour (as cost::ReclaimRatePerHour).
double PerHour(double share) { return -std::log1p(-std::clamp(share, 0.0, 0.999)) / 720.0; }

}  // namespace

std::string SpotAdviceDesc(const cost::MarketData& market, const std::string& instance,
                           const std::string& region) {
  // The advice cost::ReclaimRatePerHour reads: the highest rate of the region's zones.
  const cost::SpotAdvice* worst = nullptr;
  auto same = [](const std::string& a, const std::string& b) {
    return NormalizeInstanceName(a) == NormalizeInstanceName(b);
  };
  for (const cost::SpotAdvice& s : market.spot_advice) {
    if (strings::Lower(s.region) != strings::Lower(region) || !same(s.instance, instance))
      continue;
    if (worst == nullptr || s.interruption_rate > worst->interruption_rate)
      worst = &s;
  }
  return worst != nullptr ? worst->interrupt_rate_desc : "";
}

CandidateRanges TimeRanges(const uncertainty::Table& table, const Workload& w,
                           const ModelArch& arch, const perf::Hardware& hw, const perf::Estimate& e,
                           double work_hours) {
  CandidateRanges r;
  r.confidence = w.confidence;
  r.time = uncertainty::Lookup(table, uncertainty::TimeRegime(w, arch, hw));
  r.memory = uncertainty::Lookup(table, uncertainty::MemoryRegime(w, arch, hw));
  r.step_s = uncertainty::Scale(e.time.step_s, r.time);
  r.job_hours = uncertainty::Scale(std::max(work_hours, 0.0), r.time);
  r.job_hours_at_confidence = std::max(work_hours, 0.0) * r.time.At(w.confidence);
  r.memory_gib = uncertainty::Scale(e.memory.per_gpu_gib, r.memory);
  r.memory_tight = e.memory.fits && r.memory_gib.p90 > e.memory.capacity_gib;
  return r;
}

std::optional<std::pair<double, double>> ReclaimBracketPerHour(const std::string& desc) {
  // "0-3%", "3-5%", "5-10%", "10-20%"; ">20%" has no upper end and is not a bracket.
  const size_t dash = desc.find('-');
  const size_t pct = desc.find('%');
  if (dash == std::string::npos || pct == std::string::npos || pct < dash)
    return std::nullopt;
  char* end = nullptr;
  const std::string lo_text = desc.substr(0, dash), hi_text = desc.substr(dash + 1, pct - dash - 1);
  const double lo = std::strtod(lo_text.c_str(), &end);
  if (end == lo_text.c_str() || *end != '\0')
    return std::nullopt;
  const double hi = std::strtod(hi_text.c_str(), &end);
  if (end == hi_text.c_str() || *end != '\0' || lo < 0 || hi < lo || hi >= 100)
    return std::nullopt;
  return std::pair(PerHour(lo / 100), PerHour(hi / 100));
}

Status PriceRanges(CandidateRanges& r, const cost::BillingRates& rates, const cost::CostOptions& co,
                   double work_hours, int instances, const std::string& advice_desc) {
  // The reclaim rate as a band of its own: the bracket's ends at p10 and p90, the market's
  // 30-day average at p50.
  uncertainty::Band reclaim;
  const std::optional<double> point_rate = co.spot.reclaim_rate_per_hour;
  if (co.mode == cost::Mode::kSpot && point_rate) {
    std::pair<double, double> bracket{*point_rate, *point_rate};
    if (std::optional<std::pair<double, double>> b = ReclaimBracketPerHour(advice_desc))
      bracket = *b;
    bracket = {std::min(bracket.first, *point_rate), std::max(bracket.second, *point_rate)};
    reclaim.p10 = bracket.first, reclaim.p50 = *point_rate, reclaim.p90 = bracket.second;
    r.reclaim_rate_per_hour = bracket;
  }
  // A stale spot price may have risen since it was read; Alibaba caps spot at the PAYG price,
  // so the band of the spot price runs from the listed one (p10, p50) to PAYG (p90).
  uncertainty::Band spot_price;
  const std::optional<cost::PriceQuote>& spot = rates.quotes[static_cast<size_t>(Billing::kSpot)];
  const Result<double> cap =
      spot ? rates.payg().price.Ratio(spot->price) : Result<double>(Status::NotFound("no spot"));
  if (co.mode == cost::Mode::kSpot && spot && PriceStale(*spot) && cap.ok() && *cap > 1) {
    spot_price.p90 = *cap;
    r.stale_spot_cap_per_hour = rates.payg().price.amount();
  }
  auto price = [&](double percentile, double* wall_hours) -> Result<double> {
    cost::CostOptions o = co;
    if (r.reclaim_rate_per_hour)
      o.spot.reclaim_rate_per_hour = reclaim.At(percentile);
    cost::BillingRates at = rates;
    if (spot)
      at.quotes[static_cast<size_t>(Billing::kSpot)]->price =
          spot->price * spot_price.At(percentile);
    Result<cost::JobCostEstimate> jc = cost::JobCost(
        at, {.work_hours = work_hours * r.time.At(percentile), .instances = instances}, o);
    if (!jc.ok())
      return jc.status();
    if (wall_hours != nullptr)
      *wall_hours = jc->wall_hours;
    return jc->total.amount();
  };
  double wall_lo = 0, wall_hi = 0, wall_at = 0;
  Result<double> lo = price(0.1, &wall_lo), hi = price(0.9, &wall_hi),
                 at = price(r.confidence, &wall_at), median = price(0.5, nullptr);
  if (!lo.ok())
    return lo.status();
  if (!hi.ok())
    return hi.status();
  if (!at.ok())
    return at.status();
  if (!median.ok())
    return median.status();
  r.cost_p50 = *median;
  r.cost.p10 = *lo;
  r.cost.p90 = *hi;
  r.cost_at_confidence = *at;
  r.job_hours.p10 = wall_lo;
  r.job_hours.p90 = wall_hi;
  r.job_hours_at_confidence = wall_at;
  return Status::Ok();
}

uncertainty::Range ServiceCostRange(const uncertainty::Band& time, double rate, double group_rate,
                                    int nodes_per_group, double per_instance_month,
                                    int (*spare)(int groups)) {
  auto monthly = [&](double ratio) {
    const int groups = std::max(1, static_cast<int>(std::ceil(rate * ratio / group_rate - 1e-9)));
    const int instances = groups * nodes_per_group + (spare ? spare(groups) * nodes_per_group : 0);
    return per_instance_month * instances;
  };
  return {monthly(1), monthly(time.p10), monthly(time.p90)};
}

std::string ConfidenceWhy(const Workload& w, const Candidate& c, const std::string& currency) {
  // A job with an amount of work (not a service, not per hour).
  if (!c.ranges || c.job_hours <= 0 || c.ranges->job_hours_at_confidence <= 0)
    return "";
  const CandidateRanges& r = *c.ranges;
  const std::string p = PercentileName(r.confidence);
  const std::string conf = std::to_string(std::lround(r.confidence * 100)) + "% confidence";
  std::string out;
  if (w.constraints.deadline_hours) {
    const double deadline = *w.constraints.deadline_hours;
    out += "meets the " + Num(deadline) + " h deadline with " + conf + ": " + p + " " +
           Num(r.job_hours_at_confidence) + " h (chance of finishing in time " +
           ChanceText(r.time.ChanceAtMost(deadline / c.job_hours)) + ")";
  }
  if (w.constraints.budget && w.constraints.budget->amount > 0 && c.cost.total.amount() > 0) {
    const double budget = w.constraints.budget->amount;
    const double point = c.cost.total.amount();
    // The chance is read from the cost range, which holds every band the cost moves with (the
    // time, a spot reclaim rate, a stale spot price up to its PAYG cap), not from the time alone.
    uncertainty::Band cost = r.time;
    if (r.cost_p50 > 0 && r.cost.p10 > 0 && r.cost.p90 > 0) {
      cost.p10 = r.cost.p10 / point;
      cost.p50 = r.cost_p50 / point;
      cost.p90 = r.cost.p90 / point;
    }
    out += std::string(out.empty() ? "" : "; ") + "stays within the " + currency + " " +
           Num(budget) + " budget with " + conf + ": " + p + " " + currency + " " +
           Num(r.cost_at_confidence) + " (chance " + ChanceText(cost.ChanceAtMost(budget / point)) +
           ", from the cost range " + currency + " " + Num(r.cost.p10) + "-" + Num(r.cost.p90) +
           ")";
    if (point > budget) {
      out += "; its point estimate " + currency + " " + Num(point) +
             " is over the budget: only the model's median error brings it under";
    }
    const cost::PriceQuote* q = PriceUsed(c);
    const bool derived = q && PriceTrust(*q).rfind("derived", 0) == 0;
    if (q && (PriceStale(*q) || derived)) {
      out += "; the price it rests on is " +
             std::string(derived ? "derived (" + PriceTrust(*q) + ")" : "stale") +
             (q->age_days ? ", " + std::to_string(*q->age_days) + " days old" : "") +
             ", so the chance is only as good as that price";
    }
  }
  return out;
}

double HoursForRanking(const Candidate& c) {
  return c.ranges && c.ranges->job_hours_at_confidence > 0 ? c.ranges->job_hours_at_confidence
                                                           : c.job_hours;
}

double CostForRanking(const Candidate& c) {
  if (c.ranges && c.ranges->cost_at_confidence > 0 && !c.monthly)
    return c.ranges->cost_at_confidence;
  return c.monthly ? c.monthly->per_month.amount() : c.cost.total.amount();
}

}  // namespace gpuplan::planner
