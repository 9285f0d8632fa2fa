#include "io/fleet_render.h"

#include <fmt/format.h>

#include "gpuplan/strings.h"

namespace gpuplan::io {
namespace {

using strings::Num;

// Instances in each hour: replicas x instances per replica.
std::vector<int> Instances(const serving::Day& replicas, int per_replica) {
  std::vector<int> out;
  out.reserve(24);
  for (int r : replicas)
    out.push_back(r * per_replica);
  return out;
}

std::string Hours(const std::vector<int>& by_hour) {
  std::string s;
  for (size_t h = 0; h < by_hour.size(); ++h)
    s += (h ? " " : "") + std::to_string(by_hour[h]);
  return s;
}

// "saves 65%" / "costs 3% more" of `cost` against `other`.
std::string Against(double cost, double other) {
  if (other <= 0)
    return "";
  const double saving = 1 - cost / other;
  return saving >= 0 ? fmt::format("saves {}%", Num(saving * 100))
                     : fmt::format("costs {}% more", Num(-saving * 100));
}

}  // namespace

std::string FleetBillingText(const serving::Fleet& f) {
  const bool elastic = f.elastic.Peak() > 0;
  if (f.base_replicas > 0 && elastic)
    return std::string(BillingName(f.base_billing)) + "+" +
           std::string(BillingName(f.elastic_billing));
  return std::string(BillingName(f.base_replicas > 0 ? f.base_billing : f.elastic_billing));
}

nlohmann::json FleetJson(const planner::Candidate& c) {
  const serving::Fleet& f = *c.fleet;
  const int per = f.shape.instances_per_replica;
  auto or_null = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {
      {"base",
       {{"instance", c.instance},
        {"count", f.BaseInstances()},
        {"billing", BillingName(f.base_billing)}}},
      {"elastic",
       {{"billing", BillingName(f.elastic_billing)},
        {"by_hour", Instances(f.elastic.weekday, per)},
        {"weekend_by_hour", Instances(f.elastic.weekend, per)}}},
      {"replicas_by_hour", Instances(f.replicas.weekday, per)},
      {"weekend_replicas_by_hour", Instances(f.replicas.weekend, per)},
      {"instances_per_replica", per},
      {"lead_time_min", f.shape.lead_time_h * 60},
      {"month_cost", f.month_cost},
      {"base_cost", f.base_cost},
      {"elastic_cost", f.elastic_cost},
      {"elastic_instance_hours", f.elastic_instance_hours},
      {"vs_peak_subscription", or_null(f.vs_peak_subscription)},
      {"vs_all_payg", f.vs_all_payg},
      {"currency", CurrencyName(c.cost.total.currency())},
  };
}

std::string FleetText(const planner::Candidate& c) {
  const serving::Fleet& f = *c.fleet;
  const int per = f.shape.instances_per_replica;
  const std::string cur(CurrencyName(c.cost.total.currency()));
  std::string s =
      f.base_replicas > 0
          ? fmt::format("Fleet: {} x {} {} all month ({} {}/month); {} instances above it",
                        f.BaseInstances(), c.instance, BillingName(f.base_billing), cur,
                        Num(f.base_cost), BillingName(f.elastic_billing))
          : fmt::format(
                "Fleet: no base (a committed instance would cost more than the hours it "
                "covers); {} {} instances",
                BillingName(f.elastic_billing), c.instance);
  if (f.elastic.Peak() == 0) {
    s += fmt::format(": none (the base serves every hour); month {} {}", cur, Num(f.month_cost));
    return s + (f.vs_all_payg > 0
                    ? fmt::format(" (only pay-as-you-go: {} {}, {})\n", cur, Num(f.vs_all_payg),
                                  Against(f.month_cost, f.vs_all_payg))
                    : "\n");
  }
  s += " by hour (local time 0-23): " + Hours(Instances(f.elastic.weekday, per));
  if (f.elastic.weekend != f.elastic.weekday)
    s += "; weekends: " + Hours(Instances(f.elastic.weekend, per));
  s += fmt::format(" ({} instance-hours a month, {} {}), each started {} min ahead\n",
                   Num(f.elastic_instance_hours), cur, Num(f.elastic_cost),
                   Num(f.shape.lead_time_h * 60));
  s += fmt::format("Month: {} {}", cur, Num(f.month_cost));
  if (f.vs_peak_subscription) {
    s += fmt::format("; the peak ({} instances) on {} all month: {} {} ({})", f.PeakInstances(),
                     BillingName(f.base_billing), cur, Num(*f.vs_peak_subscription),
                     Against(f.month_cost, *f.vs_peak_subscription));
  }
  s += fmt::format("; only pay-as-you-go following the traffic: {} {} ({})\n", cur,
                   Num(f.vs_all_payg), Against(f.month_cost, f.vs_all_payg));
  return s;
}

}  // namespace gpuplan::io
