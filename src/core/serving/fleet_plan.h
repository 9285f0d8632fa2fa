// A service's fleet as the planner prices it (internal to the core): the prices a region offers
// the base and the elastic layer, and the lead time an elastic replica needs.
#ifndef GPUPLAN_SRC_CORE_SERVING_FLEET_PLAN_H_
#define GPUPLAN_SRC_CORE_SERVING_FLEET_PLAN_H_

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/fleet.h"
#include "gpuplan/plan.h"

namespace gpuplan::serving {

// The fleet's prices per instance in one region from `rates`, over the modes the workload
// allows: the base on the cheapest committed mode per month (subscription_month, or
// subscription_year / 12 when allowed; reserved instances are not offered for GPU types and a
// savings plan has no GPU rate: neither is a base), the elastic layer pay-as-you-go, or spot
// when allowed, its price can rank (listed and fresh) and it is cheaper. nullopt without a PAYG
// price (the elastic layer and the all-PAYG answer need it).
std::optional<FleetPrices> FleetPricesIn(const cost::BillingRates& rates,
                                         const std::vector<Billing>& allowed,
                                         const cost::PriceRatios& ratios);

// Hours from asking for an elastic replica to its serving: the scale-up minutes (the profile's,
// else options.scale_up_minutes) and the weights of one instance read from OSS at the lower of
// the instance's network bandwidth and 10 Gbit/s (the per-account OSS download limit of most
// mainland regions, reference S19).
double LeadTimeHours(const Workload& w, const planner::PlanOptions& options, const InstanceType& t,
                     const planner::Candidate& base);

// "peak 5 instances: 1 on subscription_month all month, up to 4 payg by hour (387 instance-hours
// a month, started 10.9 min ahead)".
std::string FleetSummary(const Fleet& f);

// The plan's note on the fleet's assumptions: the time zone, the scale-up time, the month.
std::string FleetNote(const Workload& w, const planner::PlanOptions& options);

}  // namespace gpuplan::serving

#endif  // GPUPLAN_SRC_CORE_SERVING_FLEET_PLAN_H_
