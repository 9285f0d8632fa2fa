// A service's fleet as the planner prices it (src/core/serving/fleet_plan.h).
#include "serving/fleet_plan.h"

#include <algorithm>

#include "gpuplan/strings.h"
#include "perf/internal.h"

namespace gpuplan::serving {
namespace {

constexpr double kOssDownloadGbps = 10;  // per account, most mainland regions (reference S19)

bool Allows(const std::vector<Billing>& allowed, Billing b) {
  return std::find(allowed.begin(), allowed.end(), b) != allowed.end();
}

}  // namespace

std::optional<FleetPrices> FleetPricesIn(const cost::BillingRates& rates,
                                         const std::vector<Billing>& allowed,
                                         const cost::PriceRatios& ratios) {
  const auto& payg = rates.quotes[static_cast<size_t>(Billing::kPayg)];
  if (!payg)
    return std::nullopt;
  FleetPrices p;
  p.payg_per_hour = payg->price.amount();
  p.elastic_per_hour = p.payg_per_hour;
  const auto& spot = rates.quotes[static_cast<size_t>(Billing::kSpot)];
  if (Allows(allowed, Billing::kSpot) && spot && planner::SpotPriceRankable(*spot) &&
      spot->price.amount() < p.elastic_per_hour) {
    p.elastic_billing = Billing::kSpot;
    p.elastic_per_hour = spot->price.amount();
  }
  for (Billing b : {Billing::kSubscriptionMonth, Billing::kSubscriptionYear}) {
    const auto& q = rates.quotes[static_cast<size_t>(b)];
    if (!Allows(allowed, b) || !q)
      continue;
    const double per_month = q->HourlyPrice(ratios).amount() * ratios.hours_per_month;
    if (!p.base_per_month || per_month < *p.base_per_month) {
      p.base_per_month = per_month;
      p.base_billing = b;
    }
  }
  // A spot layer needs an on-demand floor that no reclaim takes away: pay-as-you-go all month
  // when no committed mode is allowed.
  if (p.elastic_billing == Billing::kSpot && !p.base_per_month) {
    p.base_per_month = p.payg_per_hour * ratios.hours_per_month;
    p.base_billing = Billing::kPayg;
  }
  return p;
}

double LeadTimeHours(const Workload& w, const planner::PlanOptions& options, const InstanceType& t,
                     const planner::Candidate& base) {
  const double start_min = w.inference.traffic && w.inference.traffic->scale_up_minutes
                               ? *w.inference.traffic->scale_up_minutes
                               : options.scale_up_minutes;
  const int gpus_per_instance = std::max(1, base.gpus / std::max(1, base.nodes));
  const double weight_bits =
      base.estimate.memory.breakdown.weights * gpus_per_instance * perf::internal::kGiB * 8;
  // The instance's own bandwidth when the catalog knows it, never more than the account's.
  const double gbps =
      t.network_gbps > 0 ? std::min(t.network_gbps, kOssDownloadGbps) : kOssDownloadGbps;
  const double load_s = weight_bits / (gbps * 1e9);
  return (start_min * 60 + load_s) / 3600;
}

std::string FleetSummary(const Fleet& f) {
  const int per = f.shape.instances_per_replica;
  std::string s = "peak " + std::to_string(f.PeakInstances()) +
                  " instances: " + std::to_string(f.BaseInstances()) + " on " +
                  std::string(BillingName(f.base_billing)) + " all month";
  if (f.elastic.Peak() > 0) {
    s += ", up to " + std::to_string(f.elastic.Peak() * per) + " " +
         std::string(BillingName(f.elastic_billing)) + " by hour (" +
         strings::Num(f.elastic_instance_hours) + " instance-hours a month, started " +
         strings::Num(f.shape.lead_time_h * 60) + " min ahead)";
  }
  return s;
}

std::string FleetNote(const Workload& w, const planner::PlanOptions& options) {
  if (!w.inference.traffic)
    return "";
  const TrafficProfile& t = *w.inference.traffic;
  const std::string zone =
      t.utc_offset_hours
          ? (t.timezone.empty() ? "UTC" + strings::Num(*t.utc_offset_hours) : t.timezone)
          : "UTC+8 (assumed: set inference.traffic.timezone)";
  const std::string start =
      t.scale_up_minutes ? strings::Num(*t.scale_up_minutes) + " min"
                         : strings::Num(options.scale_up_minutes) +
                               " min (assumed: set inference.traffic.scale_up_minutes from a "
                               "measured scale-out)";
  return "fleet: traffic by hour in " + zone + "; peak " + strings::Num(t.Peak()) + " requests/s" +
         (t.HasWeekend() ? ", weekends their own profile" : "") +
         "; each elastic instance is started ahead of its hour by the scale-up time " + start +
         " plus the weights' load from OSS (at most 10 Gbit/s per account); a month of " +
         strings::Num(options.ratios.hours_per_month) +
         " h, 2 days in 7 weekend days; the base size tried from none to the peak";
}

}  // namespace gpuplan::serving
