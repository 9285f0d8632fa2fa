// The campaign file's values: recurrences, windows, and the spec's own checks.
#include <algorithm>
#include <set>

#include "gpuplan/campaign.h"
#include "gpuplan/strings.h"

namespace gpuplan::campaign {

std::string Recurrence::Name() const {
  switch (kind) {
    case Kind::kWeekly:
      if (per_week == 1)
        return "weekly";
      return per_week == 7 ? "daily" : std::to_string(per_week) + "/week";
    case Kind::kMonthly:
      return "monthly";
    case Kind::kOnce:
      return "once";
  }
  return "";
}

double Recurrence::RunsPerMonth(double weeks_per_month) const {
  switch (kind) {
    case Kind::kWeekly:
      return per_week * weeks_per_month;
    case Kind::kMonthly:
      return 1;
    case Kind::kOnce:
      return 0;
  }
  return 0;
}

int Window::Length() const {
  const int n = (end_hour - start_hour + 24) % 24;
  return n == 0 ? 24 : n;
}

bool Window::Contains(int hour) const { return (hour - start_hour + 24) % 24 < Length(); }

std::string Window::Name() const {
  auto hh = [](int h) { return std::string(h < 10 ? "0" : "") + std::to_string(h) + ":00"; };
  return hh(start_hour) + "-" + hh(end_hour);
}

std::string SavingsPlanQuote::PaymentName() const {
  std::string name = payment;
  std::replace(name.begin(), name.end(), '_', ' ');
  return name;
}

std::string SavingsPlanQuote::Describe() const {
  const std::string paid = PaymentName();
  const std::string term = std::to_string(term_years) + "-year ";
  if (type == Type::kEcsCompute)
    return term + "ECS compute plan on " + family + " in " + region + ", " + paid;
  return term + "general-purpose plan, " + paid;
}

Status ValidateCampaign(const CampaignSpec& spec) {
  auto bad = [](const std::string& field, const std::string& what) {
    Status s = Status::InvalidArgument(field + ": " + what);
    return s.At("", 0, 0, field);
  };
  if (spec.months < 1 || spec.months > 36)
    return bad("months", "expected 1..36 months, got " + std::to_string(spec.months));
  if (spec.jobs.empty() && spec.services.empty())
    return bad("jobs", "a campaign needs at least one job or service");
  std::set<std::string> names;
  for (std::size_t i = 0; i < spec.jobs.size(); ++i) {
    const CampaignJob& j = spec.jobs[i];
    const std::string at = "jobs[" + std::to_string(i) + "]";
    if (j.name.empty() || !names.insert(j.name).second)
      return bad(at + ".name", "expected a name no other piece has, got \"" + j.name + "\"");
    if (j.workload.IsService())
      return bad(at + ".task", "a service (inference with a rate) belongs under services");
    if (j.every.kind == Recurrence::Kind::kWeekly &&
        (j.every.per_week < 1 || j.every.per_week > 7)) {
      return bad(at + ".every",
                 "expected 1..7 runs a week, got " + std::to_string(j.every.per_week));
    }
    if (j.window && (j.window->start_hour < 0 || j.window->start_hour > 23 ||
                     j.window->end_hour < 0 || j.window->end_hour > 24)) {
      return bad(at + ".window", "expected hours 00:00..24:00");
    }
  }
  for (std::size_t i = 0; i < spec.services.size(); ++i) {
    const CampaignService& s = spec.services[i];
    const std::string at = "services[" + std::to_string(i) + "]";
    if (s.name.empty() || !names.insert(s.name).second)
      return bad(at + ".name", "expected a name no other piece has, got \"" + s.name + "\"");
    if (!s.workload.IsService()) {
      return bad(at + ".task",
                 "expected an inference workload with inference.traffic or requests_per_s");
    }
  }
  if (spec.savings_plan_rate && !(*spec.savings_plan_rate > 0 && *spec.savings_plan_rate < 1)) {
    return bad("savings_plan_rate", "expected a discount between 0 and 1 (0.3 = 30% off), got " +
                                        strings::Num(*spec.savings_plan_rate));
  }
  const SavingsPlanQuote& sp = spec.savings_plan;
  if (sp.term_years != 1 && sp.term_years != 3) {
    return bad("savings_plan.term_years",
               "expected 1 or 3 (Alibaba's terms), got " + std::to_string(sp.term_years));
  }
  if (sp.payment != "all_upfront" && sp.payment != "partial_upfront" &&
      sp.payment != "no_upfront") {
    return bad("savings_plan.payment",
               "expected all_upfront, partial_upfront or no_upfront, got \"" + sp.payment + "\"");
  }
  const bool ecs = sp.type == SavingsPlanQuote::Type::kEcsCompute;
  if (ecs && (sp.family.empty() || sp.region.empty())) {
    return bad(sp.family.empty() ? "savings_plan.family" : "savings_plan.region",
               "an ECS compute plan covers one instance family in one region: give both "
               "(family: gn7i, region: cn-beijing)");
  }
  if (!ecs && (!sp.family.empty() || !sp.region.empty())) {
    return bad(sp.family.empty() ? "savings_plan.region" : "savings_plan.family",
               "a general-purpose plan covers every family and region; family and region "
               "belong to type: ecs_compute");
  }
  return Status::Ok();
}

}  // namespace gpuplan::campaign
