// The planner behind `gpuplan plan` (include/gpuplan/plan.h): MakePlan reads top to bottom,
// one room of src/core/plan/ per step:
//
//   validate   the workload with its defaults derived (gpuplan/defaults.h), its regions and names
//   candidates the billing modes and instance types that may run it (candidates.h)
//   search     per instance type and node count the hardware, its layout (one search per distinct
//              hardware) and its size (search.h, sizing.cc), priced as it is found
//              (pricing.h): the search needs prices to stop early on hardware that cannot be
//              shown (show_bar.h)
//   rank       the best region per type, node count and mode; the time-cost front (ranking.h)
//   explain    advice, storage and image of each shown candidate (annotate.h), the pick's why
//              (why.h) and the plan's notes (notes.h)
//
// For each instance type: filter by the workload's constraints (with a reason), then for each
// node count build the hardware, search parallel layouts with the performance model (memory fit
// first, then the fastest step), then price every allowed billing mode in every allowed region
// with the cost model. Instance types that share hardware (same GPU, GPUs per node, links and
// network) share one layout search, and each type's regional rates are resolved once. Within a
// layout search, more ZeRO sharding or recomputation is tried only while the largest micro-batch
// still does not reach the global batch (beyond that they only add time).
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/defaults.h"
#include "gpuplan/plan.h"
#include "plan/annotate.h"
#include "plan/candidates.h"
#include "plan/inputs.h"
#include "plan/notes.h"
#include "plan/ranking.h"
#include "plan/search.h"
#include "plan/spot.h"
#include "plan/why.h"
#include "serving/fleet_plan.h"

namespace gpuplan::planner {
namespace {

// The workload with what it leaves unset derived from the work (listed in `assumed`),
// validated against itself, the catalog's regions and its names.
Result<Workload> Validate(const Workload& given, const ModelArch& arch, const Catalog& catalog,
                          const Calibration& cal, const PlanOptions& options,
                          std::vector<Assumption>& assumed) {
  Workload asked = DeriveDefaults(given, arch, cal, &assumed);
  if (Status s = ValidateWorkload(asked); !s.ok())
    return s;
  if (Status s = ValidateWorkloadForModel(asked, arch); !s.ok())
    return s;
  if (Status s = CheckRegions(asked.constraints.regions, catalog, options.market); !s.ok())
    return s;
  if (Status s = CheckConstraintNames(asked.constraints, catalog); !s.ok())
    return s;
  return asked;
}

// Whether no instance type can be planned at all: every vendor excluded, or no billing mode
// gpuplan can price. Then the plan says why (one rejection for the whole catalog).
bool NothingToPlan(const Workload& w, const Catalog& catalog, const std::vector<Billing>& modes,
                   Plan& plan) {
  if (std::string why = EveryVendorExcluded(w.constraints, catalog); !why.empty()) {
    plan.rejected.push_back({"*", why});
    if (VendorExcluded(w.constraints, GpuVendor::kNvidia))
      plan.notes.push_back(kNoNvidiaNote);
    return true;
  }
  if (modes.empty()) {
    plan.rejected.push_back({"*", "constraints.billing allows no mode gpuplan can price (" +
                                      BillingChoices(BillingUse::kCosted) + ")"});
    return true;
  }
  return false;
}

// The workload held to the latency targets in force (plan.latency): the serving search and
// everything after it use them.
Workload WithTargets(const Workload& asked, const Calibration& cal, Plan& plan) {
  plan.latency = ServingTargets(asked, cal);
  Workload w = asked;
  if (w.task == Task::kInference) {
    w.inference.ttft_ms = plan.latency.ttft_ms;
    w.inference.tpot_ms = plan.latency.tpot_ms;
  }
  return w;
}

// The top_n of the ranking into plan.candidates, the front into plan.pareto, and the spot
// alternative: shown only when it would have come first at its own price.
void Rank(const Workload& w, std::vector<Candidate> all, int top_n, Plan& plan) {
  std::optional<Candidate> spot = CheapestSpotAtQuote(all);
  std::vector<Candidate> ranked = RankCandidates(w, std::move(all));
  if (spot && !ranked.empty() && spot->score_at_quote < ranked.front().score)
    plan.spot_alternative = std::move(spot);
  plan.pareto = ParetoFront(ranked);
  if (ranked.size() > static_cast<size_t>(top_n))
    ranked.resize(static_cast<size_t>(top_n));
  plan.candidates = std::move(ranked);
}

// The shown candidates' advice, the pick's why and the plan's notes.
void Explain(const PlanInputs& in, const CandidateSearch& search, Plan& plan) {
  for (Candidate& c : plan.candidates)
    Annotate(in, plan.latency, c);
  if (!plan.candidates.empty())
    plan.candidates[0].why = WhyBest(in, plan, search.currency());
  AddNotes(in.w, VendorExcluded(in.w.constraints, GpuVendor::kNvidia), search.currency(),
           search.latency_misses(), plan);
  if (std::string note = serving::FleetNote(in.w, in.options); !note.empty())
    plan.notes.push_back(note);
  // An exact tie at the top is decided by a rule, which the plan states.
  if (std::string note = TieNote(plan); !note.empty())
    plan.notes.push_back(note);
}

}  // namespace

Result<ModelArch> PlanModel(const Workload& w, const ModelZoo& zoo) {
  if ((w.task == Task::kRendering || w.task == Task::kHpc) && w.model_name.empty() &&
      !w.inline_arch) {
    ModelArch none;
    none.name = "none";
    none.kind = ModelKind::kOther;
    return none;
  }
  return ResolveModel(w, zoo);
}

Result<Plan> MakePlan(const Workload& given, const ModelArch& arch, const Catalog& catalog,
                      const Calibration& cal, const PlanOptions& options) {
  return MakePlan(given, arch, catalog, cal, options, Shortcuts{});
}

Result<Plan> MakePlan(const Workload& given, const ModelArch& arch, const Catalog& catalog,
                      const Calibration& cal, const PlanOptions& options,
                      const Shortcuts& shortcuts) {
  Plan plan;
  const Result<Workload> asked = Validate(given, arch, catalog, cal, options, plan.assumptions);
  if (!asked.ok())
    return asked.status();
  const std::vector<Billing> modes = AllowedModes(*asked);
  AssumePlanLimits(*asked, options, modes, plan.assumptions);
  if (NothingToPlan(*asked, catalog, modes, plan))
    return plan;
  const Workload w = WithTargets(*asked, cal, plan);
  const PlanInputs in{.w = w,
                      .arch = arch,
                      .catalog = catalog,
                      .cal = cal,
                      .options = options,
                      .shortcuts = shortcuts};

  CandidateSearch search(in, modes, plan);
  for (const InstanceType& t : catalog.instances)
    search.AddInstance(t);
  search.Run();
  search.Finish();

  Rank(w, search.TakeCandidates(), options.top_n, plan);
  Explain(in, search, plan);
  return plan;
}

}  // namespace gpuplan::planner
