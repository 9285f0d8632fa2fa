#include "io/campaign_render.h"

#include <fmt/format.h>

#include <cmath>

#include "gpuplan/strings.h"

namespace gpuplan::io {
namespace {

std::string Term(int months) {
  if (months % 12 == 0)
    return std::to_string(months / 12) + (months == 12 ? " year" : " years");
  return std::to_string(months) + (months == 1 ? " month" : " months");
}

double Round2(double x) { return std::round(x * 100) / 100; }

nlohmann::json ResultJson(const campaign::CampaignResult& r) {
  nlohmann::json commitments = nlohmann::json::array();
  for (const campaign::Commitment& c : r.commitments) {
    nlohmann::json j = {{"kind", BillingName(c.kind)},        {"term", Term(c.term_months)},
                        {"term_months", c.term_months},       {"payment", c.payment},
                        {"first_month", c.first_month},       {"months", c.months},
                        {"month_cost", Round2(c.month_cost)}, {"price_basis", c.price_basis}};
    if (c.kind == Billing::kSavingsPlan) {
      // An ECS compute plan names its family and region; a general-purpose one covers any.
      j["family"] = c.instance.empty() ? "any (general-purpose plan)" : c.instance;
      if (!c.region.empty())
        j["region"] = c.region;
      j["hourly"] = Round2(c.hourly);
    } else {
      j["instance"] = c.instance;
      j["region"] = c.region;
      j["count"] = c.count;
    }
    commitments.push_back(std::move(j));
  }
  nlohmann::json schedule = nlohmann::json::array();
  for (const campaign::ScheduledRun& s : r.schedule) {
    nlohmann::json starts = nlohmann::json::array();
    for (int h : s.start_hours)
      starts.push_back(h);
    schedule.push_back({{"job", s.job},
                        {"every", s.every},
                        {"instance", s.instance},
                        {"region", s.region},
                        {"count", s.count},
                        {"billing", BillingName(s.billing)},
                        {"covered_share", Round2(s.covered_share)},
                        {"start", s.when},
                        {"start_hours_of_week", starts},
                        {"start_week", s.start_week},
                        {"hours", Round2(s.hours)},
                        {"runs_per_month", Round2(s.runs_per_month)},
                        {"cost_per_month", Round2(s.cost_per_month)}});
  }
  nlohmann::json services = nlohmann::json::array();
  for (const campaign::ServiceChoice& s : r.services) {
    services.push_back({{"service", s.service},
                        {"instance", s.instance},
                        {"region", s.region},
                        {"instances_per_replica", s.instances_per_replica},
                        {"peak_instances", s.peak_instances},
                        {"replica_rps", Round2(s.replica_rps)},
                        {"lead_time_min", Round2(60 * s.lead_time_h)}});
  }
  nlohmann::json months = nlohmann::json::array();
  for (std::size_t m = 0; m < r.months.size(); ++m)
    months.push_back({{"month", m + 1}, {"cost", Round2(r.months[m])}});
  nlohmann::json used = nlohmann::json::array(), committed = nlohmann::json::array();
  for (double u : r.used_by_hour)
    used.push_back(Round2(u));
  for (double c : r.committed_by_hour)
    committed.push_back(Round2(c));
  return {{"commitments", commitments},
          {"schedule", schedule},
          {"services", services},
          {"months", months},
          {"coverage", Round2(r.coverage)},
          {"utilisation", Round2(r.utilisation)},
          {"month_cost", Round2(r.month_cost)},
          {"total_cost", Round2(r.total_cost)},
          {"used_by_hour", used},
          {"committed_by_hour", committed},
          {"proven_optimal", r.proven_optimal}};
}

// Whole units: a month's bill to the yuan.
std::string Money0(double x, Currency c) { return Money(std::round(x), c).ToString(); }

std::string Saves(double best, double other) {
  if (other <= 0)
    return "";
  return fmt::format(" (this plan saves {:.0f}%)", 100 * (other - best) / other);
}

}  // namespace

nlohmann::json CampaignJson(const campaign::CampaignSpec& spec, const campaign::CampaignPlan& p) {
  nlohmann::json j = ResultJson(p.best);
  j["months_planned"] = spec.months;
  j["currency"] = CurrencyName(p.currency);
  j["vs_all_payg"] = Round2(p.vs_all_payg);
  j["vs_separate"] = Round2(p.vs_separate);
  j["with_example_savings_plan"] =
      p.with_example_savings_plan ? ResultJson(*p.with_example_savings_plan) : nlohmann::json();
  j["example_savings_plan_rate"] = p.example_savings_plan_rate;
  j["notes"] = p.notes;
  nlohmann::json dropped = nlohmann::json::array();
  for (const planner::Rejection& d : p.dropped)
    dropped.push_back({{"instance", d.instance}, {"reason", d.reason}});
  j["dropped"] = dropped;
  return j;
}

std::string CampaignText(const campaign::CampaignSpec& spec, const campaign::CampaignPlan& p) {
  const campaign::CampaignResult& r = p.best;
  const Currency cur = p.currency;
  std::string out =
      fmt::format("Campaign: {} month{}, {} job{}, {} service{}\n\n", spec.months,
                  spec.months == 1 ? "" : "s", spec.jobs.size(), spec.jobs.size() == 1 ? "" : "s",
                  spec.services.size(), spec.services.size() == 1 ? "" : "s");
  out += "Buy:\n";
  if (r.commitments.empty())
    out += "  nothing up front: every hour is cheapest pay-as-you-go or on spot\n";
  for (const campaign::Commitment& c : r.commitments) {
    const std::string months =
        c.months == spec.months
            ? (spec.months == 1 ? std::string("the month")
                                : "all " + std::to_string(spec.months) + " months")
            : fmt::format("months {}-{}", c.first_month, c.first_month + c.months - 1);
    if (c.kind == Billing::kSavingsPlan) {
      out += fmt::format("  savings plan {}/h for {} ({}), {}: {} a month  [{}]\n",
                         Money(c.hourly, cur).ToString(), Term(c.term_months), c.payment, months,
                         Money0(c.month_cost, cur), c.price_basis);
    } else {
      out += fmt::format("  {} x {} in {}, {} ({}), {}: {} a month  [{}]\n", c.count, c.instance,
                         c.region, BillingName(c.kind), c.payment, months,
                         Money0(c.month_cost, cur), c.price_basis);
    }
  }
  if (!r.services.empty())
    out += "\nServices:\n";
  for (const campaign::ServiceChoice& s : r.services) {
    out += fmt::format(
        "  {} on {} in {}: up to {} instance{} ({} per replica, {} req/s each{})\n", s.service,
        s.instance, s.region, s.peak_instances, s.peak_instances == 1 ? "" : "s",
        s.instances_per_replica, strings::Num(s.replica_rps),
        s.lead_time_h > 0
            ? fmt::format(", elastic ones started {:.0f} min ahead", 60 * s.lead_time_h)
            : "");
  }
  if (!r.schedule.empty())
    out += "\nSchedule (local time):\n";
  for (const campaign::ScheduledRun& s : r.schedule) {
    std::string on;
    if (s.billing == Billing::kSpot)
      on = "spot";
    else if (s.covered_share > 0.999)
      on = "on committed capacity (" + std::string(BillingName(s.billing)) + ")";
    else if (s.covered_share > 0.001)
      on = fmt::format("{:.0f}% on committed capacity, the rest payg", 100 * s.covered_share);
    else
      on = "payg";
    const std::string often =
        s.every == "once" ? std::string("once, in month 1")
                          : fmt::format("{}, {:.1f} runs a month", s.every, s.runs_per_month);
    out += fmt::format("  {}: {} x {} {}, {} h a run, {}, {}: {} a month\n", s.job, s.count,
                       s.instance, s.when, strings::Num(s.hours), often, on,
                       Money0(s.cost_per_month, cur));
  }
  out += fmt::format("\nCost: {} a month, {} over {} month{}\n", Money0(r.month_cost, cur),
                     Money0(r.total_cost, cur), spec.months, spec.months == 1 ? "" : "s");
  out += fmt::format("  all pay-as-you-go: {} a month{}\n", Money0(p.vs_all_payg, cur),
                     Saves(r.month_cost, p.vs_all_payg));
  out += fmt::format("  every piece planned alone: {} a month{}\n", Money0(p.vs_separate, cur),
                     Saves(r.month_cost, p.vs_separate));
  out += fmt::format(
      "  coverage {:.0f}% (usage on commitments), utilisation {:.0f}% (commitments used), "
      "both at pay-as-you-go value\n",
      100 * r.coverage, 100 * r.utilisation);
  bool uneven = false;
  for (double m : r.months)
    uneven |= std::abs(m - r.month_cost) > 0.5;
  if (uneven) {
    out += "  by month:";
    for (std::size_t m = 0; m < r.months.size(); ++m)
      out += fmt::format(" {}: {}{}", m + 1, Money0(r.months[m], cur),
                         m + 1 < r.months.size() ? "," : "");
    out += "\n";
  }
  if (p.with_example_savings_plan) {
    const campaign::CampaignResult& sp = *p.with_example_savings_plan;
    out += fmt::format(
        "  what-if, a savings plan at {:.1f}% off (a published non-GPU rate, not a quote): {} "
        "a month\n",
        100 * p.example_savings_plan_rate, Money0(sp.month_cost, cur));
  }
  if (!r.proven_optimal)
    out += "  (the solver's time limit stopped the search: the best plan found is shown)\n";
  out += "\nWhy and what it rests on:\n";
  for (const std::string& n : p.notes)
    out += "  - " + n + "\n";
  for (const planner::Rejection& d : p.dropped)
    out += "  - left out " + d.instance + ": " + d.reason + "\n";
  return out;
}

}  // namespace gpuplan::io
