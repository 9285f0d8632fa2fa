// A service's fleet over a day (include/gpuplan/fleet.h).
#include "gpuplan/fleet.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::serving {
namespace {

// The most of `need` over hours h .. h + span (cyclic), above `base`.
int MaxAbove(const Day& need, int base, int h, int span) {
  int most = 0;
  for (int i = 0; i <= span; ++i)
    most = std::max(most, need[static_cast<size_t>((h + i) % 24)] - base);
  return most;
}

Day Above(const Day& need, int base) {
  Day out{};
  for (size_t h = 0; h < 24; ++h)
    out[h] = std::max(0, need[h] - base);
  return out;
}

}  // namespace

int DayDemand::Peak() const {
  return std::max(*std::max_element(weekday.begin(), weekday.end()),
                  *std::max_element(weekend.begin(), weekend.end()));
}

DayDemand DemandOf(const TrafficProfile& profile, double replica_rps) {
  DayDemand d;
  auto need = [&](double rps) {
    return rps > 0 ? static_cast<int>(std::ceil(rps / replica_rps - 1e-9)) : 0;
  };
  for (int h = 0; h < 24; ++h) {
    d.weekday[static_cast<size_t>(h)] = need(profile.At(h, false));
    d.weekend[static_cast<size_t>(h)] = need(profile.At(h, true));
  }
  return d;
}

DayDemand FlatDemand(int replicas) {
  DayDemand d;
  d.weekday.fill(replicas);
  d.weekend.fill(replicas);
  return d;
}

double ElasticReplicaHours(const Day& need, int base, double lead_time_h) {
  // A replica running at time t serves someone needed in [t, t + lead]: with lead = k hours +
  // a fraction r, the first 1 - r of hour h holds the most over hours h..h+k, the last r the
  // most over h..h+k+1.
  const double lead = std::clamp(lead_time_h, 0.0, 24.0);
  const int k = static_cast<int>(std::floor(lead));
  const double r = lead - k;
  double hours = 0;
  for (int h = 0; h < 24; ++h) {
    hours += (1 - r) * MaxAbove(need, base, h, std::min(k, 23)) +
             r * MaxAbove(need, base, h, std::min(k + 1, 23));
  }
  return hours;
}

namespace {

// Elastic instance-hours of the month above `base` replicas: each day type's paid replica-hours
// over its days.
double MonthInstanceHours(const DayDemand& need, int base, const FleetShape& shape,
                          const MonthCalendar& month) {
  const double weekend_days = month.Days() * month.weekend_share;
  const double weekdays = month.Days() - weekend_days;
  return (weekdays * ElasticReplicaHours(need.weekday, base, shape.lead_time_h) +
          weekend_days * ElasticReplicaHours(need.weekend, base, shape.lead_time_h)) *
         shape.instances_per_replica;
}

double BaseCost(int base, const FleetShape& shape, const FleetPrices& prices) {
  return base > 0 ? base * shape.instances_per_replica * *prices.base_per_month : 0;
}

}  // namespace

double FleetMonthCost(const DayDemand& need, int base, const FleetShape& shape,
                      const FleetPrices& prices, const MonthCalendar& month) {
  return BaseCost(base, shape, prices) +
         MonthInstanceHours(need, base, shape, month) * prices.elastic_per_hour;
}

Fleet ChooseFleet(const DayDemand& need, const FleetShape& shape, const FleetPrices& prices,
                  const MonthCalendar& month) {
  Fleet f;
  f.shape = shape;
  f.base_billing = prices.base_billing;
  f.elastic_billing = prices.elastic_billing;
  f.replicas = need;
  const int peak = need.Peak();
  const int most_base = prices.base_per_month ? peak : 0;
  const int least_base = std::min(shape.min_base_replicas, most_base);
  f.base_replicas = least_base;
  double best = FleetMonthCost(need, least_base, shape, prices, month);
  for (int base = least_base + 1; base <= most_base; ++base) {
    const double cost = FleetMonthCost(need, base, shape, prices, month);
    if (cost < best - 1e-9) {
      best = cost;
      f.base_replicas = base;
    }
  }
  f.elastic = {Above(need.weekday, f.base_replicas), Above(need.weekend, f.base_replicas)};
  f.month_cost = best;
  f.base_cost = BaseCost(f.base_replicas, shape, prices);
  f.elastic_instance_hours = MonthInstanceHours(need, f.base_replicas, shape, month);
  f.elastic_cost = f.elastic_instance_hours * prices.elastic_per_hour;
  if (prices.base_per_month)
    f.vs_peak_subscription = BaseCost(peak, shape, prices);
  f.vs_all_payg = MonthInstanceHours(need, 0, shape, month) * prices.payg_per_hour;
  return f;
}

}  // namespace gpuplan::serving
