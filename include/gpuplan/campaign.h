// A campaign: a team's recurring jobs and services over months, planned together under
// commitments. The planner prices each piece (gpuplan/plan.h); the campaign then decides, as one
// mixed-integer program, what to commit to (monthly or yearly subscriptions per instance type,
// reserved instances where a listed rate exists, a savings plan where a discount is given),
// which instance type each piece runs on, and when each job runs in its week, so that jobs fill
// the hours the services leave idle on capacity already paid for.
//
//   campaign::CampaignSpec spec;  // months, jobs (workload + every/window), services
//   Result<campaign::CampaignPlan> p =
//       campaign::PlanCampaign(spec, zoo, catalog, cal, {.plan = options, .solver = solver});
//   p->commitments;   // what to buy
//   p->schedule;      // which job runs when, on what
//   p->month_cost;    // vs p->vs_all_payg and p->vs_separate
//
// The time model: one week of hours (local time, Monday 00:00 = hour 0) repeats through each
// month of MonthCalendar::hours_per_month / 168 weeks; a job that runs monthly or once takes the
// first weeks of its month (as many as it lasts) and every other job keeps its weekly slot.
// Services follow their traffic profile's weekday and weekend days; an elastic instance is paid
// from its lead time before the hour it serves.
//
// Thread safety: pure function over const inputs (the solver it is given must be re-entrant).
#ifndef GPUPLAN_INCLUDE_GPUPLAN_CAMPAIGN_H_
#define GPUPLAN_INCLUDE_GPUPLAN_CAMPAIGN_H_

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/billing.h"
#include "gpuplan/catalog.h"
#include "gpuplan/mip.h"
#include "gpuplan/model.h"
#include "gpuplan/plan.h"
#include "gpuplan/status.h"
#include "gpuplan/workload.h"

namespace gpuplan::campaign {

// How often a job runs: `per_week` runs a week ("2/week"; "daily" = 7), once a month, or once
// in the whole horizon.
struct Recurrence {
  enum class Kind { kWeekly, kMonthly, kOnce };
  Kind kind = Kind::kWeekly;
  int per_week = 1;  // kWeekly: 1..7
  // "2/week", "daily", "monthly", "once".
  std::string Name() const;
  // Runs in a month of `weeks_per_month` weeks (kOnce: 0; counted in the first month apart).
  double RunsPerMonth(double weeks_per_month) const;
};

// Hours of the day a job may run in, local time: [start_hour, end_hour), wrapping past
// midnight when end <= start ("22:00-06:00"); start == end is the whole day.
struct Window {
  int start_hour = 0;
  int end_hour = 0;
  int Length() const;             // hours, 1..24
  bool Contains(int hour) const;  // hour 0..23
  std::string Name() const;       // "22:00-06:00"
};

struct CampaignJob {
  std::string name;
  Workload workload;  // as `gpuplan plan` takes it; its deadline bounds one run's hours
  Recurrence every;
  std::optional<Window> window;
  bool interruptible = false;  // may run on spot (with the planner's checkpoint overhead)
};

struct CampaignService {
  std::string name;
  Workload workload;  // inference with inference.traffic (or a flat requests_per_s)
};

// The savings plan a rate was quoted for (Alibaba's plan types, terms and payment options:
// ../shared/data/fleets_commitments_platforms.md section 2.1). The commitment is an hourly spend,
// charged every hour of the term whether used or not; usage above it pays pay-as-you-go.
struct SavingsPlanQuote {
  enum class Type { kGeneral, kEcsCompute };
  Type type = Type::kGeneral;  // general: any type in any region; ECS compute: one family in
                               // one region (a deeper discount)
  int term_years = 1;          // 1 or 3; the whole term is paid even past the campaign's end
  std::string payment = "all_upfront";  // all_upfront | partial_upfront | no_upfront: what the
                                        // rate was quoted for (it decides the rate, not the sum)
  std::string family;                   // ECS compute: the family it covers ("gn7i")
  std::string region;                   // ECS compute: the region it covers
  std::string PaymentName() const;      // "all upfront"
  std::string Describe() const;         // "1-year general-purpose plan, all upfront"
};

struct CampaignSpec {
  int months = 1;  // 1..36
  std::vector<CampaignJob> jobs;
  std::vector<CampaignService> services;
  // The campaign's local time, in which job windows are read and the week is shown; services'
  // traffic profiles are moved into it. Unset = UTC+8 (an assumption, listed).
  std::optional<double> utc_offset_hours;
  std::string timezone;  // as written
  // Modes the campaign may buy; empty = every mode it can price: payg, spot (interruptible
  // jobs), subscription_month, subscription_year and reserved_no_upfront where listed, and a
  // savings plan only at a quoted rate.
  std::vector<Billing> billing;
  // The savings-plan discount you were quoted for GPU families (0.3 = 30% off PAYG), for the
  // plan `savings_plan` describes; unset = no GPU rate is published, so the plan is shown without
  // one and, apart, at the published non-GPU example rate (PriceRatios::savings_plan_example_1y,
  // a 1-year general-purpose plan).
  std::optional<double> savings_plan_rate;
  SavingsPlanQuote savings_plan;
};

struct CampaignOptions {
  planner::PlanOptions plan;  // for each piece (top_n is raised to see enough types)
  MipSolver solver;
  // Instance types (per region) kept per piece: the cheapest ones, plus those a service uses.
  int types_per_job = 2;
  int types_per_service = 2;
};

// Something to buy.
struct Commitment {
  Billing kind = Billing::kSubscriptionMonth;  // subscription_month/_year, reserved_*, savings_plan
  std::string instance;     // a savings plan: its family (ECS compute), "" (general: any type)
  std::string region;       // "" for a general-purpose savings plan
  int count = 0;            // instances (0 for a savings plan)
  double hourly = 0;        // a savings plan's commitment per hour, in `currency`
  int term_months = 1;      // the term bought
  std::string payment;      // "all upfront" (subscriptions), "no upfront", ...
  int first_month = 1;      // 1-based month of the horizon it starts in
  int months = 1;           // months of the horizon it is bought for (monthly: consecutive)
  double month_cost = 0;    // per month while held
  std::string price_basis;  // "0.66 x 730 h x PAYG (derived)", "listed 2024-12-30"
};

// One job's runs.
struct ScheduledRun {
  std::string job;
  std::string every;  // "2/week", "daily", "monthly", "once" (Recurrence::Name)
  std::string instance;
  std::string region;
  int count = 0;                     // instances per run
  Billing billing = Billing::kPayg;  // payg, spot, or a committed mode when fully covered
  double covered_share = 0;          // of its instance-hours on committed capacity
  std::vector<int> start_hours;      // hours of the week each run starts (0 = Mon 00:00)
  int start_week = 0;                // monthly/once: the week of the month (0-based)
  double hours = 0;                  // per run
  double runs_per_month = 0;         // the first month's for a once-job
  double cost_per_month = 0;         // its marginal pay-as-you-go or spot cost
  std::string when;                  // "Tue, Fri 01:00-07:12" / "daily 02:00-05:00"
};

struct ServiceChoice {
  std::string service;
  std::string instance;
  std::string region;
  int instances_per_replica = 1;
  int peak_instances = 0;
  double replica_rps = 0;
  double lead_time_h = 0;
};

// The same campaign bought another way, per month on average.
struct Alternative {
  std::string what;  // "all pay-as-you-go", "every piece planned alone"
  double month_cost = 0;
};

struct CampaignResult {
  std::vector<Commitment> commitments;
  std::vector<ScheduledRun> schedule;
  std::vector<ServiceChoice> services;
  std::vector<double> months;  // cost of each month of the horizon (commitments spread evenly
                               // over the months of their term inside the horizon)
  double total_cost = 0;
  double month_cost = 0;   // total / months
  double coverage = 0;     // committed instance-hours used / all instance-hours used
  double utilisation = 0;  // committed instance-hours used / committed instance-hours
  // Instances in use and committed in each hour of the first month's ordinary week (the chart).
  std::vector<double> used_by_hour;
  std::vector<double> committed_by_hour;
  bool proven_optimal = true;
};

struct CampaignPlan {
  CampaignResult best;  // without a savings plan unless one was quoted
  // The same with a savings plan at the published non-GPU example rate, when none was quoted:
  // what the plan would become if your GPU quote matched it.
  std::optional<CampaignResult> with_example_savings_plan;
  double example_savings_plan_rate = 0;
  double vs_all_payg = 0;  // per month
  double vs_separate = 0;  // per month: each piece alone, with the same choices
  Currency currency = Currency::kCny;
  std::vector<std::string> notes;  // break-even words, sources, assumptions, what was left out
  std::vector<planner::Rejection> dropped;  // pieces or types left out, with the reason
};

// REQUIRES: options.solver. kInvalidArgument for a spec ValidateCampaign rejects; kUnsupported
// when a piece has no candidate (with the planner's reasons).
Result<CampaignPlan> PlanCampaign(const CampaignSpec& spec, const ModelZoo& zoo,
                                  const Catalog& catalog, const Calibration& cal,
                                  const CampaignOptions& options);

// The spec's own checks (months 1..36, at least one piece, names unique and non-empty, jobs not
// inference services, services with a rate, windows, per_week 1..7), each naming the field
// ("jobs[1].every").
Status ValidateCampaign(const CampaignSpec& spec);

}  // namespace gpuplan::campaign

#endif  // GPUPLAN_INCLUDE_GPUPLAN_CAMPAIGN_H_
