// The campaign's mixed-integer program against exhaustive enumeration on small campaigns, and
// the cost model (Evaluate) against hand calculations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "campaign/problem.h"
#include "solver/glpk_mip.h"

namespace gpuplan::campaign {
namespace {

WeekProfile DayNight(double night, double day, int day_from = 8, int day_to = 24) {
  WeekProfile w{};
  for (int h = 0; h < kWeekHours; ++h)
    w[static_cast<std::size_t>(h)] = (h % 24 >= day_from && h % 24 < day_to) ? day : night;
  return w;
}

WeekProfile Flat(double n) {
  WeekProfile w{};
  w.fill(n);
  return w;
}

Resource Type(const std::string& name, double payg, std::optional<double> month) {
  Resource r;
  r.instance = name;
  r.region = "cn-test";
  r.payg_per_hour = payg;
  r.month_price = month;
  return r;
}

ServiceOption On(int resource, const WeekProfile& instances) {
  ServiceOption o;
  o.resource = resource;
  o.instances = instances;
  return o;
}

// Every placement of every piece and every commitment up to the peak; the savings plan at every
// breakpoint of its piecewise-linear cost (0, or what it takes to cover one hour's spend).
double BruteForce(const Problem& p, const Timeline& t, Decision* best_out = nullptr) {
  std::vector<std::vector<Placement>> placements(p.jobs.size());
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    for (std::size_t o = 0; o < p.jobs[j].options.size(); ++o) {
      const JobOption& opt = p.jobs[j].options[o];
      if (opt.spot) {
        placements[j].push_back({static_cast<int>(o), -1});
        continue;
      }
      for (int s : Starts(t, p.jobs[j], opt))
        placements[j].push_back({static_cast<int>(o), s});
    }
  }
  const int peak = 4;  // the cases below never use more than 4 instances of a type at once
  // Commitment slots to enumerate: (resource, class) monthly, (resource, block) yearly / RI.
  struct Knob {
    std::function<int&(Decision&)> at;
  };
  std::vector<Knob> knobs;
  for (std::size_t r = 0; r < p.resources.size(); ++r) {
    if (p.resources[r].month_price && p.allow_month) {
      for (std::size_t c = 0; c < t.classes.size(); ++c)
        knobs.push_back({[r, c](Decision& d) -> int& { return d.monthly[r][c]; }});
    }
    for (std::size_t b = 0; b < static_cast<std::size_t>(p.Blocks()); ++b) {
      if (p.resources[r].year_price && p.allow_year)
        knobs.push_back({[r, b](Decision& d) -> int& { return d.yearly[r][b]; }});
      if (p.resources[r].reserved_hourly && p.allow_reserved)
        knobs.push_back({[r, b](Decision& d) -> int& { return d.reserved[r][b]; }});
    }
  }
  double best = 1e300;
  Decision d = Decision::Empty(p, t);
  auto try_savings = [&]() {
    std::set<double> levels = {0};
    if (p.savings_plan_rate) {
      // The spend left in each hour once commitments are used, at which the plan's cost bends.
      for (std::size_t ci = 0; ci < t.classes.size(); ++ci) {
        for (int slot = 0; slot < t.Slots(t.classes[ci]); ++slot) {
          // The hour's spend at PAYG above the commitments.
          std::vector<double> use(p.resources.size(), 0);
          for (std::size_t s = 0; s < p.services.size(); ++s) {
            const ServiceOption& o =
                p.services[s].options[static_cast<std::size_t>(d.service_option[s])];
            use[static_cast<std::size_t>(o.resource)] +=
                o.instances[static_cast<std::size_t>(slot % kWeekHours)];
          }
          for (std::size_t j = 0; j < p.jobs.size(); ++j) {
            const JobOption& o = p.jobs[j].options[static_cast<std::size_t>(d.job[j].option)];
            ForEachUsage(t, t.classes[ci], p.jobs[j], o, d.job[j].start, [&](int s, double n) {
              if (s == slot)
                use[static_cast<std::size_t>(o.resource)] += n;
            });
          }
          double left = 0;
          for (std::size_t r = 0; r < p.resources.size(); ++r) {
            const auto b = static_cast<std::size_t>(t.classes[ci].block);
            const double committed = d.monthly[r][ci] + d.yearly[r][b] + d.reserved[r][b];
            if (p.resources[r].savings_plan_applies)
              left += std::max(0.0, use[r] - committed) * p.resources[r].payg_per_hour;
          }
          levels.insert(left * (1 - *p.savings_plan_rate));
        }
      }
    }
    for (double level : levels) {
      std::fill(d.savings_hourly.begin(), d.savings_hourly.end(), level);
      const double cost = Evaluate(p, t, d).total;
      if (cost < best - 1e-9) {
        best = cost;
        if (best_out)
          *best_out = d;
      }
    }
  };
  std::function<void(std::size_t)> commit = [&](std::size_t k) {
    if (k == knobs.size()) {
      try_savings();
      return;
    }
    for (int n = 0; n <= peak; ++n) {
      knobs[k].at(d) = n;
      commit(k + 1);
    }
    knobs[k].at(d) = 0;
  };
  std::function<void(std::size_t)> jobs = [&](std::size_t j) {
    if (j == p.jobs.size()) {
      commit(0);
      return;
    }
    for (const Placement& pl : placements[j]) {
      d.job[j] = pl;
      jobs(j + 1);
    }
  };
  std::function<void(std::size_t)> services = [&](std::size_t s) {
    if (s == p.services.size()) {
      jobs(0);
      return;
    }
    for (std::size_t o = 0; o < p.services[s].options.size(); ++o) {
      d.service_option[s] = static_cast<int>(o);
      services(s + 1);
    }
  };
  services(0);
  return best;
}

struct SmallCampaign {
  std::string name;
  Problem problem;
};

void PrintTo(const SmallCampaign& c, std::ostream* os) { *os << c.name; }

std::vector<SmallCampaign> SmallCampaigns() {
  std::vector<SmallCampaign> cases;
  {
    // A day-and-night service on one type and a fine-tune three times a week that may run at
    // night, on the same type or on spot. The day's extra instances alone are used 426 h a
    // month, below the subscription's break-even (482 h); with the fine-tunes on them at night
    // they pass it, and committing beats spot by a little.
    Problem p;
    p.months = 1;
    p.resources = {Type("A", 10, 4818)};
    p.services = {{"chat", {On(0, DayNight(1, 3, 8, 22))}}};
    p.jobs = {
        {"finetune",
         {Recurrence::Kind::kWeekly, 3},
         Window{22, 8},
         {{.resource = 0, .instances = 2, .hours = 6},
          {.resource = 0, .instances = 2, .hours = 7, .spot = true, .spot_cost_per_run = 90}}}};
    cases.push_back({"night_finetune_on_the_service_type", p});
  }
  {
    // Two types: the service can run on either; a daily job and a monthly job.
    Problem p;
    p.months = 2;
    p.resources = {Type("A", 10, 4818), Type("B", 25, 12000)};
    p.services = {{"api", {On(0, Flat(2)), On(1, Flat(1))}}};
    p.jobs = {{"nightly-eval",
               {Recurrence::Kind::kWeekly, 7},
               Window{0, 6},
               {{.resource = 0, .instances = 1, .hours = 3},
                {.resource = 1, .instances = 1, .hours = 1.5}}},
              {"monthly-retrain",
               {Recurrence::Kind::kMonthly, 1},
               Window{0, 12},
               {{.resource = 1, .instances = 2, .hours = 10}}}};
    cases.push_back({"two_types_daily_and_monthly_jobs", p});
  }
  {
    // Types only one piece can use (priced alone, campaign/exclusive.h) beside a shared one: the
    // service may run on its own type C or share A with the job, which may also take its own B.
    Problem p;
    p.months = 2;
    p.resources = {Type("A", 10, 4818), Type("B", 14, 6745), Type("C", 9, 5200)};
    p.services = {{"chat", {On(0, DayNight(1, 3, 9, 23)), On(2, DayNight(1, 3, 9, 23))}}};
    p.jobs = {{"finetune",
               {Recurrence::Kind::kWeekly, 3},
               Window{23, 9},
               {{.resource = 0, .instances = 2, .hours = 8},
                {.resource = 1, .instances = 1, .hours = 9}}}};
    cases.push_back({"exclusive_types_priced_alone", p});
  }
  {
    // A year with a listed yearly price and reserved rate, a savings plan and a once-job.
    Problem p;
    p.months = 12;
    Resource a = Type("A", 10, 4818);
    a.year_price = 52000;
    a.reserved_hourly = 6.19;
    p.resources = {a};
    p.savings_plan_rate = 0.3;
    p.services = {{"chat", {On(0, DayNight(1, 2, 9, 21))}}};
    p.jobs = {{"pretrain-once",
               {Recurrence::Kind::kOnce, 1},
               Window{20, 8},
               {{.resource = 0, .instances = 2, .hours = 10}}}};
    cases.push_back({"a_year_with_yearly_reserved_and_savings_plan", p});
  }
  {
    // A flat service of one whole instance: jobs beside it pay by the hour wherever they run
    // (exclusive.h, ByTheHour::jobs), unless their hours can fill one more instance, as the
    // daily 16 h job here does (487 h a month, above the 482 h break-even).
    Problem p;
    p.months = 1;
    p.resources = {Type("A", 10, 4818)};
    p.services = {{"api", {On(0, Flat(1))}}};
    p.jobs = {{"daily-16h",
               {Recurrence::Kind::kWeekly, 7},
               Window{22, 16},
               {{.resource = 0, .instances = 1, .hours = 16}}}};
    cases.push_back({"flat_service_and_a_job_that_fills_another_instance", p});
  }
  {
    // A flat service of a fraction of an instance (1.5): the half instance it leaves idle on a
    // second commitment is worth filling, so the jobs' hours matter.
    Problem p;
    p.months = 1;
    p.resources = {Type("A", 10, 4818)};
    p.services = {{"api", {On(0, Flat(1.5))}}};
    p.jobs = {
        {"twice-weekly",
         {Recurrence::Kind::kWeekly, 2},
         Window{20, 8},
         {{.resource = 0, .instances = 1, .hours = 6},
          {.resource = 0, .instances = 1, .hours = 7, .spot = true, .spot_cost_per_run = 50}}}};
    cases.push_back({"flat_fractional_service_leaves_room_for_jobs", p});
  }
  {
    // Type B can never pay for a commitment (exclusive.h, ByTheHour::type): the job weighs its
    // nights on the service's idle type A against B by the hour.
    Problem p;
    p.months = 1;
    p.resources = {Type("A", 10, 4818), Type("B", 6, 2900)};
    p.services = {{"chat", {On(0, DayNight(1, 3, 8, 22))}}};
    p.jobs = {{"finetune",
               {Recurrence::Kind::kWeekly, 3},
               Window{22, 8},
               {{.resource = 0, .instances = 2, .hours = 6},
                {.resource = 1, .instances = 2, .hours = 8}}},
              {"eval",
               {Recurrence::Kind::kWeekly, 1},
               Window{2, 8},
               {{.resource = 1, .instances = 1, .hours = 3}}}};
    cases.push_back({"a_type_no_commitment_can_pay_for", p});
  }
  {
    // An ECS compute savings plan covers type A only: the service may run on A (covered) or on
    // the cheaper B (not), and the job's nights on A take what the plan leaves idle.
    Problem p;
    p.months = 1;
    Resource b = Type("B", 9, std::nullopt);
    b.savings_plan_applies = false;
    p.resources = {Type("A", 10, std::nullopt), b};
    p.savings_plan_rate = 0.35;
    p.savings_plan.type = SavingsPlanQuote::Type::kEcsCompute;
    p.services = {{"chat", {On(0, DayNight(1, 2, 9, 21)), On(1, DayNight(1, 2, 9, 21))}}};
    p.jobs = {{"finetune",
               {Recurrence::Kind::kWeekly, 2},
               Window{22, 8},
               {{.resource = 0, .instances = 1, .hours = 5},
                {.resource = 1, .instances = 1, .hours = 5}}}};
    cases.push_back({"an_ecs_compute_savings_plan_covers_one_type", p});
  }
  {
    // A 3-year savings plan on a 12-month campaign is paid for 36 months: at 30% off it cannot
    // pay (0.7 x 3 > 1), so the month is bought as without one.
    Problem p;
    p.months = 12;
    p.resources = {Type("A", 10, 4818)};
    p.savings_plan_rate = 0.3;
    p.savings_plan.term_years = 3;
    p.services = {{"chat", {On(0, DayNight(1, 2, 9, 21))}}};
    cases.push_back({"a_three_year_savings_plan_is_paid_in_full", p});
  }
  return cases;
}

class CampaignMipTest : public ::testing::TestWithParam<SmallCampaign> {};

TEST_P(CampaignMipTest, FindsTheOptimumOfExhaustiveEnumeration) {
  const Problem& p = GetParam().problem;
  Result<Timeline> t = MakeTimeline(p);
  ASSERT_TRUE(t.ok()) << t.status().message();
  bool optimal = false;
  Result<Decision> d = SolveCampaign(p, *t, solver::GlpkSolver(), &optimal);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(optimal);
  const double mip = Evaluate(p, *t, *d).total;
  Decision best;
  const double brute = BruteForce(p, *t, &best);
  EXPECT_NEAR(mip, brute, 1e-6 * brute) << "brute force's best: monthly " << best.monthly[0][0];
}

INSTANTIATE_TEST_SUITE_P(Small, CampaignMipTest, ::testing::ValuesIn(SmallCampaigns()),
                         [](const auto& c) { return c.param.name; });

TEST(CampaignEvaluate, PricesAHandCalculatedMonth) {
  // One type at 10/h, 4,818 a month. The service needs 1 instance at night (16:00-08:00 is
  // day: 3). A job of 2 instances x 6 h runs twice a week at 00:00.
  Problem p;
  p.resources = {Type("A", 10, 4818)};
  p.services = {{"chat", {On(0, DayNight(1, 3))}}};
  p.jobs = {{"ft",
             {Recurrence::Kind::kWeekly, 2},
             std::nullopt,
             {{.resource = 0, .instances = 2, .hours = 6}}}};
  Result<Timeline> t = MakeTimeline(p);
  ASSERT_TRUE(t.ok());
  Decision d = Decision::Empty(p, *t);
  d.job[0] = {0, 0};  // Mon and Thu 00:00-06:00
  const double weeks = 730.0 / 168;
  // All pay-as-you-go: service (8 h x 1 + 16 h x 3) x 7 days + job 2 x 6 h x 2 runs, per week.
  const double week_hours = (8 + 48) * 7 + 24;
  EXPECT_NEAR(Evaluate(p, *t, d).total, week_hours * weeks * 10, 1e-6);
  // One monthly subscription: it covers the night instance every hour and one of the day's.
  d.monthly[0][0] = 1;
  const double left = (0 + 16 * 2) * 7 + 24;
  EXPECT_NEAR(Evaluate(p, *t, d).total, 4818 + left * weeks * 10, 1e-6);
  // Three: the day's peak is covered, and the job's 2 instances fit the 2 idle at night.
  d.monthly[0][0] = 3;
  const Evaluation e = Evaluate(p, *t, d);
  EXPECT_NEAR(e.total, 3 * 4818 + 0 * weeks * 10, 1e-6);
  EXPECT_NEAR(e.job_covered[0], 1.0, 1e-9);
  EXPECT_NEAR(e.job_marginal[0], 0, 1e-9);
}

TEST(CampaignTimeline, MonthlyJobsTakeTheFirstWeeksOfTheMonth) {
  Problem p;
  p.months = 14;
  p.resources = {Type("A", 10, 4818)};
  p.jobs = {{"retrain",
             {Recurrence::Kind::kMonthly, 1},
             std::nullopt,
             {{.resource = 0, .instances = 1, .hours = 200}}},
            {"import",
             {Recurrence::Kind::kOnce, 1},
             std::nullopt,
             {{.resource = 0, .instances = 1, .hours = 5}}}};
  Result<Timeline> t = MakeTimeline(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->special_weeks, 2);    // 200 h needs two weeks
  ASSERT_EQ(t->classes.size(), 3u);  // month 1 (once-job), months 2-12, months 13-14
  EXPECT_TRUE(t->classes[0].has_once);
  EXPECT_EQ(t->classes[1].months, 11);
  EXPECT_EQ(t->classes[2].block, 1);
  p.jobs[0].options[0].hours = 800;  // longer than a month
  EXPECT_FALSE(MakeTimeline(p).ok());
}

TEST(CampaignStarts, APinnedStartIsTheOnlyOne) {
  Problem p;
  p.resources = {Type("A", 10, 4818)};
  JobPiece job{"weekly",
               {Recurrence::Kind::kWeekly, 1},
               std::nullopt,
               {{.resource = 0, .instances = 1, .hours = 3, .pinned_start = 50}}};
  p.jobs = {job};
  Result<Timeline> t = MakeTimeline(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Starts(*t, job, job.options[0]), std::vector<int>{50});
}

TEST(CampaignStarts, RespectTheWindowAndTheRunsNotOverlapping) {
  Timeline t;
  JobPiece job{"j", {Recurrence::Kind::kWeekly, 7}, Window{22, 6}, {}};
  const JobOption o{.resource = 0, .instances = 1, .hours = 3};
  // 22, 23, 00, 01, 02, 03 can start a 3 h run that ends by 06:00.
  EXPECT_EQ(Starts(t, job, o), (std::vector<int>{0, 1, 2, 3, 22, 23}));
  job.window.reset();
  const JobOption too_long{.resource = 0, .instances = 1, .hours = 25};
  EXPECT_TRUE(Starts(t, job, too_long).empty());  // a daily run longer than a day
}

}  // namespace
}  // namespace gpuplan::campaign
