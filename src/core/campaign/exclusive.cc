#include "campaign/exclusive.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::campaign {
namespace {

constexpr int kNone = -2, kShared = -1;

// The one piece (services first, then jobs) that can use each resource, kShared or kNone.
std::vector<int> Owners(const Problem& p) {
  std::vector<int> owner(p.resources.size(), kNone);
  auto claim = [&](int resource, int piece) {
    int& o = owner[static_cast<std::size_t>(resource)];
    o = (o == kNone || o == piece) ? piece : kShared;
  };
  for (std::size_t s = 0; s < p.services.size(); ++s) {
    for (const ServiceOption& o : p.services[s].options)
      claim(o.resource, static_cast<int>(s));
  }
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    for (const JobOption& o : p.jobs[j].options) {
      if (!o.spot)
        claim(o.resource, static_cast<int>(p.services.size() + j));
    }
  }
  return owner;
}

Result<PricedAlone> PriceAlone(Problem alone, const MipSolver& solver) {
  Result<Timeline> t = MakeTimeline(alone);
  if (!t.ok())
    return t.status();
  bool optimal = true;
  Result<Decision> d = SolveCampaign(alone, *t, solver, &optimal, nullptr,
                                     /*price_exclusive_alone=*/false);
  if (!d.ok())
    return d.status();
  const double cost = Evaluate(alone, *t, *d).total;
  return PricedAlone{cost, std::move(alone), std::move(*t), std::move(*d)};
}

}  // namespace

namespace {

// Upper bounds, per resource, of what one committed instance could hold in a month.
struct UsageBound {
  std::vector<double> service_hours;  // hours some service could use at least one instance
  std::vector<double> job_hours;      // instance-hours every job's runs on it could take
  std::vector<bool> flat_whole;       // every service option on it uses the same whole number
                                      // of instances in every hour
};

UsageBound BoundUsage(const Problem& p) {
  const std::size_t nr = p.resources.size();
  UsageBound b{std::vector<double>(nr, 0), std::vector<double>(nr, 0), std::vector<bool>(nr, true)};
  std::vector<WeekProfile> service_most(nr, WeekProfile{});
  for (const ServicePiece& s : p.services) {
    std::vector<WeekProfile> most(nr, WeekProfile{});
    for (const ServiceOption& o : s.options) {
      const auto r = static_cast<std::size_t>(o.resource);
      for (std::size_t h = 0; h < most[r].size(); ++h) {
        most[r][h] = std::max(most[r][h], o.instances[h]);
        b.flat_whole[r] = b.flat_whole[r] && o.instances[h] == o.instances[0] &&
                          o.instances[h] == std::round(o.instances[h]);
      }
    }
    for (std::size_t r = 0; r < nr; ++r) {
      for (std::size_t h = 0; h < most[r].size(); ++h)
        service_most[r][h] += most[r][h];
    }
  }
  for (std::size_t r = 0; r < nr; ++r) {
    for (double n : service_most[r])
      b.service_hours[r] += std::min(1.0, n) * p.WeeksPerMonth();
  }
  for (const JobPiece& j : p.jobs) {
    std::vector<double> most(nr, 0);
    const double runs = std::max(1.0, j.every.RunsPerMonth(p.WeeksPerMonth()));
    for (const JobOption& o : j.options) {
      auto& m = most[static_cast<std::size_t>(o.resource)];
      if (!o.spot)
        m = std::max(m, o.instances * o.hours * runs);
    }
    for (std::size_t r = 0; r < nr; ++r)
      b.job_hours[r] += most[r];
  }
  return b;
}

// Whether any commitment on `res` costs less than `hours` of it a month at pay-as-you-go.
bool CommitmentCanPay(const Problem& p, const Resource& res, double hours) {
  const double month_value = std::min(hours, p.hours_per_month) * res.payg_per_hour;
  const bool month = p.allow_month && res.month_price && *res.month_price <= month_value;
  const bool year = p.allow_year && res.year_price && *res.year_price <= 12 * month_value;
  const bool reserved = p.allow_reserved && res.reserved_hourly &&
                        *res.reserved_hourly * 12 * p.hours_per_month <= 12 * month_value;
  return month || year || reserved;
}

}  // namespace

ByTheHour BoughtByTheHour(const Problem& p) {
  const std::size_t nr = p.resources.size();
  ByTheHour out{std::vector<bool>(nr, false), std::vector<bool>(nr, false)};
  if (p.savings_plan_rate)
    return out;
  const UsageBound b = BoundUsage(p);
  for (std::size_t r = 0; r < nr; ++r) {
    const Resource& res = p.resources[r];
    out.type[r] = !CommitmentCanPay(p, res, b.service_hours[r] + b.job_hours[r]);
    out.jobs[r] = b.flat_whole[r] && !CommitmentCanPay(p, res, b.job_hours[r]);
  }
  return out;
}

Result<ExclusivePrices> PriceExclusiveTypes(const Problem& p, const MipSolver& solver) {
  ExclusivePrices out;
  out.exclusive.assign(p.resources.size(), false);
  out.service.resize(p.services.size());
  out.job.resize(p.jobs.size());
  for (std::size_t s = 0; s < p.services.size(); ++s)
    out.service[s].resize(p.services[s].options.size());
  for (std::size_t j = 0; j < p.jobs.size(); ++j)
    out.job[j].resize(p.jobs[j].options.size());
  if (p.savings_plan_rate)
    return out;
  const std::vector<int> owner = Owners(p);
  const std::vector<bool> payg_only = BoughtByTheHour(p).type;
  for (std::size_t r = 0; r < owner.size(); ++r)
    out.exclusive[r] = owner[r] >= 0 || payg_only[r];
  Problem base = p;
  base.services.clear();
  base.jobs.clear();
  for (std::size_t s = 0; s < p.services.size(); ++s) {
    for (std::size_t o = 0; o < p.services[s].options.size(); ++o) {
      const ServiceOption& so = p.services[s].options[o];
      if (!out.exclusive[static_cast<std::size_t>(so.resource)])
        continue;
      Problem alone = base;
      alone.services = {{p.services[s].name, {so}}};
      Result<PricedAlone> priced = PriceAlone(std::move(alone), solver);
      if (!priced.ok())
        return priced.status();
      out.service[s][o] = std::move(*priced);
    }
  }
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    for (std::size_t o = 0; o < p.jobs[j].options.size(); ++o) {
      const JobOption& jo = p.jobs[j].options[o];
      if (jo.spot || !out.exclusive[static_cast<std::size_t>(jo.resource)])
        continue;
      Problem alone = base;
      JobPiece piece = p.jobs[j];
      piece.options = {jo};
      alone.jobs = {piece};
      Result<PricedAlone> priced = PriceAlone(std::move(alone), solver);
      if (!priced.ok())
        return priced.status();
      out.job[j][o] = std::move(*priced);
    }
  }
  return out;
}

std::vector<std::vector<int>> IndependentGroups(const Problem& p) {
  const int pieces = static_cast<int>(p.services.size() + p.jobs.size());
  std::vector<int> parent(static_cast<std::size_t>(pieces));
  for (int i = 0; i < pieces; ++i)
    parent[static_cast<std::size_t>(i)] = i;
  auto find = [&](int i) {
    while (parent[static_cast<std::size_t>(i)] != i)
      i = parent[static_cast<std::size_t>(i)] =
          parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(i)])];
    return i;
  };
  std::vector<int> first_user(p.resources.size(), -1);
  const ByTheHour by_hour = BoughtByTheHour(p);
  auto use = [&](int resource, int piece) {
    const auto r = static_cast<std::size_t>(resource);
    if (by_hour.type[r] || (piece >= static_cast<int>(p.services.size()) && by_hour.jobs[r]))
      return;
    int& f = first_user[static_cast<std::size_t>(resource)];
    if (f < 0 || p.savings_plan_rate)
      f = f < 0 ? piece : f;
    parent[static_cast<std::size_t>(find(piece))] = find(f);
  };
  for (std::size_t s = 0; s < p.services.size(); ++s) {
    for (const ServiceOption& o : p.services[s].options)
      use(o.resource, static_cast<int>(s));
  }
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    for (const JobOption& o : p.jobs[j].options) {
      if (!o.spot)
        use(o.resource, static_cast<int>(p.services.size() + j));
    }
  }
  if (p.savings_plan_rate) {
    for (int i = 1; i < pieces; ++i)
      parent[static_cast<std::size_t>(find(i))] = find(0);
  }
  std::vector<std::vector<int>> groups;
  std::vector<int> index(static_cast<std::size_t>(pieces), -1);
  for (int i = 0; i < pieces; ++i) {
    int& g = index[static_cast<std::size_t>(find(i))];
    if (g < 0) {
      g = static_cast<int>(groups.size());
      groups.emplace_back();
    }
    groups[static_cast<std::size_t>(g)].push_back(i);
  }
  return groups;
}

Problem PartOf(const Problem& p, const std::vector<int>& group) {
  Problem part = p;
  part.services.clear();
  part.jobs.clear();
  const int services = static_cast<int>(p.services.size());
  for (int i : group) {
    if (i < services)
      part.services.push_back(p.services[static_cast<std::size_t>(i)]);
    else
      part.jobs.push_back(p.jobs[static_cast<std::size_t>(i - services)]);
  }
  return part;
}

void AddCommitments(const Decision& from, const Timeline& from_t, const Timeline& to_t,
                    Decision& to) {
  for (std::size_t r = 0; r < to.monthly.size() && r < from.monthly.size(); ++r) {
    for (std::size_t c = 0; c < to_t.classes.size(); ++c) {
      // The class of `from` holding this class's first month.
      const int month = to_t.classes[c].first_month;
      for (std::size_t a = 0; a < from_t.classes.size(); ++a) {
        const MonthClass& ac = from_t.classes[a];
        if (month >= ac.first_month && month < ac.first_month + ac.months)
          to.monthly[r][c] += from.monthly[r][a];
      }
    }
    for (std::size_t b = 0; b < to.yearly[r].size() && b < from.yearly[r].size(); ++b) {
      to.yearly[r][b] += from.yearly[r][b];
      to.reserved[r][b] += from.reserved[r][b];
    }
  }
  for (std::size_t b = 0; b < to.savings_hourly.size() && b < from.savings_hourly.size(); ++b)
    to.savings_hourly[b] += from.savings_hourly[b];
}

}  // namespace gpuplan::campaign
