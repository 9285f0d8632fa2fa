// A service's fleet (include/gpuplan/fleet.h) against a minute-by-minute simulation of the month
// and against every base size, on named profiles.
#include "gpuplan/fleet.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace gpuplan::serving {
namespace {

// Replica-minutes of one day, simulated minute by minute: a replica runs at minute t when some
// minute in [t, t + lead] needs it (it was started `lead` ahead); the day repeats.
double SimulatedReplicaHours(const Day& need, int base, double lead_h) {
  const int lead_min = static_cast<int>(std::lround(lead_h * 60));
  double minutes = 0;
  for (int t = 0; t < 1440; ++t) {
    int running = 0;
    for (int u = t; u <= t + lead_min; ++u)
      running = std::max(running, need[static_cast<size_t>((u % 1440) / 60)] - base);
    minutes += running;
  }
  return minutes / 60;
}

// The month as a calendar: every day of it, weekdays and weekend days in their share, the base
// paid monthly and every elastic replica-minute at the elastic price.
double SimulatedMonth(const DayDemand& need, int base, const FleetShape& shape,
                      const FleetPrices& prices, const MonthCalendar& month) {
  const double weekend_days = month.Days() * month.weekend_share;
  const double replica_hours =
      (month.Days() - weekend_days) * SimulatedReplicaHours(need.weekday, base, shape.lead_time_h) +
      weekend_days * SimulatedReplicaHours(need.weekend, base, shape.lead_time_h);
  return base * shape.instances_per_replica * prices.base_per_month.value_or(0) +
         replica_hours * shape.instances_per_replica * prices.elastic_per_hour;
}

TrafficProfile Profile(std::vector<double> weekday, std::vector<double> weekend = {}) {
  TrafficProfile t;
  t.hourly_rps = std::move(weekday);
  t.weekend_hourly_rps = std::move(weekend);
  return t;
}

struct FleetCase {
  const char* name;
  TrafficProfile profile;
  double replica_rps;
  FleetShape shape;
  FleetPrices prices;
};

std::vector<FleetCase> Cases() {
  // PAYG 62.54/h and a subscription of 0.66 x 730 h of it (price_ratios.csv R1).
  const FleetPrices sub_and_payg{.elastic_billing = Billing::kPayg,
                                 .elastic_per_hour = 62.54,
                                 .payg_per_hour = 62.54,
                                 .base_billing = Billing::kSubscriptionMonth,
                                 .base_per_month = 0.66 * 730 * 62.54};
  FleetPrices spot_peaks = sub_and_payg;
  spot_peaks.elastic_billing = Billing::kSpot;
  spot_peaks.elastic_per_hour = 0.2 * 62.54;
  std::vector<double> business(24, 1);
  for (int h = 9; h < 18; ++h)
    business[static_cast<size_t>(h)] = 20;
  return {
      {"evening_peak_32b_issue_example",
       Profile(*TrafficFromPeak(2, 30, "19-22")),
       6.76,
       {.instances_per_replica = 1, .lead_time_h = 0.2},
       sub_and_payg},
      {"business_hours_weekends_quiet_two_instance_replicas",
       Profile(business, std::vector<double>(24, 1)),
       4,
       {.instances_per_replica = 2, .lead_time_h = 1.4},
       sub_and_payg},
      {"flat_all_day_subscribes_everything",
       Profile(std::vector<double>(24, 9)),
       2,
       {.instances_per_replica = 1, .lead_time_h = 0.25},
       sub_and_payg},
      {"spot_peaks_over_a_night_floor_past_midnight",
       Profile(*TrafficFromPeak(3, 12, "22-2")),
       2.5,
       {.instances_per_replica = 1, .lead_time_h = 0.5},
       spot_peaks},
  };
}

TEST(FleetTest, ElasticHoursMatchAMinuteByMinuteSimulation) {
  for (const FleetCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    const DayDemand need = DemandOf(c.profile, c.replica_rps);
    for (int base = 0; base <= need.Peak(); ++base) {
      EXPECT_NEAR(ElasticReplicaHours(need.weekday, base, c.shape.lead_time_h),
                  SimulatedReplicaHours(need.weekday, base, c.shape.lead_time_h), 0.02)
          << "base " << base;
    }
  }
}

TEST(FleetTest, TheChosenBaseIsTheCheapestOfEverySize) {
  const MonthCalendar month;
  for (const FleetCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    const DayDemand need = DemandOf(c.profile, c.replica_rps);
    const Fleet f = ChooseFleet(need, c.shape, c.prices, month);
    int brute_base = 0;
    double brute = SimulatedMonth(need, 0, c.shape, c.prices, month);
    for (int base = 1; base <= need.Peak(); ++base) {
      const double cost = SimulatedMonth(need, base, c.shape, c.prices, month);
      if (cost < brute - 1e-6) {
        brute = cost;
        brute_base = base;
      }
    }
    EXPECT_EQ(f.base_replicas, brute_base);
    EXPECT_NEAR(f.month_cost, brute, brute * 1e-4);
    // Never dearer than either simple answer.
    ASSERT_TRUE(f.vs_peak_subscription.has_value());
    EXPECT_LE(f.month_cost, *f.vs_peak_subscription + 1e-6);
    EXPECT_LE(f.month_cost, f.vs_all_payg + 1e-6);
    EXPECT_NEAR(f.base_cost + f.elastic_cost, f.month_cost, 1e-6);
  }
}

TEST(FleetTest, TheIssueEveningPeakIsOneSubscribedInstanceAndFourByTheHour) {
  // Qwen2.5-32B at 2 requests/s, 30 from 19:00 to 22:00, one A100 pair serving 6.76 requests/s:
  // the hand-built fleet is one subscribed instance and four pay-as-you-go ones in the peak.
  const FleetCase c = Cases()[0];
  const DayDemand need = DemandOf(c.profile, c.replica_rps);
  EXPECT_EQ(need.Peak(), 5);
  const Fleet f = ChooseFleet(need, c.shape, c.prices, MonthCalendar{});
  EXPECT_EQ(f.base_replicas, 1);
  EXPECT_EQ(f.elastic.weekday[20], 4);
  EXPECT_EQ(f.elastic.weekday[3], 0);
  // The hand-built answer: 1 x subscription + 4 PAYG for the peak hours (3 a day, 730 / 24 days)
  // plus the lead time of each start.
  const double hand = *c.prices.base_per_month +
                      4 * (3 + c.shape.lead_time_h) * (730.0 / 24) * c.prices.payg_per_hour;
  EXPECT_NEAR(f.month_cost, hand, 1);
  EXPECT_LT(f.month_cost, 0.4 * *f.vs_peak_subscription);
}

TEST(FleetTest, ASpotLayerKeepsAnOnDemandFloor) {
  // Spot at a fifth of PAYG: cheaper than any base, yet a service keeps one replica no reclaim
  // can take (shape.min_base_replicas, set by the planner for a spot layer).
  FleetPrices prices{.elastic_billing = Billing::kSpot,
                     .elastic_per_hour = 10,
                     .payg_per_hour = 50,
                     .base_billing = Billing::kSubscriptionMonth,
                     .base_per_month = 0.66 * 730 * 50};
  const DayDemand need = DemandOf(Profile(*TrafficFromPeak(2, 10, "9-18")), 2.5);
  EXPECT_EQ(
      ChooseFleet(need, {.instances_per_replica = 1, .lead_time_h = 0.2}, prices, {}).base_replicas,
      0);
  const Fleet floor = ChooseFleet(
      need, {.instances_per_replica = 1, .lead_time_h = 0.2, .min_base_replicas = 1}, prices, {});
  EXPECT_EQ(floor.base_replicas, 1);
  EXPECT_EQ(floor.elastic.weekday[3], 0) << "the floor serves the night";
}

TEST(FleetTest, NoCommittedModeMeansNoBase) {
  FleetPrices payg_only;
  payg_only.elastic_per_hour = payg_only.payg_per_hour = 10;
  const Fleet f = ChooseFleet(FlatDemand(3), {}, payg_only, MonthCalendar{});
  EXPECT_EQ(f.base_replicas, 0);
  EXPECT_FALSE(f.vs_peak_subscription.has_value());
  EXPECT_NEAR(f.month_cost, 3 * 730 * 10, 1e-6);
}

TEST(FleetTest, TrafficProfilesFromPeaksAndZones) {
  const std::vector<double> evening = *TrafficFromPeak(2, 30, "19-22");
  EXPECT_EQ(evening[18], 2);
  EXPECT_EQ(evening[19], 30);
  EXPECT_EQ(evening[21], 30);
  EXPECT_EQ(evening[22], 2);
  const std::vector<double> night = *TrafficFromPeak(1, 5, "22-2");
  EXPECT_EQ(night[23], 5);
  EXPECT_EQ(night[1], 5);
  EXPECT_EQ(night[2], 1);
  for (const char* bad : {"19", "22-22", "25-3", "a-b", "19-22x", ""})
    EXPECT_FALSE(TrafficFromPeak(1, 2, bad).has_value()) << bad;
  EXPECT_EQ(ParseUtcOffset("Asia/Shanghai"), 8);
  EXPECT_EQ(ParseUtcOffset("+05:30"), 5.5);
  EXPECT_EQ(ParseUtcOffset("UTC-5"), -5);
  EXPECT_EQ(ParseUtcOffset("UTC"), 0);
  EXPECT_FALSE(ParseUtcOffset("Europe/Berlin").has_value()) << "daylight saving: no fixed offset";
  EXPECT_FALSE(ParseUtcOffset("+15").has_value());
}

TEST(FleetTest, BadProfilesAreRefusedNamingTheField) {
  struct Case {
    const char* name;
    TrafficProfile profile;
    bool with_rate;
    const char* field;
  };
  std::vector<double> negative(24, 1);
  negative[5] = -1;
  std::vector<double> nan(24, 1);
  nan[7] = std::nan("");
  const Case kCases[] = {
      {"wrong_length", Profile(std::vector<double>(23, 1)), false, "inference.traffic.hourly_rps"},
      {"negative_rate", Profile(negative), false, "inference.traffic.hourly_rps[5]"},
      {"not_a_number", Profile(nan), false, "inference.traffic.hourly_rps[7]"},
      {"only_zeros", Profile(std::vector<double>(24, 0)), false, "inference.traffic.hourly_rps"},
      {"weekend_too_short", Profile(std::vector<double>(24, 1), {1, 2}), false,
       "inference.traffic.weekend_hourly_rps"},
      {"with_a_constant_rate", Profile(std::vector<double>(24, 1)), true, "inference.traffic"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w;
    w.task = Task::kInference;
    w.model_name = "m";
    w.inference.traffic = c.profile;
    if (c.with_rate)
      w.inference.requests_per_s = 3;
    const Status s = ValidateWorkload(w);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(std::string("\"") + c.field + "\""), std::string::npos)
        << s.message();
  }
}

}  // namespace
}  // namespace gpuplan::serving
