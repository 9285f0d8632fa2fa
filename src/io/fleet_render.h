// A service's fleet (gpuplan/fleet.h) as a plan shows it: JSON, a text block and the billing
// cell of the plan's table.
#ifndef GPUPLAN_SRC_IO_FLEET_RENDER_H_
#define GPUPLAN_SRC_IO_FLEET_RENDER_H_

#include <nlohmann/json.hpp>
#include <string>

#include "gpuplan/plan.h"

namespace gpuplan::io {

// fleet{base{instance, count, billing}, elastic{billing, by_hour[24], weekend_by_hour[24]},
// replicas_by_hour, instances_per_replica, lead_time_min, month_cost, base_cost, elastic_cost,
// vs_peak_subscription, vs_all_payg, ...}; counts are instances.
nlohmann::json FleetJson(const planner::Candidate& c);

// "subscription_month+payg" (a base and an elastic layer), or the one mode used.
std::string FleetBillingText(const serving::Fleet& f);

// The lines a plan prints under its pick: the base, the elastic instances by hour, the lead time
// and the month against the two simple answers.
std::string FleetText(const planner::Candidate& c);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_FLEET_RENDER_H_
