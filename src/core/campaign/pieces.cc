#include "campaign/pieces.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "gpuplan/defaults.h"
#include "gpuplan/strings.h"

namespace gpuplan::campaign {
namespace {

// Unset time zones read as China Standard Time, as a traffic profile's do (TrafficProfile).
constexpr double kDefaultUtcOffset = 8;
// Candidates asked of the planner per piece: enough to see several instance types and both
// billing modes of each.
constexpr int kCandidatesPerPiece = 60;

bool Has(const std::vector<Billing>& modes, Billing b) {
  return modes.empty() || std::find(modes.begin(), modes.end(), b) != modes.end();
}

class Builder {
 public:
  Builder(const CampaignSpec& spec, const ModelZoo& zoo, const Catalog& catalog,
          const Calibration& cal, const CampaignOptions& options)
      : spec_(spec), zoo_(zoo), catalog_(catalog), cal_(cal), options_(options) {}

  Result<BuiltProblem> Build() {
    Problem& p = out_.problem;
    p.months = spec_.months;
    p.hours_per_month = options_.plan.ratios.hours_per_month;
    p.allow_month = Has(spec_.billing, Billing::kSubscriptionMonth);
    p.allow_year = Has(spec_.billing, Billing::kSubscriptionYear);
    p.allow_reserved = Has(spec_.billing, Billing::kReservedNoUpfront);
    if (Has(spec_.billing, Billing::kSavingsPlan))
      p.savings_plan_rate = spec_.savings_plan_rate;
    p.savings_plan = spec_.savings_plan;
    if (p.savings_plan.type == SavingsPlanQuote::Type::kEcsCompute &&
        !catalog_.FindFamily(p.savings_plan.family)) {
      std::vector<std::string> families;
      for (const Family& f : catalog_.families)
        families.push_back(f.name);
      const std::string near = strings::Nearest(p.savings_plan.family, families);
      return Status::InvalidArgument(
                 "savings_plan.family: no instance family \"" + p.savings_plan.family +
                 "\" in the catalog" + (near.empty() ? "" : "; did you mean " + near + "?") +
                 " (an ECS compute plan names the family of the types it covers, e.g. gn7i)")
          .At("", 0, 0, "savings_plan.family");
    }
    for (const CampaignService& s : spec_.services) {
      if (Status st = AddService(s); !st.ok())
        return st;
    }
    for (const CampaignJob& j : spec_.jobs) {
      if (Status st = AddJob(j); !st.ok())
        return st;
    }
    for (const auto& [what, pieces] : assumed_)
      out_.notes.push_back("assumed for " + pieces + ": " + what);
    return std::move(out_);
  }

 private:
  Result<planner::Plan> PlanPiece(const std::string& piece, const Workload& w,
                                  const std::string& only_instance = "") {
    Result<ModelArch> arch = planner::PlanModel(w, zoo_);
    if (!arch.ok())
      return arch.status().WithContext("\"" + piece + "\"");
    planner::PlanOptions o = options_.plan;
    o.top_n = std::max(o.top_n, kCandidatesPerPiece);
    o.only_instance = only_instance;
    Result<planner::Plan> plan = planner::MakePlan(w, *arch, catalog_, cal_, o);
    if (!plan.ok())
      return plan.status().WithContext("\"" + piece + "\"");
    return plan;
  }

  // The values the piece's plan assumed (gpuplan/defaults.h), listed with the campaign's notes.
  // One note per assumption, naming every piece that made it, in the order first made.
  void NoteAssumptions(const std::string& piece, const planner::Plan& plan) {
    for (const Assumption& a : plan.assumptions) {
      const std::string what = a.field + " = " + a.value + " (" + a.why + ")";
      auto same = std::find_if(assumed_.begin(), assumed_.end(),
                               [&](const auto& seen) { return seen.first == what; });
      if (same == assumed_.end())
        assumed_.push_back({what, "\"" + piece + "\""});
      else
        same->second += ", \"" + piece + "\"";
    }
  }

  static Status NoCandidate(const std::string& piece, const planner::Plan& plan) {
    std::string why;
    for (std::size_t i = 0; i < plan.rejected.size() && i < 3; ++i)
      why += "; " + plan.rejected[i].instance + ": " + plan.rejected[i].reason;
    return Status::Unsupported("\"" + piece + "\" has no priced candidate" + why);
  }

  // The index of `c`'s type and region among the resources; -1 when it cannot be priced in the
  // campaign's currency.
  int ResourceOf(const planner::Candidate& c) {
    const std::string key = c.instance + "@" + c.region;
    if (auto it = index_.find(key); it != index_.end())
      return it->second;
    Result<cost::BillingRates> rates = cost::ResolveRates(
        catalog_,
        {.instance = c.instance, .region = c.region, .zone = "", .billing = Billing::kPayg},
        options_.plan.ratios, options_.plan.today);
    int index = -1;
    if (!rates.ok()) {
      out_.dropped.push_back({c.instance, rates.status().message()});
    } else if (currency_set_ && rates->currency() != out_.currency) {
      out_.dropped.push_back({c.instance, "priced in " +
                                              std::string(CurrencyName(rates->currency())) +
                                              " in " + c.region + "; the campaign's currency is " +
                                              std::string(CurrencyName(out_.currency))});
    } else {
      out_.currency = rates->currency();
      currency_set_ = true;
      Resource r;
      r.instance = c.instance;
      r.region = c.region;
      if (spec_.savings_plan.type == SavingsPlanQuote::Type::kEcsCompute) {
        const InstanceType* type = catalog_.FindInstance(c.instance);
        r.savings_plan_applies = type && type->family == spec_.savings_plan.family &&
                                 c.region == spec_.savings_plan.region;
      }
      r.payg_per_hour = rates->payg().HourlyPrice(options_.plan.ratios).amount();
      const auto& month = rates->quotes[static_cast<std::size_t>(Billing::kSubscriptionMonth)];
      if (month) {
        r.month_price = month->price.amount();
        r.month_basis = month->derived ? month->basis : "listed " + month->as_of;
      }
      // Yearly terms and reserved instances only at a listed rate: the derived yearly price is
      // the upper bound 12 x monthly, and GPU reserved instances are unavailable unless a rate
      // is listed (data/price_ratios.csv, reserved_no_upfront_vs_payg's note).
      const auto& year = rates->quotes[static_cast<std::size_t>(Billing::kSubscriptionYear)];
      if (year && !year->derived)
        r.year_price = year->price.amount();
      const auto& ri = rates->quotes[static_cast<std::size_t>(Billing::kReservedNoUpfront)];
      if (ri && !ri->derived)
        r.reserved_hourly = ri->price.amount();
      out_.problem.resources.push_back(r);
      index = static_cast<int>(out_.problem.resources.size()) - 1;
    }
    index_[key] = index;
    return index;
  }

  double ServiceOffset(const Workload& w) const {
    if (w.inference.traffic && w.inference.traffic->utc_offset_hours)
      return *w.inference.traffic->utc_offset_hours;
    return kDefaultUtcOffset;
  }

  // Instances in use in each hour of the campaign's week: the fleet's replicas by hour moved
  // into the campaign's time zone, and an elastic instance paid from its lead time before the
  // hour it serves.
  WeekProfile ServiceWeek(const Workload& w, const planner::Candidate& c) const {
    WeekProfile need{};
    if (!c.fleet) {
      need.fill(c.nodes);
      return need;
    }
    const serving::Fleet& f = *c.fleet;
    const int shift = static_cast<int>(std::lround(ServiceOffset(w) - CampaignUtcOffset(spec_)));
    for (int t = 0; t < kWeekHours; ++t) {
      const int local = ((t + shift) % kWeekHours + kWeekHours) % kWeekHours;
      const bool weekend = local / 24 >= 5;
      const serving::Day& day = weekend ? f.replicas.weekend : f.replicas.weekday;
      need[static_cast<std::size_t>(t)] =
          day[static_cast<std::size_t>(local % 24)] * f.shape.instances_per_replica;
    }
    WeekProfile paid = need;
    for (int t = 0; t < kWeekHours; ++t) {
      const double next = need[static_cast<std::size_t>((t + 1) % kWeekHours)];
      const double rise = next - need[static_cast<std::size_t>(t)];
      if (rise > 0)
        paid[static_cast<std::size_t>(t)] += std::min(1.0, f.shape.lead_time_h) * rise;
    }
    return paid;
  }

  Status AddService(const CampaignService& s) {
    Workload w = s.workload;
    // Fleets come with a committed base mode to compare; the campaign decides the commitments.
    w.constraints.billing = {Billing::kSubscriptionMonth, Billing::kPayg};
    Result<planner::Plan> plan = PlanPiece(s.name, w);
    if (!plan.ok())
      return plan.status();
    NoteAssumptions(s.name, *plan);
    ServicePiece piece{s.name, {}};
    std::set<int> seen;
    for (const planner::Candidate& c : plan->candidates) {
      if (!c.price_known || static_cast<int>(piece.options.size()) >= options_.types_per_service)
        continue;
      const int r = ResourceOf(c);
      if (r < 0 || !seen.insert(r).second)
        continue;
      ServiceOption o;
      o.resource = r;
      o.instances = ServiceWeek(w, c);
      o.shown = {.service = s.name,
                 .instance = c.instance,
                 .region = c.region,
                 .instances_per_replica =
                     c.fleet ? c.fleet->shape.instances_per_replica : std::max(c.nodes_per_copy, 1),
                 .peak_instances = c.nodes,
                 .replica_rps = c.estimate.inference ? c.estimate.inference->requests_per_s : 0,
                 .lead_time_h = c.fleet ? c.fleet->shape.lead_time_h : 0};
      piece.options.push_back(o);
    }
    if (piece.options.empty())
      return NoCandidate(s.name, *plan);
    out_.problem.services.push_back(std::move(piece));
    return Status::Ok();
  }

  // The cheapest payg and spot candidate per instance type and region of `plan`.
  void AddJobOptions(const planner::Plan& plan, std::map<int, JobOption>& payg,
                     std::map<int, JobOption>& spot) {
    for (const planner::Candidate& c : plan.candidates) {
      if (!c.price_known || (c.billing != Billing::kPayg && c.billing != Billing::kSpot))
        continue;
      const int r = ResourceOf(c);
      if (r < 0)
        continue;
      // A spot price that cannot rank (derived or stale) is decided at its PAYG cap.
      const double at_cap = c.spot_ranked_at_payg * c.nodes * c.job_hours;
      JobOption o{.resource = r,
                  .instances = c.nodes,
                  .hours = c.job_hours,
                  .spot = c.billing == Billing::kSpot,
                  .spot_cost_per_run = c.spot_ranked_at_payg > 0 ? at_cap : c.cost.total.amount(),
                  .spot_quote_per_run = c.cost.total.amount()};
      std::map<int, JobOption>& into = o.spot ? spot : payg;
      auto cost = [&](const JobOption& x) {
        return x.spot
                   ? x.spot_cost_per_run
                   : x.instances * x.hours *
                         out_.problem.resources[static_cast<std::size_t>(x.resource)].payg_per_hour;
      };
      if (auto it = into.find(r); it == into.end() || cost(o) < cost(it->second))
        into[r] = o;
    }
  }

  Status AddJob(const CampaignJob& j) {
    Workload w = j.workload;
    w.constraints.billing = {Billing::kPayg};
    const bool spot_ok = j.interruptible && Has(spec_.billing, Billing::kSpot);
    if (spot_ok)
      w.constraints.billing.push_back(Billing::kSpot);
    w.constraints.no_spot = !spot_ok;
    Result<planner::Plan> plan = PlanPiece(j.name, w);
    if (!plan.ok())
      return plan.status();
    NoteAssumptions(j.name, *plan);
    std::map<int, JobOption> payg, spot;
    AddJobOptions(*plan, payg, spot);
    // The types the services run on, so a job can fill their idle hours.
    for (const ServicePiece& s : out_.problem.services) {
      for (const ServiceOption& so : s.options) {
        const Resource& r = out_.problem.resources[static_cast<std::size_t>(so.resource)];
        if (payg.count(so.resource))
          continue;
        Workload there = w;
        there.constraints.regions = {r.region};
        Result<planner::Plan> on = PlanPiece(j.name, there, r.instance);
        if (on.ok())
          AddJobOptions(*on, payg, spot);
      }
    }
    if (payg.empty() && spot.empty())
      return NoCandidate(j.name, *plan);
    // Keep the cheapest types and every service type.
    std::vector<JobOption> ranked;
    ranked.reserve(payg.size());
    for (const auto& [r, o] : payg)
      ranked.push_back(o);
    std::sort(ranked.begin(), ranked.end(), [&](const JobOption& a, const JobOption& b) {
      auto cost = [&](const JobOption& x) {
        return x.instances * x.hours *
               out_.problem.resources[static_cast<std::size_t>(x.resource)].payg_per_hour;
      };
      return cost(a) < cost(b);
    });
    std::set<int> service_types;
    for (const ServicePiece& s : out_.problem.services) {
      for (const ServiceOption& so : s.options)
        service_types.insert(so.resource);
    }
    JobPiece piece{j.name, j.every, j.window, {}};
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      if (static_cast<int>(i) < options_.types_per_job || service_types.count(ranked[i].resource))
        piece.options.push_back(ranked[i]);
    }
    std::vector<JobOption> spots;
    spots.reserve(spot.size());
    for (const auto& [r, o] : spot)
      spots.push_back(o);
    std::sort(spots.begin(), spots.end(), [](const JobOption& a, const JobOption& b) {
      return a.spot_cost_per_run < b.spot_cost_per_run;
    });
    for (std::size_t i = 0; i < spots.size() && static_cast<int>(i) < options_.types_per_job; ++i)
      piece.options.push_back(spots[i]);
    out_.problem.jobs.push_back(std::move(piece));
    return Status::Ok();
  }

  const CampaignSpec& spec_;
  const ModelZoo& zoo_;
  const Catalog& catalog_;
  const Calibration& cal_;
  const CampaignOptions& options_;
  BuiltProblem out_;
  std::vector<std::pair<std::string, std::string>> assumed_;  // what, the pieces that assume it
  bool currency_set_ = false;
  std::map<std::string, int> index_;
};

}  // namespace

double CampaignUtcOffset(const CampaignSpec& spec) {
  return spec.utc_offset_hours.value_or(kDefaultUtcOffset);
}

Result<BuiltProblem> BuildProblem(const CampaignSpec& spec, const ModelZoo& zoo,
                                  const Catalog& catalog, const Calibration& cal,
                                  const CampaignOptions& options) {
  return Builder(spec, zoo, catalog, cal, options).Build();
}

}  // namespace gpuplan::campaign
