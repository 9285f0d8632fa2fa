// The campaign as an optimisation problem (internal to the core): instance types with their
// prices, each piece's options, the weekly timeline, a decision, and its exact cost.
//
// Problem -> Timeline (MakeTimeline) -> Decision (SolveCampaign, mip_model.cc, or a brute force
// in the tests) -> Evaluation (Evaluate: the cost the user is shown; the program's objective is
// checked against it).
#ifndef GPUPLAN_SRC_CORE_CAMPAIGN_PROBLEM_H_
#define GPUPLAN_SRC_CORE_CAMPAIGN_PROBLEM_H_

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/campaign.h"

namespace gpuplan::campaign {

inline constexpr int kWeekHours = 168;
using WeekProfile = std::array<double, kWeekHours>;  // instances in each hour of the week

// An instance type in a region: what each way of paying for one instance costs.
struct Resource {
  std::string instance;
  std::string region;
  double payg_per_hour = 0;
  std::optional<double> month_price;      // subscription_month, per instance-month
  std::optional<double> year_price;       // subscription_year (listed only), per instance-year
  std::optional<double> reserved_hourly;  // RI No Upfront (listed only), every hour of a year
  std::string month_basis;                // how the monthly price was obtained
  bool savings_plan_applies = true;       // the savings plan pays for it (ECS compute: one family)
};

struct ServiceOption {
  int resource = 0;
  WeekProfile instances{};  // in use each hour of the week, lead time included
  ServiceChoice shown;      // for the result
};

struct ServicePiece {
  std::string name;
  std::vector<ServiceOption> options;
};

struct JobOption {
  int resource = 0;
  int instances = 1;  // per run
  double hours = 0;   // per run
  bool spot = false;  // runs on spot: no capacity of the campaign's, a price per run
  // What a spot run is decided at: its quote when that price can rank a plan (listed and fresh,
  // planner::SpotPriceRankable), else its PAYG cap, as the planner ranks it.
  double spot_cost_per_run = 0;
  double spot_quote_per_run = 0;  // at its own (derived or stale) price, for the what-if
  int pinned_start = -1;  // >= 0: the only start offered (a what-if keeps the plan's schedule)
};

struct JobPiece {
  std::string name;
  Recurrence every;
  std::optional<Window> window;
  std::vector<JobOption> options;
};

struct Problem {
  int months = 1;
  double hours_per_month = 730;
  std::vector<Resource> resources;
  std::vector<ServicePiece> services;
  std::vector<JobPiece> jobs;
  bool allow_month = true;                  // subscription_month
  bool allow_year = true;                   // subscription_year (where listed)
  bool allow_reserved = true;               // reserved_no_upfront (where listed)
  std::optional<double> savings_plan_rate;  // a savings plan at this discount
  SavingsPlanQuote savings_plan;            // its type, term and payment
  // The fewest weeks the section for monthly and once jobs spans (a part of a larger campaign
  // keeps the whole campaign's section, so its starts mean the same hours).
  int min_special_weeks = 0;
  double WeeksPerMonth() const { return hours_per_month / kWeekHours; }
  int Blocks() const { return (months + 11) / 12; }  // 12-month terms
  // The savings plan's terms over the horizon, and the term a month class falls in.
  int SavingsTermMonths() const { return 12 * savings_plan.term_years; }
  int SavingsTerms() const { return (months + SavingsTermMonths() - 1) / SavingsTermMonths(); }
  int SavingsTermOf(int first_month) const { return first_month / SavingsTermMonths(); }
};

// Months that cost the same: a class is a run of months in one 12-month block with the same
// jobs. Its hours: the ordinary week (slots 0..167, weight weeks_per_month - special_weeks) and,
// when it has jobs that run monthly or once, a section of `special_weeks` weeks (slots 168..,
// weight 1) that holds them.
struct MonthClass {
  int block = 0;
  int first_month = 0;  // 0-based
  int months = 1;
  bool has_once = false;
  bool special = false;
};

struct Timeline {
  double weeks_per_month = 730.0 / kWeekHours;
  int special_weeks = 0;
  std::vector<MonthClass> classes;
  int Slots(const MonthClass& c) const {
    return kWeekHours * (1 + (c.special ? special_weeks : 0));
  }
  double Weight(const MonthClass& c, int slot) const {
    if (slot >= kWeekHours)
      return 1;
    return weeks_per_month - (c.special ? special_weeks : 0);
  }
};

// kInvalidArgument when a monthly or once job outlasts the month (naming it).
Result<Timeline> MakeTimeline(const Problem& p);

// Where a job runs: an option and the hour its first run starts (weekly: hour of the week,
// daily: hour of the day; monthly/once: hour of the special section); -1 on spot.
struct Placement {
  int option = 0;
  int start = -1;
};

// The hour of the week run `i` (0-based) of a weekly job starts, its first at `start`: `per_week`
// runs spread evenly over the week, whole days apart.
inline int WeeklyRunStart(int start, int i, int per_week) {
  return (start + 24 * ((i * 7) / per_week)) % kWeekHours;
}

// The starts a job's option may take (its window respected); empty for spot.
std::vector<int> Starts(const Timeline& t, const JobPiece& job, const JobOption& o);

// Calls f(slot, instances) for every slot of class `c` a job placed at `start` uses.
template <typename F>
void ForEachUsage(const Timeline& t, const MonthClass& c, const JobPiece& job, const JobOption& o,
                  int start, F&& f);

// Runs of the job over the horizon, and in a month of class `c`.
double RunsInHorizon(const Problem& p, const JobPiece& job);

struct Decision {
  std::vector<int> service_option;         // per service
  std::vector<Placement> job;              // per job
  std::vector<std::vector<int>> monthly;   // [resource][class] instances
  std::vector<std::vector<int>> yearly;    // [resource][block]
  std::vector<std::vector<int>> reserved;  // [resource][block]
  std::vector<double> savings_hourly;      // [savings term], PAYG-priced spend it pays for
                                           // per hour is savings_hourly / (1 - rate)
  // Sized for `p` and `t`, nothing committed, first options.
  static Decision Empty(const Problem& p, const Timeline& t);
};

struct Evaluation {
  double total = 0;
  std::vector<double> month_costs;   // per month of the horizon
  double used_value = 0;             // usage at PAYG prices over the horizon
  double covered_value = 0;          // ... of it on committed capacity or the savings plan
  double committed_value = 0;        // commitments held inside the horizon, at PAYG prices
  std::vector<double> job_marginal;  // per job: its PAYG or spot cost over the horizon
  std::vector<double> job_covered;   // per job: share of its instance-hours on commitments
};

// The cost of `d` in full. Services take committed capacity before jobs (they hold it all
// month); within a slot the savings plan pays for what commitments leave.
Evaluation Evaluate(const Problem& p, const Timeline& t, const Decision& d);

// The least-cost decision, by the mixed-integer program, searched from `start` when given (a
// feasible decision, e.g. every piece's own optimum: the result is never worse). `proven_optimal`
// false when the solver's limit stopped it. `price_exclusive_alone`: types only one piece can use
// are priced alone first (campaign/exclusive.h); without commitments or a savings plan every
// piece simply takes its cheapest option.
Result<Decision> SolveCampaign(const Problem& p, const Timeline& t, const MipSolver& solver,
                               bool* proven_optimal, const Decision* start = nullptr,
                               bool price_exclusive_alone = true);

// ---------------------------------------------------------------------------------------------

template <typename F>
void ForEachUsage(const Timeline& t, const MonthClass& c, const JobPiece& job, const JobOption& o,
                  int start, F&& f) {
  if (o.spot || start < 0)
    return;
  auto run = [&](int section_begin, int section_len, int at) {
    double left = o.hours;
    for (int h = 0; left > 1e-9; ++h) {
      const double share = left < 1 ? left : 1;
      f(section_begin + (at + h) % section_len, o.instances * share);
      left -= share;
    }
  };
  switch (job.every.kind) {
    case Recurrence::Kind::kWeekly: {
      const int n = job.every.per_week;
      const int sections = c.special ? 1 + t.special_weeks : 1;
      for (int w = 0; w < sections; ++w) {
        for (int i = 0; i < n; ++i) {
          run(w * kWeekHours, kWeekHours, WeeklyRunStart(start, i, n));
        }
      }
      return;
    }
    case Recurrence::Kind::kMonthly:
    case Recurrence::Kind::kOnce:
      if (!c.special || (job.every.kind == Recurrence::Kind::kOnce && !c.has_once))
        return;
      run(kWeekHours, kWeekHours * t.special_weeks, start);
      return;
  }
}

}  // namespace gpuplan::campaign

#endif  // GPUPLAN_SRC_CORE_CAMPAIGN_PROBLEM_H_
