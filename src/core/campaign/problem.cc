#include "campaign/problem.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::campaign {
namespace {

bool IsSection(const Recurrence& r) { return r.kind != Recurrence::Kind::kWeekly; }

// The hours in the week a run starting at hour-of-day `hour` stays in the job's window.
bool RunFitsWindow(const std::optional<Window>& w, int hour, double hours) {
  if (!w || w->Length() == 24)
    return true;
  const int span = static_cast<int>(std::ceil(hours - 1e-9));
  if (span > w->Length())
    return false;
  for (int h = 0; h < span; ++h) {
    if (!w->Contains((hour + h) % 24))
      return false;
  }
  return true;
}

}  // namespace

Result<Timeline> MakeTimeline(const Problem& p) {
  Timeline t;
  t.weeks_per_month = p.WeeksPerMonth();
  t.special_weeks = p.min_special_weeks;
  bool has_monthly = false, has_once = false;
  for (const JobPiece& j : p.jobs) {
    if (!IsSection(j.every))
      continue;
    has_monthly |= j.every.kind == Recurrence::Kind::kMonthly;
    has_once |= j.every.kind == Recurrence::Kind::kOnce;
    for (const JobOption& o : j.options) {
      if (o.spot)
        continue;
      t.special_weeks =
          std::max(t.special_weeks, static_cast<int>(std::ceil(o.hours / kWeekHours)));
    }
  }
  if (t.special_weeks > static_cast<int>(std::floor(t.weeks_per_month))) {
    return Status::InvalidArgument(
        "a job that runs monthly or once lasts more than " +
        std::to_string(static_cast<int>(std::floor(t.weeks_per_month))) +
        " weeks on some instance type: split it into monthly parts, or plan it alone with "
        "`gpuplan plan`");
  }
  for (int b = 0; b < p.Blocks(); ++b) {
    const int begin = 12 * b, end = std::min(p.months, 12 * b + 12);
    int m = begin;
    if (b == 0 && has_once) {
      t.classes.push_back(
          {.block = 0, .first_month = 0, .months = 1, .has_once = true, .special = true});
      m = 1;
    }
    if (m < end) {
      t.classes.push_back({.block = b,
                           .first_month = m,
                           .months = end - m,
                           .has_once = false,
                           .special = has_monthly});
    }
  }
  return t;
}

std::vector<int> Starts(const Timeline& t, const JobPiece& job, const JobOption& o) {
  std::vector<int> starts;
  if (o.spot)
    return starts;
  if (o.pinned_start >= 0)
    return {o.pinned_start};
  int count = kWeekHours;
  if (job.every.kind == Recurrence::Kind::kWeekly && job.every.per_week == 7)
    count = 24;
  if (IsSection(job.every))
    count = kWeekHours * t.special_weeks;
  // A weekly job's runs may not overlap the next one: whole days apart, the shortest gap.
  const int gap_days = 7 / job.every.per_week;
  if (job.every.kind == Recurrence::Kind::kWeekly && o.hours > 24.0 * gap_days + 1e-9) {
    return starts;
  }
  for (int s = 0; s < count; ++s) {
    if (RunFitsWindow(job.window, s % 24, o.hours))
      starts.push_back(s);
  }
  return starts;
}

double RunsInHorizon(const Problem& p, const JobPiece& job) {
  switch (job.every.kind) {
    case Recurrence::Kind::kWeekly:
      return job.every.per_week * p.WeeksPerMonth() * p.months;
    case Recurrence::Kind::kMonthly:
      return p.months;
    case Recurrence::Kind::kOnce:
      return 1;
  }
  return 0;
}

Decision Decision::Empty(const Problem& p, const Timeline& t) {
  Decision d;
  d.service_option.assign(p.services.size(), 0);
  d.job.assign(p.jobs.size(), {});
  const std::size_t r = p.resources.size(), blocks = static_cast<std::size_t>(p.Blocks());
  d.monthly.assign(r, std::vector<int>(t.classes.size(), 0));
  d.yearly.assign(r, std::vector<int>(blocks, 0));
  d.reserved.assign(r, std::vector<int>(blocks, 0));
  d.savings_hourly.assign(static_cast<std::size_t>(p.SavingsTerms()), 0);
  return d;
}

namespace {

// Adds `cost` to `month_costs`, spread evenly over `count` months from `begin`.
void Spread(std::vector<double>& month_costs, int begin, int count, double cost) {
  for (int m = begin; m < begin + count; ++m)
    month_costs[static_cast<std::size_t>(m)] += cost / count;
}

// The spot runs of jobs `d` runs on spot in a month of class `c`: their cost into
// `class_month` (one month) and into each job's marginal cost (every month of the class).
void AddSpotRuns(const Problem& p, const Timeline& t, const MonthClass& c, const Decision& d,
                 double& class_month, Evaluation& e) {
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    const JobPiece& job = p.jobs[j];
    const JobOption& o = job.options[static_cast<std::size_t>(d.job[j].option)];
    if (!o.spot)
      continue;
    double runs = 0;
    if (job.every.kind == Recurrence::Kind::kWeekly)
      runs = job.every.per_week * t.weeks_per_month;
    else if (job.every.kind == Recurrence::Kind::kMonthly || c.has_once)
      runs = 1;
    class_month += runs * o.spot_cost_per_run;
    e.job_marginal[j] += runs * c.months * o.spot_cost_per_run;
  }
}

// Terms bought a year (or three) at a time: the whole term is paid, spread over its months in
// the horizon.
void SpreadYearlyTerms(const Problem& p, const Decision& d, Evaluation& e) {
  const int sp_months = p.SavingsTermMonths();
  for (int k = 0; k < p.SavingsTerms(); ++k) {
    const int begin = sp_months * k, count = std::min(p.months, begin + sp_months) - begin;
    Spread(e.month_costs, begin, count,
           d.savings_hourly[static_cast<std::size_t>(k)] * sp_months * p.hours_per_month);
  }
  const double year_hours = 12 * p.hours_per_month;
  for (int b = 0; b < p.Blocks(); ++b) {
    const auto bi = static_cast<std::size_t>(b);
    const int begin = 12 * b, count = std::min(p.months, begin + 12) - begin;
    double cost = 0;
    for (std::size_t r = 0; r < p.resources.size(); ++r) {
      cost += d.yearly[r][bi] * p.resources[r].year_price.value_or(0);
      cost += d.reserved[r][bi] * p.resources[r].reserved_hourly.value_or(0) * year_hours;
    }
    Spread(e.month_costs, begin, count, cost);
  }
}

}  // namespace

Evaluation Evaluate(const Problem& p, const Timeline& t, const Decision& d) {
  Evaluation e;
  const std::size_t nr = p.resources.size();
  e.month_costs.assign(static_cast<std::size_t>(p.months), 0);
  e.job_marginal.assign(p.jobs.size(), 0);
  std::vector<double> job_hours(p.jobs.size(), 0), job_covered_hours(p.jobs.size(), 0);
  const double sp_rate = p.savings_plan_rate.value_or(0);

  for (std::size_t ci = 0; ci < t.classes.size(); ++ci) {
    const MonthClass& c = t.classes[ci];
    const int slots = t.Slots(c);
    const auto b = static_cast<std::size_t>(c.block);
    const auto sp_term = static_cast<std::size_t>(p.SavingsTermOf(c.first_month));
    // Instances in use per slot and resource: services, then each job.
    std::vector<double> service(static_cast<std::size_t>(slots) * nr, 0);
    std::vector<std::vector<double>> jobs(p.jobs.size());
    for (std::size_t s = 0; s < p.services.size(); ++s) {
      const ServiceOption& o = p.services[s].options[static_cast<std::size_t>(d.service_option[s])];
      for (int slot = 0; slot < slots; ++slot) {
        service[static_cast<std::size_t>(slot) * nr + static_cast<std::size_t>(o.resource)] +=
            o.instances[static_cast<std::size_t>(slot % kWeekHours)];
      }
    }
    for (std::size_t j = 0; j < p.jobs.size(); ++j) {
      jobs[j].assign(static_cast<std::size_t>(slots), 0);
      const JobPiece& job = p.jobs[j];
      const JobOption& o = job.options[static_cast<std::size_t>(d.job[j].option)];
      ForEachUsage(t, c, job, o, d.job[j].start,
                   [&](int slot, double n) { jobs[j][static_cast<std::size_t>(slot)] += n; });
    }
    double class_month = 0;  // cost of one month of this class
    for (int slot = 0; slot < slots; ++slot) {
      const double weight = t.Weight(c, slot) * c.months;
      const auto row = static_cast<std::size_t>(slot) * nr;
      std::vector<double> job_in_slot(nr, 0), committed(nr, 0);
      for (std::size_t j = 0; j < p.jobs.size(); ++j) {
        const int r = p.jobs[j].options[static_cast<std::size_t>(d.job[j].option)].resource;
        job_in_slot[static_cast<std::size_t>(r)] += jobs[j][static_cast<std::size_t>(slot)];
      }
      double left_value = 0, eligible_left_value = 0, used_value = 0, committed_used_value = 0;
      std::vector<double> job_left_share(nr, 0);  // share of the jobs' instances left to pay
      for (std::size_t r = 0; r < nr; ++r) {
        committed[r] = d.monthly[r][ci] + d.yearly[r][b] + d.reserved[r][b];
        const double used = service[row + r] + job_in_slot[r];
        const double left = std::max(0.0, used - committed[r]);
        const double price = p.resources[r].payg_per_hour;
        used_value += used * price;
        left_value += left * price;
        if (p.resources[r].savings_plan_applies)
          eligible_left_value += left * price;
        committed_used_value += std::min(used, committed[r]) * price;
        const double jobs_left = std::min(job_in_slot[r], left);  // services are covered first
        job_left_share[r] = job_in_slot[r] > 0 ? jobs_left / job_in_slot[r] : 0;
      }
      const double sp_cap = sp_rate > 0 ? d.savings_hourly[sp_term] / (1 - sp_rate) : 0;
      const double sp_covered = std::min(eligible_left_value, sp_cap);
      // Share of what is left that pay-as-you-go pays, on the types the plan covers.
      const double eligible_paid =
          eligible_left_value > 0 ? (eligible_left_value - sp_covered) / eligible_left_value : 0;
      class_month += t.Weight(c, slot) * (left_value - sp_covered);
      e.used_value += weight * used_value;
      e.covered_value += weight * (committed_used_value + sp_covered);
      for (std::size_t j = 0; j < p.jobs.size(); ++j) {
        const double n = jobs[j][static_cast<std::size_t>(slot)];
        if (n <= 0)
          continue;
        const auto r = static_cast<std::size_t>(
            p.jobs[j].options[static_cast<std::size_t>(d.job[j].option)].resource);
        const double left = n * job_left_share[r];
        const double paid_share = p.resources[r].savings_plan_applies ? eligible_paid : 1;
        e.job_marginal[j] += weight * left * paid_share * p.resources[r].payg_per_hour;
        job_hours[j] += weight * n;
        job_covered_hours[j] += weight * (n - left * paid_share);
      }
      for (std::size_t r = 0; r < nr; ++r)
        e.committed_value += weight * committed[r] * p.resources[r].payg_per_hour;
      e.committed_value += weight * sp_cap;
    }
    for (std::size_t r = 0; r < nr; ++r) {
      if (d.monthly[r][ci] > 0)
        class_month += d.monthly[r][ci] * p.resources[r].month_price.value_or(0);
    }
    AddSpotRuns(p, t, c, d, class_month, e);
    Spread(e.month_costs, c.first_month, c.months, class_month * c.months);
  }
  SpreadYearlyTerms(p, d, e);
  for (double m : e.month_costs)
    e.total += m;
  e.job_covered.assign(p.jobs.size(), 0);
  for (std::size_t j = 0; j < p.jobs.size(); ++j)
    e.job_covered[j] = job_hours[j] > 0 ? job_covered_hours[j] / job_hours[j] : 0;
  return e;
}

}  // namespace gpuplan::campaign
