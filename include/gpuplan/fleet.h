// A service's fleet over a day: a committed base that runs all month and an elastic layer that
// follows the traffic hour by hour, sized so that the month costs least.
//
//   serving::DayDemand need = serving::DemandOf(profile, replica_rps);
//   serving::Fleet f = serving::ChooseFleet(need, {.instances_per_replica = 2,
//                                                  .lead_time_h = 0.25}, prices, {});
//   f.base_replicas;     // subscribe these for the month
//   f.elastic_by_hour;   // start these pay-as-you-go (or spot) replicas in each hour
//
// The cost model of the month: the base pays its monthly price whatever the traffic; an elastic
// replica is paid from `lead_time_h` before the hour it is needed (it must be started, boot and
// load the weights before traffic arrives: running(t) = the most extra replicas needed anywhere
// in [t, t + lead]) until the hour it is no longer needed, per second (ECS PAYG and spot billing);
// weekdays and weekend days each repeat their own day (the month: hours_per_month / 24 days, 2 in 7
// of them weekend days). The base size is chosen by trying every size from none to the peak.
//
// Thread safety: pure functions over values.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_FLEET_H_
#define GPUPLAN_INCLUDE_GPUPLAN_FLEET_H_

#include <array>
#include <optional>

#include "gpuplan/billing.h"
#include "gpuplan/workload.h"

namespace gpuplan::serving {

using Day = std::array<int, 24>;  // replicas needed in each hour of the day, local time

// Replicas needed in each hour of weekdays and weekend days.
struct DayDemand {
  Day weekday{};
  Day weekend{};
  int Peak() const;
};

// The replicas `profile` needs in each hour at `replica_rps` requests/s per replica (the
// replica's capacity within the latency targets): ceil(rate / capacity), none at a rate of 0.
// REQUIRES: replica_rps > 0.
DayDemand DemandOf(const TrafficProfile& profile, double replica_rps);
// A flat rate: `replicas` every hour.
DayDemand FlatDemand(int replicas);

// Prices per instance, in one currency.
struct FleetPrices {
  Billing elastic_billing = Billing::kPayg;  // the elastic layer's mode: payg, or spot
  double elastic_per_hour = 0;
  double payg_per_hour = 0;  // for the all-pay-as-you-go answer
  // The committed base: its mode and price per instance-month; nullopt = no committed mode is
  // allowed or priced (then the base is empty).
  Billing base_billing = Billing::kSubscriptionMonth;
  std::optional<double> base_per_month;
};

struct FleetShape {
  int instances_per_replica = 1;  // instances one replica (a group serving together) spans
  double lead_time_h = 0;         // from asking for an elastic replica to its serving
  // The smallest base: a service on spot keeps at least one replica that is never reclaimed.
  int min_base_replicas = 0;
};

struct MonthCalendar {
  double hours_per_month = 730;      // PriceRatios::hours_per_month
  double weekend_share = 2.0 / 7.0;  // of the month's days
  double Days() const { return hours_per_month / 24; }
};

struct Fleet {
  FleetShape shape;
  int base_replicas = 0;  // committed for the month
  Billing base_billing = Billing::kSubscriptionMonth;
  Billing elastic_billing = Billing::kPayg;
  DayDemand replicas;       // needed by hour (base + elastic)
  DayDemand elastic;        // above the base, by hour, before the lead time
  double base_cost = 0;     // per month
  double elastic_cost = 0;  // per month
  double month_cost = 0;
  double elastic_instance_hours = 0;  // per month, lead time included
  // The two simple answers, per month: every peak replica on the base mode all month (nullopt
  // when no base mode is priced), and only pay-as-you-go replicas following the traffic.
  std::optional<double> vs_peak_subscription;
  double vs_all_payg = 0;
  int BaseInstances() const { return base_replicas * shape.instances_per_replica; }
  int PeakInstances() const { return replicas.Peak() * shape.instances_per_replica; }
};

// Replica-hours paid in one day above `base` when each elastic replica starts `lead_time_h`
// before it is needed (the day repeats: hour 23 is followed by hour 0).
double ElasticReplicaHours(const Day& need, int base, double lead_time_h);

// The month's cost with `base` replicas committed.
double FleetMonthCost(const DayDemand& need, int base, const FleetShape& shape,
                      const FleetPrices& prices, const MonthCalendar& month);

// The fleet of least month cost (the smallest base of equal costs, at least
// shape.min_base_replicas when a base is priced). REQUIRES: need.Peak() >= 1.
Fleet ChooseFleet(const DayDemand& need, const FleetShape& shape, const FleetPrices& prices,
                  const MonthCalendar& month);

}  // namespace gpuplan::serving

#endif  // GPUPLAN_INCLUDE_GPUPLAN_FLEET_H_
