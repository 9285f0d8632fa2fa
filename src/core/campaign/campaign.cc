// PlanCampaign: the problem built from the pieces' plans, solved once as asked, once with the
// published savings-plan example when no GPU rate was quoted, and against the two simple answers
// (all pay-as-you-go; each piece alone), then read back as commitments and a schedule.
#include <algorithm>
#include <cmath>

#include "campaign/exclusive.h"
#include "campaign/pieces.h"
#include "campaign/problem.h"
#include "gpuplan/strings.h"

namespace gpuplan::campaign {
namespace {

constexpr const char* kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};

std::string Clock(double hour_of_day) {
  const int minutes = static_cast<int>(std::lround(hour_of_day * 60)) % (24 * 60);
  const int h = minutes / 60, m = minutes % 60;
  return std::string(h < 10 ? "0" : "") + std::to_string(h) + ":" + (m < 10 ? "0" : "") +
         std::to_string(m);
}

// "Tue, Fri 01:00-07:12", "daily 02:00-05:00", "week 1 Mon 01:00, 30 h".
std::string When(const JobPiece& job, const JobOption& o, const ScheduledRun& run) {
  if (o.spot)
    return "any time, on spot";
  const int first = run.start_hours.front();
  const double end = first + o.hours;  // hours of the week (or of the section)
  std::string span = Clock(first % 24) + "-" + Clock(std::fmod(end, 24));
  if (o.hours > 24) {
    span = Clock(first % 24) + " to " + kDays[static_cast<int>(end / 24) % 7] + " " +
           Clock(std::fmod(end, 24));
  }
  if (job.every.kind != Recurrence::Kind::kWeekly) {
    return "week " + std::to_string(run.start_week + 1) + " " + kDays[(first / 24) % 7] + " " +
           span;
  }
  if (job.every.per_week == 7)
    return "daily " + span;
  std::string days;
  for (int s : run.start_hours)
    days += std::string(days.empty() ? "" : ", ") + kDays[(s / 24) % 7];
  return days + " " + span;
}

// The commitments `d` buys: monthly renewals (consecutive classes with the same count as one
// run), yearly subscriptions and reserved instances per block, and savings-plan terms.
void ListCommitments(const Problem& p, const Timeline& t, const Decision& d, CampaignResult& out) {
  const double year_hours = 12 * p.hours_per_month;
  for (std::size_t r = 0; r < p.resources.size(); ++r) {
    const Resource& res = p.resources[r];
    for (std::size_t c = 0; c < t.classes.size(); ++c) {
      // Consecutive classes with the same count are one run of monthly renewals.
      if (c > 0 && d.monthly[r][c] > 0 && d.monthly[r][c] == d.monthly[r][c - 1] &&
          !out.commitments.empty() && out.commitments.back().instance == res.instance &&
          out.commitments.back().region == res.region &&
          out.commitments.back().kind == Billing::kSubscriptionMonth) {
        out.commitments.back().months += t.classes[c].months;
        continue;
      }
      if (d.monthly[r][c] > 0) {
        out.commitments.push_back({.kind = Billing::kSubscriptionMonth,
                                   .instance = res.instance,
                                   .region = res.region,
                                   .count = d.monthly[r][c],
                                   .term_months = 1,
                                   .payment = "all upfront, monthly",
                                   .first_month = t.classes[c].first_month + 1,
                                   .months = t.classes[c].months,
                                   .month_cost = d.monthly[r][c] * res.month_price.value_or(0),
                                   .price_basis = res.month_basis});
      }
    }
    for (int b = 0; b < p.Blocks(); ++b) {
      const auto bi = static_cast<std::size_t>(b);
      const int held = std::min(p.months, 12 * b + 12) - 12 * b;
      if (d.yearly[r][bi] > 0) {
        out.commitments.push_back({.kind = Billing::kSubscriptionYear,
                                   .instance = res.instance,
                                   .region = res.region,
                                   .count = d.yearly[r][bi],
                                   .term_months = 12,
                                   .payment = "all upfront",
                                   .first_month = 12 * b + 1,
                                   .months = held,
                                   .month_cost = d.yearly[r][bi] * res.year_price.value_or(0) / 12,
                                   .price_basis = "listed"});
      }
      if (d.reserved[r][bi] > 0) {
        out.commitments.push_back(
            {.kind = Billing::kReservedNoUpfront,
             .instance = res.instance,
             .region = res.region,
             .count = d.reserved[r][bi],
             .term_months = 12,
             .payment = "no upfront",
             .first_month = 12 * b + 1,
             .months = held,
             .month_cost = d.reserved[r][bi] * res.reserved_hourly.value_or(0) * year_hours / 12,
             .price_basis = "listed"});
      }
    }
  }
  for (int k = 0; k < p.SavingsTerms(); ++k) {
    const double hourly = d.savings_hourly[static_cast<std::size_t>(k)];
    const int term = p.SavingsTermMonths();
    if (hourly > 1e-6) {
      out.commitments.push_back({.kind = Billing::kSavingsPlan,
                                 .instance = p.savings_plan.family,
                                 .region = p.savings_plan.region,
                                 .count = 0,
                                 .hourly = hourly,
                                 .term_months = term,
                                 .payment = p.savings_plan.PaymentName(),
                                 .first_month = term * k + 1,
                                 .months = std::min(p.months, term * k + term) - term * k,
                                 .month_cost = hourly * p.hours_per_month,
                                 .price_basis = p.savings_plan.Describe() + " at " +
                                                strings::Num(100 * *p.savings_plan_rate) +
                                                "% off pay-as-you-go"});
    }
  }
}

// Job `j`'s runs as `d` schedules them: where, billed how (the commitment that holds it when it
// is covered), when, and what it adds per month.
ScheduledRun ScheduleJob(const Problem& p, const Timeline& t, const Decision& d,
                         const Evaluation& e, std::size_t j) {
  const JobPiece& job = p.jobs[j];
  const JobOption& o = job.options[static_cast<std::size_t>(d.job[j].option)];
  const Resource& res = p.resources[static_cast<std::size_t>(o.resource)];
  ScheduledRun run{.job = job.name,
                   .every = job.every.Name(),
                   .instance = res.instance,
                   .region = res.region,
                   .count = o.instances,
                   .billing = o.spot ? Billing::kSpot : Billing::kPayg,
                   .covered_share = o.spot ? 0 : e.job_covered[j],
                   .start_hours = {},
                   .start_week = 0,
                   .hours = o.hours,
                   .runs_per_month = job.every.kind == Recurrence::Kind::kOnce
                                         ? 1
                                         : job.every.RunsPerMonth(p.WeeksPerMonth()),
                   .cost_per_month = e.job_marginal[j] / p.months,
                   .when = ""};
  if (!o.spot) {
    const int start = d.job[j].start;
    if (job.every.kind == Recurrence::Kind::kWeekly) {
      for (int i = 0; i < job.every.per_week; ++i)
        run.start_hours.push_back(WeeklyRunStart(start, i, job.every.per_week));
    } else {
      run.start_week = start / kWeekHours;
      run.start_hours.push_back(start % kWeekHours);
    }
    if (run.covered_share > 0.999) {
      // The commitment that holds it: the resource's, else the savings plan.
      const auto r = static_cast<std::size_t>(o.resource);
      bool any_instance = false;
      for (std::size_t c = 0; c < t.classes.size(); ++c)
        any_instance |= d.monthly[r][c] > 0;
      run.billing = any_instance                                     ? Billing::kSubscriptionMonth
                    : !d.yearly[r].empty() && d.yearly[r][0] > 0     ? Billing::kSubscriptionYear
                    : !d.reserved[r].empty() && d.reserved[r][0] > 0 ? Billing::kReservedNoUpfront
                                                                     : Billing::kSavingsPlan;
    }
  }
  run.when = When(job, o, run);
  return run;
}

// The first month's ordinary week, for the chart: instances used and committed per hour.
void AddWeekChart(const Problem& p, const Timeline& t, const Decision& d, CampaignResult& out) {
  if (t.classes.empty())
    return;
  const MonthClass& c = t.classes.front();
  out.used_by_hour.assign(kWeekHours, 0);
  out.committed_by_hour.assign(kWeekHours, 0);
  for (std::size_t s = 0; s < p.services.size(); ++s) {
    const ServiceOption& o = p.services[s].options[static_cast<std::size_t>(d.service_option[s])];
    for (int h = 0; h < kWeekHours; ++h)
      out.used_by_hour[static_cast<std::size_t>(h)] += o.instances[static_cast<std::size_t>(h)];
  }
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    const JobOption& o = p.jobs[j].options[static_cast<std::size_t>(d.job[j].option)];
    ForEachUsage(t, c, p.jobs[j], o, d.job[j].start, [&](int slot, double n) {
      if (slot < kWeekHours)
        out.used_by_hour[static_cast<std::size_t>(slot)] += n;
    });
  }
  double committed = 0;
  for (std::size_t r = 0; r < p.resources.size(); ++r)
    committed += d.monthly[r][0] + d.yearly[r][0] + d.reserved[r][0];
  out.committed_by_hour.assign(kWeekHours, committed);
}

CampaignResult ToResult(const Problem& p, const Timeline& t, const Decision& d, bool optimal) {
  const Evaluation e = Evaluate(p, t, d);
  CampaignResult out;
  out.proven_optimal = optimal;
  out.months = e.month_costs;
  out.total_cost = e.total;
  out.month_cost = e.total / p.months;
  out.coverage = e.used_value > 0 ? e.covered_value / e.used_value : 0;
  out.utilisation = e.committed_value > 0 ? e.covered_value / e.committed_value : 0;
  ListCommitments(p, t, d, out);
  for (std::size_t s = 0; s < p.services.size(); ++s)
    out.services.push_back(
        p.services[s].options[static_cast<std::size_t>(d.service_option[s])].shown);
  for (std::size_t j = 0; j < p.jobs.size(); ++j)
    out.schedule.push_back(ScheduleJob(p, t, d, e, j));
  AddWeekChart(p, t, d, out);
  return out;
}

struct Solved {
  Problem problem;
  Timeline timeline;
  Decision decision;
  bool optimal = true;
};

Result<Solved> Solve(Problem p, const MipSolver& solver, const Decision* start = nullptr) {
  Result<Timeline> t = MakeTimeline(p);
  if (!t.ok())
    return t.status();
  bool optimal = true;
  Result<Decision> d = SolveCampaign(p, *t, solver, &optimal, start);
  if (!d.ok())
    return d.status();
  return Solved{std::move(p), std::move(*t), std::move(*d), optimal};
}

CampaignResult Read(const Solved& s) {
  return ToResult(s.problem, s.timeline, s.decision, s.optimal);
}

// The campaign bought only by the hour: no commitments, no spot.
Problem AllPayg(Problem p) {
  p.allow_month = p.allow_year = p.allow_reserved = false;
  p.savings_plan_rate.reset();
  for (JobPiece& j : p.jobs) {
    std::erase_if(j.options, [](const JobOption& o) { return o.spot; });
  }
  return p;
}

// Each piece solved on its own: their total, and their decisions put together as one decision
// of the whole campaign (commitments added up), a feasible start for the joint program.
struct Separate {
  double total = 0;
  Decision joint;
};

Result<Separate> Separately(const Problem& p, const Timeline& joint_t, const MipSolver& solver) {
  Separate out{0, Decision::Empty(p, joint_t)};
  const int services = static_cast<int>(p.services.size());
  for (int i = 0; i < services + static_cast<int>(p.jobs.size()); ++i) {
    Result<Solved> alone = Solve(PartOf(p, {i}), solver);
    if (!alone.ok())
      return alone.status();
    out.total += Evaluate(alone->problem, alone->timeline, alone->decision).total;
    AddCommitments(alone->decision, alone->timeline, joint_t, out.joint);
    if (i < services)
      out.joint.service_option[static_cast<std::size_t>(i)] = alone->decision.service_option[0];
    else
      out.joint.job[static_cast<std::size_t>(i - services)] = alone->decision.job[0];
  }
  return out;
}

void AddNotes(const CampaignSpec& spec, const Problem& p, const CampaignPlan& plan,
              std::vector<std::string>& notes) {
  const Currency cur = plan.currency;
  auto money = [&](double x) { return Money(x, cur).ToString(); };
  for (const Commitment& c : plan.best.commitments) {
    if (c.kind != Billing::kSubscriptionMonth)
      continue;
    for (const Resource& r : p.resources) {
      if (r.instance != c.instance || r.region != c.region || !r.month_price)
        continue;
      notes.push_back("a monthly subscription of " + r.instance + " in " + r.region + " (" +
                      money(*r.month_price) + " a month, " + r.month_basis +
                      ") beats pay-as-you-go (" + money(r.payg_per_hour) + "/h) above " +
                      strings::Num(std::round(*r.month_price / r.payg_per_hour)) +
                      " h of use a month at these prices");
      break;
    }
  }
  if (!spec.timezone.empty()) {
    notes.push_back("times are local to " + spec.timezone + " (UTC" +
                    (CampaignUtcOffset(spec) >= 0 ? "+" : "") +
                    strings::Num(CampaignUtcOffset(spec)) + "); the week starts Monday 00:00");
  } else {
    notes.push_back(
        "assumed: times are UTC+8 (China Standard Time; set timezone to change); "
        "the week starts Monday 00:00");
  }
  notes.push_back("a month is " + strings::Num(p.hours_per_month) + " h (" +
                  strings::Num(p.WeeksPerMonth()) +
                  " weeks); jobs keep the same hours every week, and a monthly or once job runs "
                  "in the first weeks of its month");
  bool any_reserved = false;
  for (const Resource& r : p.resources)
    any_reserved |= r.reserved_hourly.has_value();
  if (!any_reserved) {
    notes.push_back(
        "reserved instances: left out. An Alibaba page says GPU types cannot use them "
        "(help.aliyun.com/document_detail/213635.html) and no rate is listed for these types "
        "in these regions; add one with `gpuplan prices add --billing reserved_no_upfront` to "
        "weigh it");
  }
  if (!spec.savings_plan_rate) {
    notes.push_back(
        "savings plan: Alibaba publishes no discount for GPU families, so the plan above has "
        "none. Ask for a quote (ECS console > Savings Plans > Purchase shows the rate for your "
        "account and term, or your account manager) and set it in the file: savings_plan: {rate, "
        "type: general | ecs_compute, term_years: 1 | 3, payment, family, region}. At the "
        "published "
        "non-GPU example (" +
        strings::Num(100 * plan.example_savings_plan_rate) +
        "% off, 1-year All Upfront general-purpose on c5/ic5; the jobs at the hours above) it "
        "would cost " +
        (plan.with_example_savings_plan ? money(plan.with_example_savings_plan->month_cost)
                                        : std::string("the same")) +
        " a month");
  }
  if (spec.savings_plan_rate && p.SavingsTermMonths() > p.months) {
    notes.push_back("the " + spec.savings_plan.Describe() + " is paid for all " +
                    std::to_string(p.SavingsTermMonths()) + " months of its term, " +
                    std::to_string(p.SavingsTermMonths() - p.months) +
                    " of them after the campaign ends, and is weighed at that full cost");
  }
  for (std::size_t j = 0; j < p.jobs.size() && j < plan.best.schedule.size(); ++j) {
    const ScheduledRun& run = plan.best.schedule[j];
    if (run.billing == Billing::kSpot)
      continue;
    const JobPiece& job = p.jobs[j];
    const JobOption* cheapest = nullptr;
    for (const JobOption& o : job.options) {
      if (o.spot && o.spot_quote_per_run < o.spot_cost_per_run &&
          (!cheapest || o.spot_quote_per_run < cheapest->spot_quote_per_run)) {
        cheapest = &o;
      }
    }
    if (!cheapest)
      continue;
    const double month = cheapest->spot_quote_per_run * RunsInHorizon(p, job) / p.months;
    if (month < run.cost_per_month) {
      notes.push_back(
          "\"" + job.name + "\" could run on spot for about " + money(month) +
          " a month instead of " + money(run.cost_per_month) +
          ", but the spot price it rests "
          "on is derived or stale, so it is weighed at its pay-as-you-go cap (as `gpuplan plan` "
          "does); run `gpuplan prices refresh` for today's spot prices to let spot decide");
    }
  }
  bool spot = false;
  for (const ScheduledRun& r : plan.best.schedule)
    spot |= r.billing == Billing::kSpot;
  if (spot) {
    notes.push_back(
        "spot runs are priced at the planner's spot price and interruption allowance; a "
        "reclaimed run resumes from its checkpoint (refresh prices with `gpuplan prices "
        "refresh`)");
  }
}

}  // namespace

Result<CampaignPlan> PlanCampaign(const CampaignSpec& spec, const ModelZoo& zoo,
                                  const Catalog& catalog, const Calibration& cal,
                                  const CampaignOptions& options) {
  if (Status s = ValidateCampaign(spec); !s.ok())
    return s;
  if (!options.solver)
    return Status::Internal("PlanCampaign needs a MIP solver");
  Result<BuiltProblem> built = BuildProblem(spec, zoo, catalog, cal, options);
  if (!built.ok())
    return built.status();
  const Problem& p = built->problem;
  CampaignPlan plan;
  plan.currency = built->currency;
  plan.dropped = built->dropped;
  // Each piece alone first: its total is one simple answer, and together they are a feasible
  // start the joint program can only improve on.
  Result<Timeline> timeline = MakeTimeline(p);
  if (!timeline.ok())
    return timeline.status();
  Result<Separate> separate = Separately(p, *timeline, options.solver);
  if (!separate.ok())
    return separate.status();
  plan.vs_separate = separate->total / p.months;
  Result<Solved> best = Solve(p, options.solver, &separate->joint);
  if (!best.ok())
    return best.status();
  plan.best = Read(*best);
  plan.example_savings_plan_rate = options.plan.ratios.savings_plan_example_1y;
  const bool sp_allowed =
      spec.billing.empty() || std::find(spec.billing.begin(), spec.billing.end(),
                                        Billing::kSavingsPlan) != spec.billing.end();
  if (!p.savings_plan_rate && sp_allowed && plan.example_savings_plan_rate > 0) {
    // The jobs keep the plan's option and hours: the plan's commitments decide their cost little,
    // and with them pinned the savings plan is weighed in a fraction of the time.
    Problem with = p;
    with.savings_plan_rate = plan.example_savings_plan_rate;
    with.savings_plan = {};  // the example is a general-purpose plan: every type
    for (Resource& r : with.resources)
      r.savings_plan_applies = true;
    Decision start = best->decision;
    for (std::size_t j = 0; j < with.jobs.size(); ++j) {
      JobOption kept = with.jobs[j].options[static_cast<std::size_t>(start.job[j].option)];
      kept.pinned_start = start.job[j].start;
      with.jobs[j].options = {kept};
      start.job[j].option = 0;
    }
    Result<Solved> r = Solve(with, options.solver, &start);
    if (!r.ok())
      return r.status();
    plan.with_example_savings_plan = Read(*r);
  }
  Result<Solved> payg = Solve(AllPayg(p), options.solver);
  if (!payg.ok())
    return payg.status();
  plan.vs_all_payg = Read(*payg).month_cost;
  plan.notes = built->notes;
  AddNotes(spec, p, plan, plan.notes);
  return plan;
}

}  // namespace gpuplan::campaign
