// The planner: searches every instance type x node count x parallel layout x billing mode for a
// workload, drops what cannot work (with the reason), ranks the rest and explains the pick.
//
//   planner::PlanOptions options;
//   options.today = "2026-11-30";
//   Result<planner::Plan> plan = planner::MakePlan(workload, arch, catalog, calibration, options);
//   if (plan.ok() && !plan->candidates.empty()) Show(plan->candidates[0]);
//   // No candidate is a valid answer: plan->rejected says why each type was dropped.
//
// Thread safety: pure function over const inputs; a Plan is a plain value.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_PLAN_H_
#define GPUPLAN_INCLUDE_GPUPLAN_PLAN_H_

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/calibration.h"
#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/defaults.h"
#include "gpuplan/estimate.h"
#include "gpuplan/fleet.h"
#include "gpuplan/model.h"
#include "gpuplan/rules.h"
#include "gpuplan/status.h"
#include "gpuplan/uncertainty.h"
#include "gpuplan/workload.h"

namespace gpuplan::planner {

struct PlanOptions {
  int top_n = 10;              // candidates kept in Plan::candidates
  std::string today;           // "YYYY-MM-DD", for price ages; "" = ages unknown
  int default_max_nodes = 16;  // node limit when the workload sets neither max_nodes nor max_gpus
  cost::PriceRatios ratios;    // for billing modes without a listed price
  cost::MarketData market;     // stock and spot advice from the price cache (may be empty)
  cost::SpotRisk spot;         // restart and checkpoint times for the interruption model
  // Spot with no reclaim rate (no DescribeSpotAdvice data, none in `spot`) is ranked with this
  // interruption allowance: a 30-day release rate (DescribeSpotAdvice's InterruptionRate), 20%
  // = the lower edge of its highest band ("15-20%" and above), a deliberate assumption; the
  // candidate shows the range from the lower bound (no interruptions) to this.
  double default_spot_release_rate_30d = 0.20;
  // Replace the search over layouts with this one (gpuplan explain/estimate use it); its
  // Gpus() must match each candidate.
  std::optional<perf::Layout> fixed_layout;
  // Only this instance type ("" = all): gpuplan explain.
  std::string only_instance;
  // A service with a traffic profile: minutes from asking for an elastic instance to its engine
  // loading the weights (ECS start, the engine image and its start-up), when the profile does
  // not say (inference.traffic.scale_up_minutes). An assumption, listed in the plan's notes;
  // the weights' load from OSS is added per model (fleet.lead_time_min).
  double scale_up_minutes = 10;
  // The model's error per regime (data/uncertainty.csv, loaded at the edge); empty = no ranges,
  // and decisions at Workload::confidence use the point estimate.
  uncertainty::Table uncertainty;
  // The plan's currency when constraints.budget names none: prices in another currency are
  // not compared with it (a region priced only in USD is rejected with the reason).
  std::string default_currency = "CNY";
  // A shown job the pick's why names as a near tie: its score (what the ranking compares)
  // within `near_tie_score` (2%) of the pick's, below the model's own spread, so the user may
  // as well choose on the other measure, and at least `near_tie_gain` (20%) better on it
  // (fewer hours under a cost objective, less cost under a time objective), enough to matter.
  // Judgement calls, stated in the why; not fitted values.
  double near_tie_score = 0.02;
  double near_tie_gain = 0.2;
};

// The calibrated spread of a candidate's numbers (gpuplan/uncertainty.h).
struct CandidateRanges {
  uncertainty::Band time;    // regime and percentiles of true / predicted step time
  uncertainty::Band memory;  // the same for peak memory
  uncertainty::Range step_s;
  uncertainty::Range job_hours;   // wall-clock, spot overhead included (0s without work)
  uncertainty::Range cost;        // the job's total, or per month for a service (0s per hour)
  uncertainty::Range memory_gib;  // per GPU
  bool memory_tight = false;      // fits at the point, but the p90 memory passes the capacity
  // Spot: reclaims per instance-hour assumed at p10 and p90 (the advice's bracket).
  std::optional<std::pair<double, double>> reclaim_rate_per_hour;
  // Spot with a stale price (older than kStalePriceDays): the market may have moved anywhere up
  // to the PAYG cap since, so the p90 cost prices spot at PAYG. The PAYG price used; 0 = fresh.
  double stale_spot_cap_per_hour = 0;
  double confidence = 0.5;             // Workload::confidence the decisions used
  double job_hours_at_confidence = 0;  // what the deadline was checked against
  double cost_at_confidence = 0;       // what the budget was checked against
  // The cost at the median of every band (time, reclaim rate, a stale spot price): with cost's
  // p10 and p90, the cost range the budget's chance is read from. 0 = not computed (a service).
  double cost_p50 = 0;
};

// What to put the data on, with the read rate it must sustain.
struct StoragePlan {
  std::string kind;         // "local_nvme", "essd_pl1", "cpfs", "nas", "oss", "memory"
  double size_gib = 0;      // suggested capacity
  double required_mbs = 0;  // read rate the job needs, MB/s (0 = unknown)
  double expected_mbs = 0;  // what the choice delivers, MB/s (0 = no source gives it)
  std::string why;
};

// OS image, driver, CUDA and framework that support the GPU's architecture.
struct ImagePlan {
  std::string os;         // "Alibaba Cloud Linux 3" or "Ubuntu 22.04"
  std::string driver;     // minimum NVIDIA driver branch
  std::string cuda;       // CUDA toolkit version range
  std::string framework;  // PyTorch version range
  std::string why;
};

struct Candidate {
  std::string instance;  // instance type name
  std::string family;
  bool preview = false;  // an invitational preview family (families.csv lifecycle preview)
  std::string gpu;
  std::string region;
  int nodes = 1;
  int gpus = 1;  // total GPUs
  // Model copies: a service's independent copies serving traffic (JSON "replicas"; spares
  // included); training: 1.
  int copies = 1;
  int gpus_per_copy = 1;   // GPUs one copy runs on (tp x pp; training: all)
  int nodes_per_copy = 1;  // instances one copy spans (serving: 1 unless the model needs more)
  int copies_per_instance_group = 1;  // copies on nodes_per_copy instances
  int spare_instances = 0;            // a spot service's spares for reclaims (included in nodes)
  // False when no price is known for the type (cost, monthly are then empty): the candidate is
  // ranked by time, and under a cost objective after every priced one; price_hint says how to
  // get a price.
  bool price_known = true;
  std::string price_hint;
  perf::Layout layout;
  // The training framework that runs `layout` (gpuplan/framework.h: the first of the
  // workload's frameworks that does); "" for serving or a workload without frameworks.
  std::string framework;
  // The attention kernel the estimate timed a training with ("flash2", "cudnn":
  // AttentionKernelFor); "" for serving.
  std::string attention_kernel;
  perf::Estimate estimate;
  Billing billing = Billing::kPayg;
  cost::JobCostEstimate cost;  // for the job (training, batch inference)
  // Spot without a known reclaim rate: `cost` (and `monthly`) include the default interruption
  // allowance (PlanOptions::default_spot_release_rate_30d); this is the lower bound without it.
  std::optional<Money> spot_cost_low;
  std::optional<cost::MonthlyCostEstimate> monthly;  // for a service (inference)
  double job_hours = 0;                              // wall-clock, including spot overhead
  double score = 0;     // what the objective ranks by (lower is better)
  bool pareto = false;  // on the time-vs-cost Pareto front
  std::vector<rules::Advice> advice;
  StoragePlan storage;
  ImagePlan image;
  std::string why;                        // one paragraph: why this candidate
  std::optional<CandidateRanges> ranges;  // set when the plan had an uncertainty table
  // Spot whose price cannot decide the plan (SpotPriceRankable is false) and a workload that
  // does not ask for spot alone: ranked as if spot cost its PAYG cap, the most it can cost.
  // The PAYG price per instance-hour it was ranked at; 0 = ranked at its own price.
  double spot_ranked_at_payg = 0;
  double score_at_quote = 0;  // the score at its own price (= score when ranked at it)
  // A service with a traffic profile (inference.traffic): the committed base and the elastic
  // layer that follows the traffic, whose month cost is `monthly` (and `cost.total`). `billing`
  // is the base's mode, or the elastic layer's when the base is empty; `nodes` the peak.
  std::optional<serving::Fleet> fleet;
};

struct Rejection {
  std::string instance;  // instance type (or family/"*" for a whole-catalog reason)
  std::string reason;    // "needs 31.2 GiB per GPU, T4-16G has 14.8 GiB"
};

// The TTFT/TPOT targets a serving plan is held to (ServingTargets).
struct LatencyTargets {
  LatencyMode mode = LatencyMode::kBatch;
  std::optional<double> ttft_ms, tpot_ms;           // unset = no target
  bool ttft_default = false, tpot_default = false;  // the interactive default, not the workload's
};

// The targets of `w`: its own, and for an interactive workload (Workload::Latency) generating
// tokens, Calibration::interactive_ttft_ms / interactive_tpot_ms for those it leaves unset.
// None for other tasks.
LatencyTargets ServingTargets(const Workload& w, const Calibration& cal);

struct Plan {
  std::vector<Candidate> candidates;  // best first, at most top_n
  std::vector<Candidate> pareto;      // time-vs-cost Pareto front, fastest first
  std::vector<Rejection> rejected;    // one line per instance type that cannot work
  int evaluated = 0;                  // performance-model evaluations made
  std::vector<std::string> notes;     // assumptions the whole plan rests on
  // The date of the oldest price the candidates use ("" when none is priced), and its age.
  std::string prices_as_of;
  std::optional<int> prices_age_days;
  LatencyTargets latency;  // what the serving search was held to (inference)
  // The spot candidate that would come first at its own price when that price cannot decide
  // the plan (stale or derived; Candidate::spot_ranked_at_payg): shown in the notes with how to
  // refresh it.
  std::optional<Candidate> spot_alternative;
  // Every value the workload did not give, derived or defaulted, with why (DeriveDefaults,
  // gpuplan/defaults.h, plus the node limit and billing modes the plan assumed); empty for a
  // workload built in code (Workload::unset marks nothing).
  std::vector<Assumption> assumptions;
};

// A price older than this many days is marked stale wherever it is shown.
inline constexpr int kStalePriceDays = 90;

// The price a candidate's cost rests on (the monthly one for a service); nullptr when unpriced.
const cost::PriceQuote* PriceUsed(const Candidate& c);
// How far a price can be trusted: "list" (official list data), "user" ('prices add'),
// "published bill (medium)" / "published figure (low)" (one account's bill or a third party's
// figure, never a list price), "derived (high)" (from PAYG with the ratios).
std::string PriceTrust(const cost::PriceQuote& q);
// Older than kStalePriceDays (false when its age is unknown).
bool PriceStale(const cost::PriceQuote& q);
// Whether a spot price may rank a plan: a listed market price (not derived from PAYG with a
// ratio) that is not stale. Spot prices move with the market and the ratio is a 2024 median,
// so anything else says little about what spot costs today; only the PAYG cap is certain.
bool SpotPriceRankable(const cost::PriceQuote& q);

// The rule that orders candidates: by the objective's score (cost, or hours, at the workload's
// confidence when ranges are known; under a cost objective unpriced types after every priced
// one), then the other measure (hours under a cost objective, cost under a time objective),
// then instance name and node count. Stated in plan notes and `explain`.
inline constexpr const char* kTieBreakRule =
    "equal scores are broken by the other measure (hours under a cost objective, cost under a "
    "time objective), then a generally available family before an invitational preview, then "
    "the fewer GPU-hours, then by instance name and node count";

// Why `other` ranks below `pick` in a plan for `w`, with the numbers: the score each was ranked
// by and the difference (cost or hours at the confidence), the other measure, a spot price
// ranked at its PAYG cap, no price, or a stale price; for an exact tie, the rule that broke it.
// "" when `other` does not rank below `pick` (RanksBefore).
std::string WhyRanksBelow(const Workload& w, const Candidate& pick, const Candidate& other);

// The architecture to plan with: ResolveModel(), except that rendering and HPC jobs need no
// model (they get an empty kOther architecture).
Result<ModelArch> PlanModel(const Workload& w, const ModelZoo& zoo);

// Regions named by some price or market record, sorted: the regions a plan can speak of.
std::vector<std::string> KnownRegions(const Catalog& catalog, const cost::MarketData& market);
// kInvalidArgument naming the first region of `asked` that is not known, with the nearest
// spelling and the list ("unknown region \"cn-hangzhuo\"; did you mean cn-hangzhou? ...").
Status CheckRegions(const std::vector<std::string>& asked, const Catalog& catalog,
                    const cost::MarketData& market);

// kInvalidArgument naming the first GPU of constraints.include_gpus / exclude_gpus or family of
// include_families / exclude_families that `catalog` does not know, with the nearest spellings
// ("field \"constraints.include_gpus\": unknown GPU \"A1000\"; did you mean A100, A10?"): a typo
// there would otherwise empty the plan or exclude nothing.
Status CheckConstraintNames(const Constraints& c, const Catalog& catalog);

// Plans `w` (architecture `arch`) over `catalog`. Errors only for invalid input (a workload that
// fails ValidateWorkload, or names a region CheckRegions, a GPU or family CheckConstraintNames
// does not know); an unsatisfiable workload
// is an empty `candidates` with reasons.
Result<Plan> MakePlan(const Workload& w, const ModelArch& arch, const Catalog& catalog,
                      const Calibration& cal, const PlanOptions& options);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_INCLUDE_GPUPLAN_PLAN_H_
