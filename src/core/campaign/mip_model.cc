// The campaign as a mixed-integer program (gpuplan/mip.h):
//
//   minimise   sum_c months_c * (sum_r month_r * m[r,c] + sum_t w_t * sum_r payg_r * p[c,t,r])
//            + sum_b sum_r (year_r * Y[r,b] + ri_r * 8760 * R[r,b]) + sum_b 8760 * S[b]
//            + sum_j spot runs_j * spot_cost_j * x[j,spot]
//   subject to, per class c, hour t of its weeks and instance type r that anything may use:
//              p[c,t,r] + q[c,t,r] + m[r,c] + Y[r,b(c)] + R[r,b(c)]
//                >= sum_s use_s(c,t,r) * z[s] + sum_(j,o,start) use(c,t,r) * x[j,o,start]
//              sum_r payg_r * (1 - d) * q[c,t,r] <= S[b(c)]        (savings plan, rate d)
//              sum_o z[service, o] = 1;  sum_(o,start) x[job, o, start] = 1
//   with z, x binary; m, Y, R whole instances; p (pay-as-you-go instances), q (instances the
//   savings plan pays) and S (its hourly commitment) continuous and >= 0.
//
// Evaluate() prices the decoded decision the same way; the tests compare both with a brute force.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "campaign/exclusive.h"
#include "campaign/problem.h"

namespace gpuplan::campaign {
namespace {

struct JobVar {
  int option = 0;
  int start = -1;
  int var = 0;
};

// Upper bound of the instances of each resource anything can use at once, for the commitments.
std::vector<double> PeakUse(const Problem& p) {
  std::vector<double> peak(p.resources.size(), 0);
  for (const ServicePiece& s : p.services) {
    std::vector<double> most(p.resources.size(), 0);
    for (const ServiceOption& o : s.options) {
      const auto r = static_cast<std::size_t>(o.resource);
      most[r] = std::max(most[r], *std::max_element(o.instances.begin(), o.instances.end()));
    }
    for (std::size_t r = 0; r < most.size(); ++r)
      peak[r] += most[r];
  }
  for (const JobPiece& j : p.jobs) {
    std::vector<double> most(p.resources.size(), 0);
    for (const JobOption& o : j.options) {
      if (!o.spot) {
        const auto r = static_cast<std::size_t>(o.resource);
        // A weekly job's runs do not overlap (Starts), so one run's instances bound it.
        most[r] = std::max(most[r], static_cast<double>(o.instances));
      }
    }
    for (std::size_t r = 0; r < most.size(); ++r)
      peak[r] += most[r];
  }
  return peak;
}

// Starts of job `j`'s option `o` that cost the same in every decision are one choice to the
// program: a run that meets no other job can only meet the services, so two starts whose runs
// meet the same services' usage, hour by hour, and no other job are interchangeable. Keeping
// one of each such set removes the symmetry that makes branch-and-bound slow (a job alone has
// one start per option left) and loses no optimum. With a savings plan every resource in an hour
// shares the plan's budget, so there the check spans all resources.
class StartPruner {
 public:
  // `in_rows`: per resource, whether jobs' usage of it enters the program's hours.
  StartPruner(const Problem& p, const Timeline& t, const std::vector<bool>& in_rows)
      : p_(p), t_(t) {
    const bool any_resource = p.savings_plan_rate.has_value();
    // Which (class, slot, resource) each job may use, by job.
    reach_.resize(p.jobs.size());
    for (std::size_t j = 0; j < p.jobs.size(); ++j) {
      reach_[j].resize(t.classes.size());
      for (std::size_t c = 0; c < t.classes.size(); ++c) {
        reach_[j][c].assign(static_cast<std::size_t>(t.Slots(t.classes[c])) * Width(), false);
        for (const JobOption& o : p.jobs[j].options) {
          if (o.spot || !in_rows[static_cast<std::size_t>(o.resource)])
            continue;
          for (int start : campaign::Starts(t, p.jobs[j], o)) {
            ForEachUsage(t, t.classes[c], p.jobs[j], o, start, [&](int slot, double) {
              reach_[j][c][Index(slot, any_resource ? 0 : o.resource)] = true;
            });
          }
        }
      }
    }
  }

  // The starts of `o` to offer, one per set of interchangeable ones.
  std::vector<int> Starts(std::size_t j, const JobOption& o) const {
    std::vector<int> kept;
    std::set<std::vector<double>> seen;
    for (int start : campaign::Starts(t_, p_.jobs[j], o)) {
      std::vector<double> key;
      bool unique = false;
      for (std::size_t c = 0; c < t_.classes.size() && !unique; ++c) {
        key.push_back(-1);  // class separator
        ForEachUsage(t_, t_.classes[c], p_.jobs[j], o, start, [&](int slot, double n) {
          unique |= MeetsAnotherJob(j, c, slot, o.resource);
          key.push_back(n);
          for (const ServicePiece& sp : p_.services) {
            for (const ServiceOption& so : sp.options) {
              if (Width() > 1 && so.resource != o.resource)
                continue;
              key.push_back(so.instances[static_cast<std::size_t>(slot % kWeekHours)]);
            }
          }
        });
      }
      if (unique || seen.insert(key).second)
        kept.push_back(start);
    }
    return kept;
  }

 private:
  std::size_t Width() const { return p_.savings_plan_rate ? 1 : p_.resources.size(); }
  std::size_t Index(int slot, int resource) const {
    return static_cast<std::size_t>(slot) * Width() + static_cast<std::size_t>(resource);
  }
  bool MeetsAnotherJob(std::size_t j, std::size_t c, int slot, int resource) const {
    const int r = Width() > 1 ? resource : 0;
    for (std::size_t k = 0; k < reach_.size(); ++k) {
      if (k != j && reach_[k][c][Index(slot, r)])
        return true;
    }
    return false;
  }

  const Problem& p_;
  const Timeline& t_;
  std::vector<std::vector<std::vector<bool>>> reach_;  // [job][class][slot * width + resource]
};

}  // namespace

// Without commitments or a savings plan each piece's cost depends on its own choice only: the
// cheapest option of each, at its first start.
Decision CheapestEach(const Problem& p, const Timeline& t) {
  Decision d = Decision::Empty(p, t);
  auto price = [&](int r) { return p.resources[static_cast<std::size_t>(r)].payg_per_hour; };
  for (std::size_t s = 0; s < p.services.size(); ++s) {
    double best = kMipInfinity;
    for (std::size_t o = 0; o < p.services[s].options.size(); ++o) {
      const ServiceOption& so = p.services[s].options[o];
      double cost = 0;
      for (const MonthClass& c : t.classes) {
        for (int slot = 0; slot < t.Slots(c); ++slot) {
          cost += c.months * t.Weight(c, slot) *
                  so.instances[static_cast<std::size_t>(slot % kWeekHours)] * price(so.resource);
        }
      }
      if (cost < best) {
        best = cost;
        d.service_option[s] = static_cast<int>(o);
      }
    }
  }
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    const JobPiece& job = p.jobs[j];
    double best = kMipInfinity;
    for (std::size_t o = 0; o < job.options.size(); ++o) {
      const JobOption& jo = job.options[o];
      const std::vector<int> starts = Starts(t, job, jo);
      if (!jo.spot && starts.empty())
        continue;
      const double runs = RunsInHorizon(p, job);
      const double cost = jo.spot ? jo.spot_cost_per_run * runs
                                  : jo.instances * jo.hours * runs * price(jo.resource);
      if (cost < best) {
        best = cost;
        d.job[j] = {static_cast<int>(o), jo.spot ? -1 : starts.front()};
      }
    }
  }
  return d;
}

// The whole mixed-integer model in one function, the one exception to the core's 100-line limit
// (docs/architecture.md): its variables, rows and decoding share every index.
// NOLINTNEXTLINE(readability-function-size)
Result<Decision> SolveCampaign(const Problem& p, const Timeline& t, const MipSolver& solver,
                               bool* proven_optimal, const Decision* start,
                               bool price_exclusive_alone) {
  if (!p.allow_month && !p.allow_year && !p.allow_reserved && !p.savings_plan_rate) {
    if (proven_optimal)
      *proven_optimal = true;
    return CheapestEach(p, t);
  }
  // Groups of pieces that share no type are solved apart: their costs add up, and two small
  // programs are far quicker than their union.
  if (price_exclusive_alone) {
    const std::vector<std::vector<int>> groups = IndependentGroups(p);
    if (groups.size() > 1) {
      Decision d = Decision::Empty(p, t);
      if (proven_optimal)
        *proven_optimal = true;
      const int services = static_cast<int>(p.services.size());
      for (const std::vector<int>& group : groups) {
        Problem part = PartOf(p, group);
        part.min_special_weeks = t.special_weeks;
        Result<Timeline> part_t = MakeTimeline(part);
        if (!part_t.ok())
          return part_t.status();
        Decision part_start = Decision::Empty(part, *part_t);
        if (start) {
          for (std::size_t k = 0; k < group.size(); ++k) {
            const int i = group[k];
            if (i < services)
              part_start.service_option[k] = start->service_option[static_cast<std::size_t>(i)];
            else
              part_start.job[k - part.services.size()] =
                  start->job[static_cast<std::size_t>(i - services)];
          }
          AddCommitments(*start, t, *part_t, part_start);
        }
        bool optimal = true;
        Result<Decision> part_d =
            SolveCampaign(part, *part_t, solver, &optimal, start ? &part_start : nullptr, true);
        if (!part_d.ok())
          return part_d.status();
        if (proven_optimal)
          *proven_optimal = *proven_optimal && optimal;
        for (std::size_t k = 0; k < group.size(); ++k) {
          const int i = group[k];
          if (i < services)
            d.service_option[static_cast<std::size_t>(i)] = part_d->service_option[k];
          else
            d.job[static_cast<std::size_t>(i - services)] = part_d->job[k - part.services.size()];
        }
        AddCommitments(*part_d, *part_t, t, d);
      }
      return d;
    }
  }
  ExclusivePrices alone;
  if (price_exclusive_alone) {
    Result<ExclusivePrices> priced = PriceExclusiveTypes(p, solver);
    if (!priced.ok())
      return priced.status();
    alone = std::move(*priced);
  } else {
    alone.exclusive.assign(p.resources.size(), false);
    alone.service.resize(p.services.size());
    for (std::size_t s = 0; s < p.services.size(); ++s)
      alone.service[s].resize(p.services[s].options.size());
    alone.job.resize(p.jobs.size());
    for (std::size_t j = 0; j < p.jobs.size(); ++j)
      alone.job[j].resize(p.jobs[j].options.size());
  }
  auto shared = [&](int resource) { return !alone.exclusive[static_cast<std::size_t>(resource)]; };
  const std::vector<bool> jobs_by_hour = BoughtByTheHour(p).jobs;
  const auto by_hour = [&](int resource) {
    return static_cast<bool>(jobs_by_hour[static_cast<std::size_t>(resource)]);
  };
  MipProblem mip;
  const std::size_t nr = p.resources.size(), nc = t.classes.size();
  const int blocks = p.Blocks();
  const double year_hours = 12 * p.hours_per_month;
  const std::vector<double> peak = PeakUse(p);

  // Commitments first: the solver branches on the first fractional variable (GLP_BR_FFV), and
  // fixing the few whole-instance commitments first closes most of the relaxation's gap.
  auto whole = [](double n) { return std::ceil(n - 1e-9); };
  std::vector<std::vector<int>> month_vars(nr, std::vector<int>(nc, -1));
  std::vector<std::vector<int>> year_vars(nr,
                                          std::vector<int>(static_cast<std::size_t>(blocks), -1));
  std::vector<std::vector<int>> ri_vars = year_vars;
  for (std::size_t r = 0; r < nr; ++r) {
    const Resource& res = p.resources[r];
    const double upper = whole(peak[r]);
    if (upper <= 0 || !shared(static_cast<int>(r)))
      continue;
    for (std::size_t c = 0; c < nc; ++c) {
      if (p.allow_month && res.month_price) {
        month_vars[r][c] = mip.AddVariable(
            {.cost = t.classes[c].months * *res.month_price, .upper = upper, .integer = true});
      }
    }
    for (std::size_t b = 0; b < static_cast<std::size_t>(blocks); ++b) {
      if (p.allow_year && res.year_price)
        year_vars[r][b] =
            mip.AddVariable({.cost = *res.year_price, .upper = upper, .integer = true});
      if (p.allow_reserved && res.reserved_hourly) {
        ri_vars[r][b] = mip.AddVariable(
            {.cost = *res.reserved_hourly * year_hours, .upper = upper, .integer = true});
      }
    }
  }
  const double rate = p.savings_plan_rate.value_or(0);
  std::vector<int> sp_vars(static_cast<std::size_t>(p.SavingsTerms()), -1);
  if (rate > 0) {
    for (int& v : sp_vars)
      v = mip.AddVariable({.cost = p.SavingsTermMonths() * p.hours_per_month});
  }

  // Choices.
  std::vector<bool> in_rows(nr);
  for (std::size_t r = 0; r < nr; ++r)
    in_rows[r] = shared(static_cast<int>(r)) && !by_hour(static_cast<int>(r));
  const StartPruner pruner(p, t, in_rows);
  std::vector<std::vector<int>> service_vars(p.services.size());
  for (std::size_t s = 0; s < p.services.size(); ++s) {
    std::vector<std::pair<int, double>> one;
    for (std::size_t o = 0; o < p.services[s].options.size(); ++o) {
      const double cost = alone.service[s][o] ? alone.service[s][o]->cost : 0;
      service_vars[s].push_back(mip.AddVariable({.cost = cost, .upper = 1, .integer = true}));
      one.emplace_back(service_vars[s].back(), 1.0);
    }
    mip.AddRow(std::move(one), 1, 1);
  }
  std::vector<std::vector<JobVar>> job_vars(p.jobs.size());
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    const JobPiece& job = p.jobs[j];
    std::vector<std::pair<int, double>> one;
    for (std::size_t oi = 0; oi < job.options.size(); ++oi) {
      const JobOption& o = job.options[oi];
      if (o.spot) {
        const double cost = o.spot_cost_per_run * RunsInHorizon(p, job);
        job_vars[j].push_back({static_cast<int>(oi), -1,
                               mip.AddVariable({.cost = cost, .upper = 1, .integer = true})});
      } else {
        const double cost =
            alone.job[j][oi] ? alone.job[j][oi]->cost
            : by_hour(o.resource)
                ? o.instances * o.hours * RunsInHorizon(p, job) *
                      p.resources[static_cast<std::size_t>(o.resource)].payg_per_hour
                : 0;
        std::vector<int> starts = pruner.Starts(j, o);
        if (by_hour(o.resource) && !starts.empty())
          starts.resize(1);  // where it runs does not change what it costs
        for (int at : starts) {
          job_vars[j].push_back({static_cast<int>(oi), at,
                                 mip.AddVariable({.cost = cost, .upper = 1, .integer = true})});
        }
      }
    }
    if (job_vars[j].empty()) {
      return Status::Unsupported("job \"" + job.name +
                                 "\" fits no start in its window on any instance type");
    }
    for (const JobVar& v : job_vars[j])
      one.emplace_back(v.var, 1.0);
    mip.AddRow(std::move(one), 1, 1);
  }

  // Cover every hour of every class.
  std::vector<std::pair<int, int>> cover_rows;  // (row, its pay-as-you-go variable)
  for (std::size_t ci = 0; ci < nc; ++ci) {
    const MonthClass& c = t.classes[ci];
    const int slots = t.Slots(c);
    const auto b = static_cast<std::size_t>(c.block);
    const int sp = sp_vars[static_cast<std::size_t>(p.SavingsTermOf(c.first_month))];
    // terms[slot * nr + r]: the usage side of the cover row.
    std::vector<std::vector<std::pair<int, double>>> use(static_cast<std::size_t>(slots) * nr);
    for (std::size_t s = 0; s < p.services.size(); ++s) {
      for (std::size_t o = 0; o < p.services[s].options.size(); ++o) {
        const ServiceOption& so = p.services[s].options[o];
        if (!shared(so.resource))
          continue;
        for (int slot = 0; slot < slots; ++slot) {
          const double n = so.instances[static_cast<std::size_t>(slot % kWeekHours)];
          if (n > 0) {
            use[static_cast<std::size_t>(slot) * nr + static_cast<std::size_t>(so.resource)]
                .emplace_back(service_vars[s][o], -n);
          }
        }
      }
    }
    for (std::size_t j = 0; j < p.jobs.size(); ++j) {
      for (const JobVar& v : job_vars[j]) {
        const JobOption& o = p.jobs[j].options[static_cast<std::size_t>(v.option)];
        if (!o.spot && (!shared(o.resource) || by_hour(o.resource)))
          continue;
        std::vector<double> per_slot(static_cast<std::size_t>(slots), 0);
        ForEachUsage(t, c, p.jobs[j], o, v.start,
                     [&](int slot, double n) { per_slot[static_cast<std::size_t>(slot)] += n; });
        for (int slot = 0; slot < slots; ++slot) {
          const double n = per_slot[static_cast<std::size_t>(slot)];
          if (n > 0) {
            use[static_cast<std::size_t>(slot) * nr + static_cast<std::size_t>(o.resource)]
                .emplace_back(v.var, -n);
          }
        }
      }
    }
    // Hours whose cover rows are the same (no job can run in them and the services use the same
    // instances) are one row whose pay-as-you-go variable carries all their weights: the cheapest
    // cover of equal rows is equal, so this is exact. With a savings plan the unit is the whole
    // hour (its budget spans every type); without, one type's hour.
    std::map<std::vector<std::pair<int, double>>, std::vector<int>> merged;  // key -> payg vars
    for (int slot = 0; slot < slots; ++slot) {
      const double weight = t.Weight(c, slot) * c.months;
      auto terms = [&](std::size_t r) -> std::vector<std::pair<int, double>>& {
        return use[static_cast<std::size_t>(slot) * nr + r];
      };
      auto key_of = [&](std::size_t first, std::size_t last) {
        std::vector<std::pair<int, double>> key;
        for (std::size_t r = first; r < last; ++r) {
          if (terms(r).empty())
            continue;
          key.emplace_back(-1 - static_cast<int>(r), 0);
          key.insert(key.end(), terms(r).begin(), terms(r).end());
        }
        return key;
      };
      auto merge = [&](const std::vector<std::pair<int, double>>& key) {
        auto it = merged.find(key);
        if (it == merged.end())
          return false;
        std::size_t k = 0;
        for (const auto& [var, coef] : key) {
          if (var < 0) {
            const double price = p.resources[static_cast<std::size_t>(-1 - var)].payg_per_hour;
            mip.variables[static_cast<std::size_t>(it->second[k++])].cost += weight * price;
          }
        }
        return true;
      };
      std::vector<std::pair<int, double>> sp_row;
      std::vector<std::pair<int, double>> slot_key;
      if (sp >= 0) {
        slot_key = key_of(0, nr);
        if (slot_key.empty() || merge(slot_key))
          continue;
      }
      std::vector<int> slot_payg;
      for (std::size_t r = 0; r < nr; ++r) {
        std::vector<std::pair<int, double>>& row = terms(r);
        if (row.empty())
          continue;
        std::vector<std::pair<int, double>> key;
        if (sp < 0) {
          key = key_of(r, r + 1);
          if (merge(key))
            continue;
        }
        const double price = p.resources[r].payg_per_hour;
        const int payg = mip.AddVariable({.cost = weight * price});
        slot_payg.push_back(payg);
        if (sp < 0)
          merged.emplace(std::move(key), std::vector<int>{payg});
        row.emplace_back(payg, 1.0);
        cover_rows.emplace_back(static_cast<int>(mip.rows.size()), payg);
        if (sp >= 0 && p.resources[r].savings_plan_applies) {
          const int q = mip.AddVariable({});
          row.emplace_back(q, 1.0);
          sp_row.emplace_back(q, price * (1 - rate));
        }
        for (int v : {month_vars[r][ci], year_vars[r][b], ri_vars[r][b]}) {
          if (v >= 0)
            row.emplace_back(v, 1.0);
        }
        mip.AddRow(std::move(row), 0, kMipInfinity);
      }
      if (sp >= 0)
        merged.emplace(std::move(slot_key), std::move(slot_payg));
      if (!sp_row.empty()) {
        sp_row.emplace_back(sp, -1.0);
        mip.AddRow(std::move(sp_row), -kMipInfinity, 0);
      }
    }
  }

  // A feasible start: `start`'s choices and commitments (else each piece's first choice and
  // nothing committed), every hour's rest pay-as-you-go.
  mip.start.assign(mip.variables.size(), 0);
  auto set = [&](int var, double v) {
    if (var >= 0)
      mip.start[static_cast<std::size_t>(var)] = v;
  };
  for (std::size_t s = 0; s < service_vars.size(); ++s)
    set(service_vars[s][start ? static_cast<std::size_t>(start->service_option[s]) : 0], 1);
  for (std::size_t j = 0; j < job_vars.size(); ++j) {
    const JobVar* chosen = &job_vars[j].front();
    for (const JobVar& v : job_vars[j]) {
      if (start && v.option == start->job[j].option && v.start == start->job[j].start)
        chosen = &v;
    }
    set(chosen->var, 1);
  }
  if (start) {
    for (std::size_t r = 0; r < nr; ++r) {
      for (std::size_t c = 0; c < nc; ++c)
        set(month_vars[r][c], start->monthly[r][c]);
      for (std::size_t b = 0; b < static_cast<std::size_t>(blocks); ++b) {
        set(year_vars[r][b], start->yearly[r][b]);
        set(ri_vars[r][b], start->reserved[r][b]);
      }
    }
    for (std::size_t b = 0; b < sp_vars.size(); ++b)
      set(sp_vars[b], start->savings_hourly[b]);
  }
  for (const auto& [row, payg] : cover_rows) {
    double need = 0;
    for (const auto& [var, coef] : mip.rows[static_cast<std::size_t>(row)].terms) {
      if (var != payg)
        need -= coef * mip.start[static_cast<std::size_t>(var)];
    }
    mip.start[static_cast<std::size_t>(payg)] = std::max(0.0, need);
  }

  Result<MipSolution> sol = solver(mip);
  if (!sol.ok())
    return sol.status();
  if (proven_optimal)
    *proven_optimal = sol->proven_optimal;
  auto value = [&](int v) { return v >= 0 ? sol->values[static_cast<std::size_t>(v)] : 0.0; };
  auto count = [&](int v) { return static_cast<int>(std::lround(value(v))); };

  Decision d = Decision::Empty(p, t);
  for (std::size_t s = 0; s < p.services.size(); ++s) {
    for (std::size_t o = 0; o < service_vars[s].size(); ++o) {
      if (value(service_vars[s][o]) > 0.5)
        d.service_option[s] = static_cast<int>(o);
    }
  }
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    for (const JobVar& v : job_vars[j]) {
      if (value(v.var) > 0.5)
        d.job[j] = {v.option, v.start};
    }
  }
  for (std::size_t r = 0; r < nr; ++r) {
    for (std::size_t c = 0; c < nc; ++c)
      d.monthly[r][c] = count(month_vars[r][c]);
    for (std::size_t b = 0; b < static_cast<std::size_t>(blocks); ++b) {
      d.yearly[r][b] = count(year_vars[r][b]);
      d.reserved[r][b] = count(ri_vars[r][b]);
    }
  }
  for (std::size_t b = 0; b < sp_vars.size(); ++b)
    d.savings_hourly[b] = std::max(0.0, value(sp_vars[b]));
  // The commitments of the options priced alone.
  for (std::size_t s = 0; s < p.services.size(); ++s) {
    if (const auto& a = alone.service[s][static_cast<std::size_t>(d.service_option[s])])
      AddCommitments(a->decision, a->timeline, t, d);
  }
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    if (const auto& a = alone.job[j][static_cast<std::size_t>(d.job[j].option)])
      AddCommitments(a->decision, a->timeline, t, d);
  }
  return d;
}

}  // namespace gpuplan::campaign
