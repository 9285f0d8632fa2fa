// The search behind `gpuplan plan` (include/gpuplan/plan.h).
//
// For each instance type: filter by the workload's constraints (with a reason), then for each
// node count build the hardware, search parallel layouts with the performance model (memory fit
// first, then the fastest step), then price every allowed billing mode in every allowed region
// with the cost model. Instance types that share hardware (same GPU, GPUs per node, links and
// network) share one layout search, and each type's regional rates are resolved once. Within a
// layout search, more ZeRO sharding or recomputation is tried only while the largest micro-batch
// still does not reach the global batch (beyond that they only add time).
#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <tuple>

#include "gpuplan/layout_search.h"
#include "gpuplan/plan.h"
#include "gpuplan/plan_ranges.h"
#include "gpuplan/provision.h"
#include "gpuplan/strings.h"
#include "gpuplan/uncertainty.h"
#include "plan_bar.h"
#include "plan_latency.h"
#include "plan_spot.h"
#include "serving/fleet_plan.h"
#include "serving/search.h"

namespace gpuplan::planner {
namespace {

using strings::Num;
constexpr double kInf = std::numeric_limits<double>::infinity();

// A hardware candidate's layout: the layout search's answer, for serving too.
using LayoutResult = perf::LayoutSearch;

// Every field of perf::Hardware: a layout search depends on each (host RAM decides offload), so
// two instance types share one search only when all are equal.
struct HardwareKey {
  std::string gpu;
  int gpus_per_node, nodes;
  perf::LinkKind link;
  double intra_gbs, inter_gbps, host_memory, memory, memory_error_ratio;
  bool rdma;
  double host_vcpus;  // CPU image decoding (sample_inference.cc)
  auto Tie() const {
    return std::tie(gpu, gpus_per_node, nodes, link, intra_gbs, inter_gbps, host_memory, memory,
                    memory_error_ratio, rdma, host_vcpus);
  }
  bool operator<(const HardwareKey& o) const { return Tie() < o.Tie(); }
};

HardwareKey KeyOf(const perf::Hardware& hw) {
  return {hw.gpu->name,
          hw.gpus_per_node,
          hw.nodes,
          hw.intra_link,
          hw.intra_gbs,
          hw.inter_node_gbps,
          hw.host_memory_gib,
          hw.gpu_memory_gib,
          hw.memory_error_ratio,
          hw.rdma,
          hw.host_vcpus};
}

// The key without host RAM: hardware whose search never looked at the host (see HostFree) serves
// every type that differs from it only there.
HardwareKey HostFreeKey(const perf::Hardware& hw) {
  HardwareKey k = KeyOf(hw);
  k.host_memory = 0;
  return k;
}

// A service (Workload::IsService) runs around the clock and cannot be reclaimed at will: by
// default it is priced pay-as-you-go and by subscription, and spot only when the workload lists
// it. A job defaults to pay-as-you-go and spot.
// The costed modes of the billing table that constraints.billing lists, or the table's
// defaults for a job or a service when it lists none; spot only without no_spot.
std::vector<Billing> AllowedModes(const Workload& w) {
  std::vector<Billing> modes;
  const auto& listed = w.constraints.billing;
  const bool service = w.IsService();
  for (const BillingMode& m : kBillingModes) {
    const bool allowed = listed.empty()
                             ? (service ? m.service_default : m.job_default)
                             : std::find(listed.begin(), listed.end(), m.billing) != listed.end();
    if (!allowed || !m.costed)
      continue;
    if (m.billing == Billing::kSpot && w.constraints.no_spot)
      continue;
    modes.push_back(m.billing);
  }
  return modes;
}

bool ListedIn(const std::vector<std::string>& list, const std::string& value) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& x) {
    return strings::Lower(x) == strings::Lower(value);
  });
}

bool VendorExcluded(const Constraints& c, GpuVendor v) {
  return std::find(c.exclude_vendors.begin(), c.exclude_vendors.end(), v) !=
         c.exclude_vendors.end();
}

// What is known about accelerators other than NVIDIA's on Alibaba Cloud, for a plan that excludes
// NVIDIA: the real routes, and that their speed and price are unknown (data/SOURCES.md V1).
constexpr char kNoNvidiaNote[] =
    "without NVIDIA: Alibaba Cloud sells no Huawei Ascend or Cambricon instances (Ascend is sold "
    "on Huawei Cloud, outside gpuplan's scope). Its own accelerator is the T-Head PPU (Zhenwu "
    "810E, 96 GB HBM2e, 16 per node), offered through PAI (DSW/DLC/EAS node types "
    "ml.gp7vf.16.40xlarge and ml.gp7vf.16.46xlarge), Lingjun nodes in ACK, ACS and Function "
    "Compute, mostly in cn-wulanchabu and through sales or an allowlist; ECS's API also lists PPU "
    "(ecs.gp7-*) and AMD MI308X (ecs.ebmga8.48xlarge) types with no product page or price. "
    "Unknown: no public price, memory bandwidth or dense BF16/FP8 TFLOPS exists for the PPU, so "
    "gpuplan cannot plan or price it: ask Alibaba sales for a quote and availability "
    "(DescribeAvailableResource), and benchmark your model on a PPU node first (PyTorch runs "
    "through a CUDA-compatible stack; SGLang and vLLM PPU builds exist). Hanguang 800 (ebman1) "
    "and the FPGA types cannot train or serve LLMs. Source: data/SOURCES.md V1";

// When constraints.exclude_vendors leaves no GPU in the catalog: one reason for the whole
// catalog instead of one line per type; "" when some GPU is left.
std::string EveryVendorExcluded(const Constraints& c, const Catalog& catalog) {
  if (c.exclude_vendors.empty())
    return "";
  std::set<GpuVendor> offered;
  for (const InstanceType& t : catalog.instances) {
    if (const Gpu* g = catalog.FindGpu(t.gpu))
      offered.insert(g->vendor);
  }
  std::string names;
  for (GpuVendor v : offered) {
    if (!VendorExcluded(c, v))
      return "";
    names += (names.empty() ? "" : " or ") + std::string(GpuVendorName(v));
  }
  return "every GPU in the instance catalog is " + names +
         ", and constraints.exclude_vendors excludes it: no instance fits";
}

// Why `t` cannot run `w` at all, or "" when it may.
std::string Filter(const Workload& w, const Catalog& catalog, const Calibration& cal,
                   const InstanceType& t, const Gpu& g) {
  const Constraints& c = w.constraints;
  if (VendorExcluded(c, g.vendor)) {
    return "vendor " + std::string(GpuVendorName(g.vendor)) +
           " excluded by constraints.exclude_vendors";
  }
  if (!c.include_families.empty() && !ListedIn(c.include_families, t.family)) {
    return "family " + t.family + " not in constraints.include_families";
  }
  if (ListedIn(c.exclude_families, t.family))
    return "family " + t.family + " excluded by constraints";
  auto gpu_listed = [&](const std::vector<std::string>& list) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& name) {
      const Gpu* x = catalog.FindGpu(name);
      return x && x->name == g.name;
    });
  };
  if (!c.include_gpus.empty() && !gpu_listed(c.include_gpus))
    return g.name + " not in constraints.include_gpus";
  if (gpu_listed(c.exclude_gpus))
    return g.name + " excluded by constraints";
  if (t.status == Lifecycle::kRetired)
    return t.family + " is retired (no longer sold)";
  if (c.min_gpu_memory_gib && t.gpu_memory_gib < *c.min_gpu_memory_gib) {
    return Num(t.gpu_memory_gib) + " GiB per GPU, constraints ask for " +
           Num(*c.min_gpu_memory_gib);
  }
  if (t.vgpu() && w.task != Task::kRendering) {
    return "vGPU slice (" + Num(t.gpu_count) + " of a " + g.name + "): CUDA jobs need whole GPUs";
  }
  if (w.task == Task::kRendering || c.need_graphics) {
    // Graphics APIs need a GRID/vWS licence or a graphics-capable card: data-centre compute
    // GPUs (gpus.csv compute_only: A100, H20, A30, V100, P100) have no display engines for
    // rendering APIs.
    if (g.compute_only)
      return g.name +
             " is a compute GPU without graphics API support (no RT cores, no vWS licence)";
  }
  if (c.need_fp64 || w.task == Task::kHpc) {
    const double fp64 = g.Tflops(Precision::kFp64).value_or(0);
    if (fp64 < cal.hpc_min_fp64_tflops) {
      return g.name + " has " + (fp64 > 0 ? Num(fp64) + " FP64 TFLOPS" : "no usable FP64") +
             "; FP64 work needs A100/A30/V100/P100-class GPUs";
    }
  }
  if (w.task != Task::kRendering && w.task != Task::kHpc && !g.Tflops(RunsAs(g, w.precision))) {
    return g.name + " has no " + std::string(PrecisionName(w.precision)) + " units" +
           (w.precision == Precision::kBf16 ? " (set precision: fp16 to use it)" : "");
  }
  if (t.arm && w.IsTraining())
    return "ARM host (" + t.family + "): x86 training stacks do not run";
  return "";
}

// Node counts worth trying for `t`: powers of two (and the exact limit) within the limits.
std::vector<int> NodeCounts(const Workload& w, const InstanceType& t, const PlanOptions& o) {
  const int per_node = t.whole_gpus();
  int max_nodes = w.constraints.max_nodes.value_or(o.default_max_nodes);
  if (w.constraints.max_gpus)
    max_nodes = std::min(max_nodes, *w.constraints.max_gpus / std::max(per_node, 1));
  // Serving scales by independent copies; a copy spans nodes only when it needs to (the caller
  // stops at the first node count that fits).
  std::vector<int> out;
  for (int n = 1; n <= max_nodes; n *= 2)
    out.push_back(n);
  return out;
}

// The fastest training layout that fits: the one layout search `estimate` uses too
// (gpuplan/layout_search.h), with the workload's pins.
LayoutResult SearchTrainingLayout(const Workload& w, const ModelArch& arch,
                                  const perf::Hardware& hw, const Calibration& cal,
                                  const perf::LayoutPins& pins, const perf::CutOff& cut_off,
                                  perf::LayoutMemo& memo, int* evaluated) {
  LayoutResult found = perf::SearchLayout(w, arch, hw, cal, pins, cut_off, &memo);
  *evaluated += static_cast<int>(found.evaluated);
  return found;
}

// Inference: the serving search's answer (core/serving_search.h) as a LayoutResult. A setup
// that fits but misses the latency targets is no memory problem: its reason says so.
LayoutResult AsLayoutResult(const ServingSetup& s) {
  const bool memory = s.min_memory_gib < kInf && !s.MissedTargets();
  return {.ok = s.ok,
          .layout = s.layout,
          .estimate = s.estimate,
          .min_memory_gib = memory ? s.min_memory_gib : 0,
          .reason = s.reason};
}

std::string MemoryReason(const LayoutResult& r, const InstanceType& t, const Gpu& g, int nodes,
                         const perf::Hardware& hw, double confidence) {
  // Fits at the point but not with the model's memory error: the user may take the risk.
  const double at_confidence = r.min_memory_gib * hw.memory_error_ratio;
  if (r.min_memory_gib > 0 && r.min_memory_gib <= hw.gpu_memory_gib &&
      at_confidence > hw.gpu_memory_gib) {
    const std::string p = "p" + std::to_string(std::lround(confidence * 100));
    return "fits only at the point estimate: needs " + Num(r.min_memory_gib) +
           " GiB per GPU at its leanest layout on " + std::to_string(nodes) + " node(s), " +
           Num(at_confidence) + " GiB at " + p + " of the model's memory error (" +
           uncertainty::ErrorPercent(hw.memory_error_ratio) + ", data/uncertainty.csv), " + g.name +
           " has " + Num(hw.gpu_memory_gib) + " GiB usable; a lower memory_confidence (now " +
           Num(confidence) + ", --memory-confidence) accepts the risk of an OOM";
  }
  if (r.min_memory_gib > 0) {
    std::string why = "needs " + Num(r.min_memory_gib) +
                      " GiB per GPU even at its best layout on " + std::to_string(nodes) +
                      " node(s), " + g.name + " has " + Num(t.gpu_memory_gib) + " GiB";
    // The search also says when offload would fit the GPU but not the host's RAM.
    if (r.reason.find("host RAM") != std::string::npos)
      why += "; " + r.reason;
    return why;
  }
  return r.reason.empty() ? "no layout works" : r.reason;
}

// One region's rates for an instance type, or why it cannot be bought or priced there.
struct RegionRates {
  std::string region;
  std::optional<cost::BillingRates> rates;
  std::string reason;
  bool price_unknown = false;  // no price, and nothing says it is not sold there
};

// How to get a price gpuplan does not have.
std::string PriceHint(const std::string& instance, const std::string& region) {
  const std::string r = region.empty() ? "REGION" : region;
  return "price unknown for " + instance + (region.empty() ? "" : " in " + region) +
         ": run 'gpuplan prices refresh --region " + r +
         "' (Alibaba Cloud API), 'gpuplan prices import FILE' "
         "(aliyun CLI output), or enter a quote with 'gpuplan prices add " +
         instance + " AMOUNT --region " + r + " --billing payg'";
}

// Spare instances a spot service keeps so a reclaim (5-minute notice, about 15 minutes to
// replace) never drops below the rate: one per ten instances, at least one. An assumption;
// the advice says so.
int SpareInstances(int instances) { return std::max(1, (instances + 9) / 10); }

// Everything pricing needs that is the same for every candidate of one instance type.
struct Pricing {
  std::vector<RegionRates> rates;
  std::vector<cost::Mode> modes;
  std::string currency;
  const PlanOptions* options = nullptr;

  // Spot's hours differ by region only through the reclaim rate the market knows there, and
  // under a cost objective its score through whether its price can rank (SpotAtPaygCap). Where
  // no region has a rate (every one ranks with the same default, or the user's) and the plan
  // ranks by time (the price only breaks ties), spot is priced as the other modes are.
  bool spot_by_price = false;

  // Whether `mode` is priced in rates[i]. Outside spot a candidate's hours are the same in
  // every region and its cost (and cost range, commitment and monthly cost) grows with the
  // mode's price alone, so the region where that price is least ranks before every other
  // (RankCandidates keeps only it; the first of equal prices, as the ranking does): only it is
  // priced. Spot is priced in every region unless spot_by_price.
  bool Prices(size_t i, cost::Mode mode) const {
    const std::optional<size_t>& least = cheapest[static_cast<size_t>(mode)];
    return (mode == cost::Mode::kSpot && !spot_by_price) || options->price_dominated_regions ||
           !least || *least == i;
  }

  // Per billing mode, the region (into `rates`) where its price is least, the first of equal
  // prices (FindCheapest); none when no region prices it.
  std::array<std::optional<size_t>, kBillingCount> cheapest{};
  void FindCheapest() {
    for (size_t m = 0; m < kBillingCount; ++m) {
      for (size_t j = 0; j < rates.size(); ++j) {
        if (!rates[j].rates || !rates[j].rates->quotes[m])
          continue;
        const double price = rates[j].rates->quotes[m]->price.amount();
        if (!cheapest[m] || price < rates[*cheapest[m]].rates->quotes[m]->price.amount())
          cheapest[m] = j;
      }
    }
  }
};

// Spot with no reclaim rate: ranks with the default interruption allowance (replacing `jc` and
// `co` with it) and returns the lower bound without interruptions to show the range.
std::optional<Money> ApplySpotAllowance(const PlanOptions& options, const cost::BillingRates& rates,
                                        double work_hours, int instances, cost::CostOptions& co,
                                        Result<cost::JobCostEstimate>& jc) {
  if (co.mode != cost::Mode::kSpot || co.spot.reclaim_rate_per_hour ||
      options.default_spot_release_rate_30d <= 0 || options.default_spot_release_rate_30d >= 1) {
    return std::nullopt;
  }
  cost::CostOptions allow = co;
  allow.spot.reclaim_rate_per_hour = -std::log(1 - options.default_spot_release_rate_30d) / 720;
  Result<cost::JobCostEstimate> ja =
      cost::JobCost(rates, {.work_hours = work_hours, .instances = instances}, allow);
  if (!ja.ok())
    return std::nullopt;
  const Money low = jc->total;
  if (co.explain) {
    ja->notes.push_back(
        "no reclaim rate known: ranked with the default interruption allowance (a 30-day "
        "release rate of " +
        Num(options.default_spot_release_rate_30d * 100) +
        "%, an assumption); without interruptions it is " + jc->total.ToString());
  }
  jc = std::move(ja);
  co = allow;
  return low;
}

// Why `c` breaks the budget (at the workload's confidence when ranges are known), or "".
std::string OverBudget(const Workload& w, const InstanceType& t, const Candidate& base,
                       cost::Mode mode, const Candidate& c, bool per_hour,
                       const std::string& currency) {
  if (!w.constraints.budget || w.constraints.budget->amount <= 0 || per_hour)
    return "";
  const bool ranged = c.ranges && c.ranges->cost_at_confidence > 0;
  const double checked = ranged ? c.ranges->cost_at_confidence : c.cost.total.amount();
  if (checked <= w.constraints.budget->amount)
    return "";
  return std::to_string(base.nodes) + " x " + t.name + " " + std::string(cost::ModeName(mode)) +
         " costs " + c.cost.total.ToString() +
         (ranged ? " (" + currency + " " + Num(c.ranges->cost_at_confidence) + " at p" +
                       std::to_string(std::lround(w.confidence * 100)) + ")"
                 : "") +
         ", over the budget of " + currency + " " + Num(w.constraints.budget->amount);
}

// What one region and billing mode of a candidate are priced with.
struct PriceCase {
  const cost::BillingRates* rates = nullptr;
  std::string region;
  cost::Mode mode = cost::Mode::kPayg;
  double work_hours = 1;  // hours of work (one hour when there is no amount of work)
  bool per_hour = false;  // no amount of work
  bool serving = false;
  bool explain = true;  // the cost's notes (CostOptions::explain)
};

// `base` priced in one region and mode: cost, spot spares, ranges and the monthly cost of a
// service; errors from the cost model.
Result<Candidate> PriceIn(const Workload& w, const InstanceType& t, const Candidate& base,
                          const PriceCase& p, const PlanOptions& options) {
  cost::CostOptions co;
  co.mode = p.mode;
  co.spot = options.spot;
  co.explain = p.explain;
  if (!co.spot.reclaim_rate_per_hour)
    co.spot.reclaim_rate_per_hour = cost::ReclaimRatePerHour(options.market, t.name, p.region);
  // A spot service keeps spare copies for reclaims (SpareInstances).
  const int per_copy = std::max(base.nodes_per_copy, 1);
  const int spare = p.serving && p.mode == cost::Mode::kSpot
                        ? SpareInstances(base.nodes / per_copy) * per_copy
                        : 0;
  const int instances = base.nodes + spare;
  Result<cost::JobCostEstimate> jc =
      cost::JobCost(*p.rates, {.work_hours = p.work_hours, .instances = instances}, co);
  if (!jc.ok())
    return jc.status();
  const std::optional<Money> spot_low =
      ApplySpotAllowance(options, *p.rates, p.work_hours, instances, co, jc);
  Candidate c = base;
  c.spot_cost_low = spot_low;
  if (spare > 0) {
    c.spare_instances = spare;
    c.nodes = instances;
    c.gpus = base.gpus / std::max(base.nodes, 1) * instances;
    c.copies = base.copies + spare / per_copy * base.copies_per_instance_group;
    c.replicas = c.copies;
  }
  c.region = p.region;
  c.billing = p.mode;
  c.job_hours = p.per_hour ? 0 : jc->wall_hours;
  c.cost = std::move(*jc);
  if (c.ranges && !p.per_hour && !p.serving) {
    c.ranges->job_hours.point = c.job_hours;
    c.ranges->cost.point = c.cost.total.amount();
    if (Status s = PriceRanges(*c.ranges, *p.rates, co, p.work_hours, base.nodes,
                               SpotAdviceDesc(options.market, t.name, p.region));
        !s.ok()) {
      return s;
    }
  }
  if (p.serving || w.constraints.long_running) {
    Result<cost::MonthlyCostEstimate> m =
        cost::MonthlyCost(*p.rates, options.ratios.hours_per_month, instances, co, options.ratios);
    if (m.ok())
      c.monthly = *m;
  }
  return c;
}

// The service's monthly cost range: more copies when the engine is slower than predicted, in
// whole instances.
void AddServiceRange(const Workload& w, const Candidate& base, bool serving, Candidate& c) {
  if (!c.ranges || !c.monthly || c.ranges->time.regime == "none")
    return;
  c.ranges->cost = uncertainty::Scale(c.monthly->per_month.amount(), c.ranges->time);
  if (serving && base.estimate.inference && base.estimate.inference->requests_per_s > 0) {
    const double per_instance = c.monthly->per_month.amount() / std::max(c.nodes, 1);
    c.ranges->cost =
        ServiceCostRange(c.ranges->time, *w.inference.PeakRps(),
                         base.estimate.inference->requests_per_s, std::max(base.nodes_per_copy, 1),
                         per_instance, c.billing == cost::Mode::kSpot ? &SpareInstances : nullptr);
  }
}

// Which of one hardware's candidates (every region and mode) a plan can show: per mode the one
// the ranking keeps (RankCandidates: the first that ranks before the others) and, for spot
// ranked at its PAYG cap, the one with the least score at its own price (CheapestSpotAtQuote:
// the first least). In their order.
std::set<size_t> Showable(const Workload& w, const std::vector<Candidate>& hardware) {
  std::map<cost::Mode, size_t> ranked, alternative;
  for (size_t i = 0; i < hardware.size(); ++i) {
    const Candidate& c = hardware[i];
    if (auto [it, fresh] = ranked.try_emplace(c.billing, i);
        !fresh && RanksBefore(w, c, hardware[it->second])) {
      it->second = i;
    }
    if (c.spot_ranked_at_payg > 0) {
      if (auto [it, fresh] = alternative.try_emplace(c.billing, i);
          !fresh && c.score_at_quote < hardware[it->second].score_at_quote) {
        it->second = i;
      }
    }
  }
  std::set<size_t> kept;
  for (const auto& [mode, i] : ranked)
    kept.insert(i);
  for (const auto& [mode, i] : alternative)
    kept.insert(i);
  return kept;
}

// Prices `base` (hardware, layout and estimate filled in) in every allowed region and billing
// mode (Pricing::Prices) and appends the candidates that meet the budget. `hours` is the job's
// length (0 = no amount of work: price one hour and rank by cost per `units_per_hour`). Returns
// whether any candidate met it; otherwise `rejection` says why. `explain`: candidates a plan
// may show, with the costs' notes: only those the ranking or the spot alternative can take;
// without it, a bound's candidates, only compared (every one, without notes).
// A service with a traffic profile: in each region the fleet of least month cost (a committed
// base and an elastic layer following the traffic, serving/fleet_plan.h), priced at the base's
// mode (the elastic layer's when the base is empty) for its quote and notes.
bool PriceFleets(const Workload& w, const InstanceType& t, const Candidate& base,
                 const Pricing& pricing, std::vector<Candidate>& out, std::string& rejection) {
  const PlanOptions& options = *pricing.options;
  const serving::DayDemand need =
      serving::DemandOf(*w.inference.traffic, base.estimate.inference->requests_per_s);
  const serving::FleetShape shape{std::max(base.nodes_per_copy, 1),
                                  serving::LeadTimeHours(w, options, t, base)};
  const serving::MonthCalendar month{options.ratios.hours_per_month};
  const size_t before = out.size();
  for (const RegionRates& rr : pricing.rates) {
    if (!rr.rates) {
      rejection = rr.reason;
      continue;
    }
    const std::optional<serving::FleetPrices> prices =
        serving::FleetPricesIn(*rr.rates, pricing.modes, options.ratios);
    if (!prices) {
      rejection = "no pay-as-you-go price in " + rr.region + " for the elastic layer";
      continue;
    }
    serving::FleetShape region_shape = shape;
    region_shape.min_base_replicas = prices->elastic_billing == Billing::kSpot ? 1 : 0;
    serving::Fleet fleet = serving::ChooseFleet(need, region_shape, *prices, month);
    const PriceCase p{&*rr.rates,
                      rr.region,
                      fleet.base_replicas > 0 ? fleet.base_billing : fleet.elastic_billing,
                      options.ratios.hours_per_month,
                      false,
                      false,
                      true};
    Result<Candidate> c = PriceIn(w, t, base, p, options);
    if (!c.ok()) {
      rejection = c.status().message();
      continue;
    }
    const Money month_cost(fleet.month_cost, c->cost.total.currency());
    c->cost.total = month_cost;
    c->monthly = cost::MonthlyCostEstimate{.mode = c->billing,
                                           .per_month = month_cost,
                                           .utilisation = 1,
                                           .price = c->cost.price,
                                           .notes = {}};
    c->nodes = fleet.PeakInstances();
    c->gpus = base.gpus / std::max(base.nodes, 1) * c->nodes;
    c->spare_instances = 0;
    c->copies = base.copies;
    c->replicas = base.replicas;
    if (c->ranges && c->ranges->time.regime != "none")
      c->ranges->cost = uncertainty::Scale(fleet.month_cost, c->ranges->time);
    if (std::string over = OverBudget(w, t, base, p.mode, *c, false, pricing.currency);
        !over.empty()) {
      rejection = over;
      continue;
    }
    c->cost.notes = {serving::FleetSummary(fleet) + ": " + c->cost.total.ToString() + " per month"};
    c->score = c->score_at_quote = RanksByTime(w) ? HoursForRanking(*c) : fleet.month_cost;
    c->fleet = fleet;
    out.push_back(std::move(*c));
  }
  return out.size() > before;
}

bool PriceCandidate(const Workload& w, const InstanceType& t, const Candidate& base, double hours,
                    double units_per_hour, bool serving, const Pricing& pricing, bool explain,
                    std::vector<Candidate>& out, std::string& rejection) {
  if (serving && w.inference.traffic)
    return PriceFleets(w, t, base, pricing, out, rejection);
  const PlanOptions& options = *pricing.options;
  const bool per_hour = hours <= 0;
  // The objective's score of a candidate ranked at `money`.
  auto score = [&](const Candidate& c, double money) {
    if (RanksByTime(w))
      return per_hour && units_per_hour > 0 ? 1 / units_per_hour : HoursForRanking(c);
    return per_hour && units_per_hour > 0 ? money / units_per_hour * 1e6 : money;
  };
  // One region and mode into `into`, or why not (into `rejection`).
  auto price = [&](PriceCase p, std::vector<Candidate>& into) {
    const cost::BillingRates& rates = *p.rates;
    Result<Candidate> c = PriceIn(w, t, base, p, options);
    if (!c.ok()) {
      rejection = c.status().message();
      return false;
    }
    if (std::string over = OverBudget(w, t, base, p.mode, *c, per_hour, pricing.currency);
        !over.empty()) {
      rejection = over;
      return false;
    }
    AddServiceRange(w, base, serving, *c);
    c->score = c->score_at_quote = score(*c, CostForRanking(*c));
    if (std::optional<cost::BillingRates> capped =
            SpotAtPaygCap(w, options, RanksByTime(w), rates, *c)) {
      p.rates = &*capped;
      if (Result<Candidate> at_cap = PriceIn(w, t, base, p, options); at_cap.ok()) {
        c->spot_ranked_at_payg = rates.payg().price.amount();
        c->score = score(*at_cap, CostForRanking(*at_cap));
      }
    }
    into.push_back(std::move(*c));
    return true;
  };
  // A bound's candidates (!explain) are only compared: all go out as they are.
  std::vector<Candidate> own;
  std::vector<Candidate>& priced = explain ? own : out;
  const size_t before = out.size();
  std::vector<PriceCase> cases;
  for (size_t i = 0; i < pricing.rates.size(); ++i) {
    const RegionRates& rr = pricing.rates[i];
    if (!rr.rates) {
      rejection = rr.reason;
      continue;
    }
    for (cost::Mode mode : pricing.modes) {
      if (!pricing.Prices(i, mode))
        continue;
      // Spot in every region waits for its notes until the regions that can be shown are
      // known (below); a mode priced in one region (Pricing::Prices) gets them now.
      const PriceCase p{&*rr.rates,
                        rr.region,
                        mode,
                        per_hour ? 1.0 : hours,
                        per_hour,
                        serving,
                        explain && (mode != cost::Mode::kSpot || pricing.spot_by_price)};
      if (price(p, priced) && explain)
        cases.push_back(p);
    }
  }
  if (!explain)
    return out.size() > before;
  // The showable get their notes (priced again, unless they have them), in their order; the
  // rest are dropped.
  for (size_t i : Showable(w, priced)) {
    PriceCase p = cases[i];
    if (p.explain) {
      out.push_back(std::move(priced[i]));
      continue;
    }
    p.explain = true;
    price(p, out);
  }
  return !priced.empty();
}

// Adds `base` with no price: its speed is known, so it stays in the plan (ranked by time; under
// a cost objective after every priced candidate), with the cost unknown and how to get it. A
// budget cannot be checked without a price: then it is rejected with the same hint. Returns
// whether it was added.
bool AddUnpriced(const Workload& w, const Candidate& base, double hours, double units_per_hour,
                 bool serving, const std::string& region, std::vector<Candidate>& out,
                 std::string& rejection) {
  const bool per_hour = hours <= 0;
  if (w.constraints.budget && !per_hour) {
    rejection =
        PriceHint(base.instance, region) + "; without a price it cannot be held against the budget";
    return false;
  }
  Candidate c = base;
  c.region = region;
  c.billing = cost::Mode::kPayg;
  c.price_known = false;
  c.price_hint = PriceHint(base.instance, region);
  c.job_hours = per_hour ? 0 : hours;
  c.cost.wall_hours = c.job_hours;
  // A service has no job length: fewer GPUs for the same rate is the best guess of cheaper.
  c.score = serving ? base.gpus : per_hour && units_per_hour > 0 ? 1 / units_per_hour : c.job_hours;
  out.push_back(std::move(c));
  return true;
}

// The candidates of one plan: for each instance type, its regional prices, then per node count
// the layout (one search per distinct hardware) and the priced candidates, or why there are none.
class CandidateSearch {
 public:
  CandidateSearch(const Workload& w, const ModelArch& arch, const Catalog& catalog,
                  const Calibration& cal, const PlanOptions& options,
                  const std::vector<cost::Mode>& modes, Plan& plan)
      : w_(w),
        arch_(arch),
        catalog_(catalog),
        cal_(cal),
        options_(options),
        modes_(modes),
        plan_(plan),
        currency_(w.constraints.budget ? w.constraints.budget->currency : "CNY"),
        serving_(w.IsServing()),
        bar_(w, options.top_n),
        pins_(perf::PinsFrom(w)),
        memo_(w, arch, pins_) {
    // Prices grouped by instance once, so each lookup scans only its own rows.
    for (const Price& p : catalog.prices)
      price_book_[p.instance].prices.push_back(p);
  }

  const std::string& currency() const { return currency_; }
  const LatencyMisses& latency_misses() const { return latency_misses_; }
  std::vector<Candidate> TakeCandidates() { return std::move(all_); }

  // Adds `t`'s candidates, or its rejection with the reason (Finish). Training on searched
  // layouts waits for Run, which searches every type's hardware together.
  void AddInstance(const InstanceType& t) {
    if (!options_.only_instance.empty() &&
        NormalizeInstanceName(t.name) != NormalizeInstanceName(options_.only_instance)) {
      return;
    }
    const Gpu* g = catalog_.FindGpu(t.gpu);
    if (!g)
      return;
    TypeRun& run = runs_.emplace_back();
    run.t = &t;
    run.g = g;
    if (std::string why = Filter(w_, catalog_, cal_, t, *g); !why.empty()) {
      run.early = why;
      return;
    }
    run.pricing = PriceRegions(t);
    run.unpriced = Unpriced(run.pricing);
    if (w_.task == Task::kRendering || w_.task == Task::kHpc) {
      run.any = AddByCapability(t, *g, run.pricing, run.unpriced, run.rejection);
      return;
    }
    const std::vector<int> node_counts = NodeCounts(w_, t, options_);
    if (node_counts.empty()) {
      run.early = std::to_string(t.whole_gpus()) +
                  " GPUs per instance, over constraints.max_gpus (" +
                  std::to_string(w_.constraints.max_gpus.value_or(0)) + ")";
      return;
    }
    for (int nodes : node_counts) {
      Result<perf::Hardware> hw = NodeHardware(run, nodes);
      if (!hw.ok())
        break;
      if (Deferred()) {
        jobs_.push_back({&run, nodes, *hw});
        continue;
      }
      if (AddNodes(run, nodes, *hw, false))
        break;
    }
  }

  // Searches the deferred hardware, fastest first (GPUs x peak): the first candidates found
  // are the likeliest to be shown, and set the bar (ShowBar) that lets the layout search stop
  // early on hardware that cannot be.
  void Run() {
    auto speed = [&](const Job& j) {
      return j.hw.Gpus() * j.run->g->Tflops(RunsAs(*j.run->g, w_.precision)).value_or(0);
    };
    std::stable_sort(jobs_.begin(), jobs_.end(),
                     [&](const Job& a, const Job& b) { return speed(a) > speed(b); });
    for (const Job& j : jobs_)
      AddNodes(*j.run, j.nodes, j.hw, options_.prune_hardware);
    jobs_.clear();
  }

  // Each type without a candidate into the plan's rejections, in catalog order.
  void Finish() {
    for (const TypeRun& run : runs_) {
      if (!run.early.empty())
        plan_.rejected.push_back({run.t->name, run.early});
      else if (!run.any)
        plan_.rejected.push_back({run.t->name, !run.cut.empty()        ? run.cut
                                               : run.rejection.empty() ? "no priced region"
                                                                       : run.rejection});
    }
    runs_.clear();
  }

 private:
  // One instance type's state while its hardware is searched.
  struct TypeRun {
    const InstanceType* t = nullptr;
    const Gpu* g = nullptr;
    Pricing pricing;
    bool unpriced = false;
    bool any = false;       // a candidate was added
    std::string early;      // rejected before any hardware was searched
    std::string rejection;  // why not, from the largest node count that said why
    int rejection_nodes = 0;
    // Some node count fits but cannot be shown: that, at its least floor, says why the type is
    // not in the plan better than what other node counts lack.
    std::string cut;
    double cut_floor_s = 0;
    void Cut(double floor_step_s, std::string why) {
      if (cut.empty() || floor_step_s < cut_floor_s) {
        cut = std::move(why);
        cut_floor_s = floor_step_s;
      }
    }
    void Reject(int nodes, std::string why) {
      if (!why.empty() && nodes >= rejection_nodes) {
        rejection = std::move(why);
        rejection_nodes = nodes;
      }
    }
  };
  struct Job {
    TypeRun* run;
    int nodes;
    perf::Hardware hw;
  };

  // Training layouts are searched in Run (not a fixed layout, not inference).
  bool Deferred() const { return w_.IsTraining() && !options_.fixed_layout; }

  // The hardware of `nodes` x `run.t`, or (recorded in `run`) why more nodes cannot be built.
  Result<perf::Hardware> NodeHardware(TypeRun& run, int nodes) {
    const InstanceType& t = *run.t;
    Result<perf::Hardware> hw = perf::HardwareFor(catalog_, t, nodes);
    if (!hw.ok()) {
      run.Reject(nodes, hw.status().message());
      return hw;
    }
    // A training layout fits at the workload's confidence, with the model's memory error.
    if (w_.IsTraining())
      hw->memory_error_ratio = uncertainty::MemoryErrorRatio(options_.uncertainty, w_, arch_, *hw);
    if ((w_.constraints.need_rdma || !w_.IsTraining()) && nodes > 1 && !t.rdma) {
      std::string why = t.family + " has no eRDMA and the constraints need RDMA between nodes";
      run.Reject(nodes, why);
      return Status::Unsupported(why);
    }
    return hw;
  }

  // `t`'s rates in every region the workload allows (or that has a price), each with why not.
  Pricing PriceRegions(const InstanceType& t) {
    const Catalog& prices = price_book_[t.name];
    std::vector<std::string> regions = w_.constraints.regions;
    if (regions.empty()) {
      std::set<std::string> seen;
      for (const Price& p : prices.prices)
        seen.insert(p.region);
      regions.assign(seen.begin(), seen.end());
    }
    Pricing pricing{{}, modes_, currency_, &options_};
    for (const std::string& region : regions) {
      RegionRates rr{region, std::nullopt, ""};
      const cost::Availability avail =
          cost::CheckAvailability(prices, options_.market, t.name, region);
      Result<cost::BillingRates> rates = cost::ResolveRates(
          prices, {.instance = t.name, .region = region, .zone = "", .billing = Billing::kPayg},
          options_.ratios, options_.today);
      if (!avail.available) {
        rr.reason = avail.reason;
        // Without stock data "not sold" only means "no price here": unknown, not excluded.
        rr.price_unknown = !avail.stock_checked && prices.prices.empty();
      } else if (!rates.ok()) {
        rr.reason =
            rates.status().message() +
            " (bring a price with 'gpuplan prices refresh', 'prices import' or 'prices add')";
        rr.price_unknown = true;
      } else if (CurrencyName(rates->currency()) != currency_) {
        rr.reason = "priced in " + std::string(CurrencyName(rates->currency())) + " in " + region +
                    ", the plan's currency is " + currency_ + " (set constraints.budget.currency)";
      } else {
        rr.rates = *rates;
      }
      pricing.rates.push_back(std::move(rr));
    }
    pricing.FindCheapest();
    pricing.spot_by_price =
        RanksByTime(w_) && !options_.spot.spot_ratio &&
        (options_.spot.reclaim_rate_per_hour ||
         std::none_of(regions.begin(), regions.end(), [&](const std::string& region) {
           return cost::ReclaimRatePerHour(options_.market, t.name, region).has_value();
         }));
    return pricing;
  }

  // Unpriced: no region has a price, and either none was asked (no rows anywhere) or an asked
  // one simply lacks a price.
  static bool Unpriced(const Pricing& pricing) {
    return std::none_of(pricing.rates.begin(), pricing.rates.end(),
                        [](const RegionRates& r) { return r.rates.has_value(); }) &&
           (pricing.rates.empty() ||
            std::any_of(pricing.rates.begin(), pricing.rates.end(),
                        [](const RegionRates& r) { return r.price_unknown; }));
  }

  // Where an unpriced candidate would run: the asked region, or any.
  std::string UnpricedRegion() const {
    return w_.constraints.regions.empty() ? "" : w_.constraints.regions.front();
  }

  Candidate Base(const InstanceType& t, const Gpu& g) const {
    Candidate base;
    base.instance = t.name;
    base.family = t.family;
    base.gpu = g.name;
    return base;
  }

  // Rendering and FP64 HPC have no speed model: whole instances are ranked by price per unit of
  // the capability that matters (FP32 TFLOPS for rendering, FP64 TFLOPS for HPC).
  bool AddByCapability(const InstanceType& t, const Gpu& g, const Pricing& pricing, bool unpriced,
                       std::string& rejection) {
    const Precision key = w_.task == Task::kHpc ? Precision::kFp64 : Precision::kFp32;
    Candidate base = Base(t, g);
    base.gpus = t.whole_gpus();
    const double capacity = g.Tflops(key).value_or(0) * std::max(t.gpu_count, 0.0);
    if (capacity > 0 && unpriced)
      return AddUnpriced(w_, base, 0, capacity, false, UnpricedRegion(), all_, rejection);
    return capacity > 0 &&
           PriceCandidate(w_, t, base, 0, capacity, false, pricing, true, all_, rejection);
  }

  // The layout for `hw` (of `t`): searched once per distinct hardware, or the fixed one
  // evaluated. A search `matters` cut off for one type is searched again for another type with
  // the same hardware when its floor matters to that one (its prices differ).
  const LayoutResult& LayoutFor(const perf::Hardware& hw, const InstanceType& t,
                                const perf::CutOff& cut_off) {
    auto [it, fresh] = searched_.try_emplace(KeyOf(hw));
    if (!fresh &&
        !(it->second.cut_off && (!cut_off.matters || cut_off.matters(it->second.floor_step_s))))
      return it->second;
    if (fresh && !options_.fixed_layout) {
      if (auto twin = host_free_.find(HostFreeKey(hw)); twin != host_free_.end()) {
        it->second = *twin->second;
        return it->second;
      }
    }
    if (!options_.fixed_layout && w_.IsTraining()) {
      it->second =
          SearchTrainingLayout(w_, arch_, hw, cal_, pins_, cut_off, memo_, &plan_.evaluated);
      if (HostFree(it->second))
        host_free_.try_emplace(HostFreeKey(hw), &it->second);
      return it->second;
    }
    if (!options_.fixed_layout) {
      const ServingSetup s = serving::SearchServing(w_, arch_, hw, cal_, &plan_.evaluated);
      if (s.MissedTargets()) {
        latency_misses_.Add(s, t.name);
        missed_targets_.insert(HostFreeKey(hw));
      }
      it->second = AsLayoutResult(s);
      host_free_.try_emplace(HostFreeKey(hw), &it->second);  // serving never uses host RAM
      return it->second;
    }
    Result<perf::Estimate> e = perf::EstimateRun(w_, arch_, hw, *options_.fixed_layout, cal_);
    ++plan_.evaluated;
    if (!e.ok()) {
      it->second.reason = e.status().message();
    } else {
      it->second.min_memory_gib = e->memory.per_gpu_gib;
      it->second.ok = e->memory.fits;
      it->second.layout = *options_.fixed_layout;
      it->second.estimate = *e;
    }
    return it->second;
  }

  // Whether `hw`'s layout is known (searched, or a host-free twin's).
  bool Searched(const perf::Hardware& hw) const {
    return searched_.count(KeyOf(hw)) > 0 || host_free_.count(HostFreeKey(hw)) > 0;
  }

  // Whether a training search's answer is the same whatever the host's RAM: a layout found
  // without memory savers (so the savers' ladder never ran), holding nothing in host RAM (no
  // offload, no paged optimizer states), and not cut off (a cut-off's floor may be a saver's).
  bool HostFree(const LayoutResult& r) const {
    return r.ok && !r.cut_off && !r.memory_savers && r.layout.offload == perf::Offload::kNone &&
           !r.layout.activation_offload && w_.optimizer != Optimizer::kPagedAdamw8bit;
  }

  // Why `lr` does not fit `nodes` x `t`.
  std::string NoFitReason(const LayoutResult& lr, const InstanceType& t, const Gpu& g, int nodes,
                          const perf::Hardware& hw) const {
    std::string why = MemoryReason(lr, t, g, nodes, hw, w_.memory_confidence);
    // Each data-parallel replica needs a sequence of the global batch: beyond global_batch
    // replicas more GPUs cannot shard the states further, which the user may not expect.
    if (w_.IsTraining() && hw.Gpus() > w_.global_batch) {
      why += "; global_batch " + std::to_string(w_.global_batch) + " limits data parallel to " +
             std::to_string(w_.global_batch) + " replicas at micro-batch 1 (" +
             std::to_string(hw.Gpus()) + " GPUs were tried): raise global_batch";
    }
    return why;
  }

  // How many instances the work takes and for how long: a training job's own; a service's
  // copies for its request rate (one month); batch inference over its samples or tokens.
  struct Sizing {
    int instances = 0;
    int copies = 0;
    double hours = 0;
  };
  std::optional<Sizing> Size(const InstanceType& t, int nodes, const LayoutResult& lr,
                             const perf::Hardware& hw, std::string& rejection) const {
    const perf::Estimate& e = lr.estimate;
    Sizing z{nodes, w_.IsTraining() ? 1 : serving::CopiesPerGroup(lr.layout), e.job.hours};
    if (w_.task != Task::kInference || !e.inference)
      return z;
    if (serving_ && e.inference->requests_per_s > 0) {
      // Independent copies: enough groups of `nodes` instances for the rate.
      const int groups =
          static_cast<int>(std::ceil(*w_.inference.PeakRps() / e.inference->requests_per_s - 1e-9));
      z.instances = groups * nodes;
      z.copies = groups * serving::CopiesPerGroup(lr.layout);
      if (w_.constraints.max_gpus && z.instances * t.whole_gpus() > *w_.constraints.max_gpus) {
        rejection = "needs " + std::to_string(z.instances) + " instances (" +
                    std::to_string(z.instances * t.whole_gpus()) + " GPUs) for " +
                    Num(*w_.inference.PeakRps()) + " requests/s, over constraints.max_gpus";
        return std::nullopt;
      }
      z.hours = options_.ratios.hours_per_month;  // a service: one month
    } else if (w_.samples && e.inference->requests_per_s > 0) {
      // Batch inference over a dataset: sequences (images, documents) per second.
      z.hours = *w_.samples * w_.epochs / e.inference->requests_per_s / 3600;
    } else if (w_.tokens && e.inference->tokens_per_s_per_gpu > 0) {
      z.hours = *w_.tokens / (e.inference->tokens_per_s_per_gpu * hw.Gpus()) / 3600;
    }
    return z;
  }

  // The candidates of `nodes` x `run.t` on `hw` into all_ (and the bar), or why none; with
  // `prune`, the layout search stops once the hardware cannot be shown. Returns whether more
  // nodes cannot help (serving: a copy that fits, or fits but misses its targets).
  bool AddNodes(TypeRun& run, int nodes, const perf::Hardware& hw, bool prune) {
    perf::CutOff cut_off;
    // A type priced in no usable region is rejected for that once any layout fits (and for its
    // memory when none does): the search need not go past the first fit.
    const bool priceless =
        !run.unpriced && std::none_of(run.pricing.rates.begin(), run.pricing.rates.end(),
                                      [](const RegionRates& r) { return r.rates.has_value(); });
    if (prune && priceless) {
      cut_off.matters = [](double) { return false; };
    } else if (prune) {
      cut_off.matters = [&](double floor_step_s) {
        return CouldShow(run, nodes, hw, floor_step_s);
      };
    }
    // No layout is faster than the step's FLOPs at the model's best rates: hardware that could
    // not be shown even at that floor needs no search.
    if (prune && !priceless && !Searched(hw)) {
      const double floor_step_s = perf::StepFloorSeconds(w_, arch_, hw, cal_);
      if (floor_step_s > 0 && !CouldShow(run, nodes, hw, floor_step_s)) {
        run.Cut(floor_step_s, CutOffReason(run, nodes, hw, floor_step_s));
        return false;
      }
    }
    const LayoutResult& lr = LayoutFor(hw, *run.t, cut_off);
    if (lr.cut_off && priceless) {
      run.Reject(nodes, run.pricing.rates.back().reason);  // as PriceCandidate says it
      return false;
    }
    if (lr.cut_off) {
      run.Cut(lr.floor_step_s, CutOffReason(run, nodes, hw, lr.floor_step_s));
      return false;
    }
    if (!lr.ok) {
      run.Reject(nodes, NoFitReason(lr, *run.t, *run.g, nodes, hw));
      // More nodes may shard it enough; a copy that fits but is too slow only gets slower.
      return missed_targets_.count(HostFreeKey(hw)) > 0;
    }
    std::string why;
    const size_t before = all_.size();
    run.any |= Offer(run, nodes, hw, lr, true, all_, why);
    run.Reject(nodes, std::move(why));
    bar_.Add(std::span<const Candidate>(all_).subspan(before));
    // Inference: a copy fits on this many nodes; more only add communication.
    return !w_.IsTraining();
  }

  // Whether `nodes` x `run.t` could be shown if its step took `floor_step_s`: its candidates
  // priced at that step (every measure grows with the step time) against the bar.
  bool CouldShow(const TypeRun& run, int nodes, const perf::Hardware& hw, double floor_step_s) {
    if (bar_.Open())
      return true;  // pricing the floor cannot change the answer
    LayoutResult floor;
    floor.ok = true;
    floor.layout.dp = hw.Gpus();
    floor.estimate.time.step_s = floor_step_s;
    floor.estimate.job = perf::TrainingJob(w_, hw.Gpus(), floor_step_s);
    floor.estimate.throughput.tokens_per_s_per_gpu =
        static_cast<double>(w_.global_batch) * w_.seq_len / hw.Gpus() / floor_step_s;
    std::vector<Candidate> floors;
    std::string ignored;
    // Not priced even at the floor (a deadline, budget or price missed): searched to the end,
    // so that its rejection says what it takes.
    return !Offer(run, nodes, hw, floor, false, floors, ignored) || bar_.CouldShow(floors);
  }

  // Why hardware whose search was cut off is not in the plan.
  // An unpriced type says so first: under a cost objective that, not its speed, is what keeps
  // it out (unpriced types rank after every priced one), and a price is what the user can add.
  std::string CutOffReason(const TypeRun& run, int nodes, const perf::Hardware& hw,
                           double floor_step_s) const {
    const double hours = perf::TrainingJob(w_, hw.Gpus(), floor_step_s).hours;
    const std::string unpriced =
        !run.unpriced ? ""
        : RanksByTime(w_)
            ? "price unknown (bring one with 'gpuplan prices refresh', 'prices import' or "
              "'prices add'); "
            : "price unknown, so it ranks after every priced type (bring a price with 'gpuplan "
              "prices refresh', 'prices import' or 'prices add'); ";
    return unpriced + std::to_string(nodes) + " node(s): every layout takes at least " +
           Num(floor_step_s) + " s per step" + (hours > 0 ? " (" + Num(hours) + " h)" : "") +
           ": it can enter neither the " + std::to_string(options_.top_n) +
           " shown nor the time-cost front";
  }

  // `lr` on `nodes` x `run.t` priced into `out` (sized, held to the deadline and budget), or
  // why not. Returns whether a candidate was added. `explain`: the costs' notes.
  bool Offer(const TypeRun& run, int nodes, const perf::Hardware& hw, const LayoutResult& lr,
             bool explain, std::vector<Candidate>& out, std::string& rejection) const {
    const InstanceType& t = *run.t;
    const perf::Estimate& e = lr.estimate;
    const std::optional<Sizing> z = Size(t, nodes, lr, hw, rejection);
    if (!z)
      return false;
    const double hours = z->hours;
    const bool per_hour = hours <= 0;  // no amount of work: price one hour, rank by cost/token
    std::optional<CandidateRanges> ranges;
    if (!options_.uncertainty.regimes.empty()) {
      ranges = TimeRanges(options_.uncertainty, w_, arch_, hw, e, per_hour || serving_ ? 0 : hours);
    }
    const double hours_at_confidence =
        ranges && !serving_ ? ranges->job_hours_at_confidence : hours;
    if (w_.constraints.deadline_hours && !per_hour &&
        hours_at_confidence > *w_.constraints.deadline_hours) {
      rejection = std::to_string(nodes) + " node(s): takes " + Num(hours) + " h" +
                  (ranges ? " (p" + std::to_string(std::lround(w_.confidence * 100)) + " " +
                                Num(hours_at_confidence) + " h)"
                          : "") +
                  ", deadline " + Num(*w_.constraints.deadline_hours) + " h";
      return false;
    }
    Candidate base = Base(t, *run.g);
    base.nodes = z->instances;
    base.gpus = z->instances * t.whole_gpus();
    base.replicas = z->copies;
    base.copies = z->copies;
    base.gpus_per_copy =
        w_.IsTraining() ? base.gpus : hw.Gpus() / serving::CopiesPerGroup(lr.layout);
    base.nodes_per_copy = w_.IsTraining() ? z->instances : nodes;
    base.copies_per_instance_group = w_.IsTraining() ? 1 : serving::CopiesPerGroup(lr.layout);
    base.layout = lr.layout;
    if (const Framework* f = FrameworkFor(w_.frameworks, lr.layout); f && w_.IsTraining())
      base.framework = f->name;
    if (w_.IsTraining())
      base.attention_kernel = AttentionKernelName(AttentionKernelFor(w_.frameworks, lr.layout));
    base.estimate = e;
    base.ranges = ranges;
    const double tokens_per_hour =
        (e.inference ? e.inference->tokens_per_s_per_gpu : e.throughput.tokens_per_s_per_gpu) *
        base.gpus * 3600;
    return run.unpriced ? AddUnpriced(w_, base, per_hour ? 0 : hours, tokens_per_hour, serving_,
                                      UnpricedRegion(), out, rejection)
                        : PriceCandidate(w_, t, base, per_hour ? 0 : hours, tokens_per_hour,
                                         serving_, run.pricing, explain, out, rejection);
  }

  const Workload& w_;
  const ModelArch& arch_;
  const Catalog& catalog_;
  const Calibration& cal_;
  const PlanOptions& options_;
  const std::vector<cost::Mode>& modes_;
  Plan& plan_;
  const std::string currency_;
  const bool serving_;
  std::map<std::string, Catalog> price_book_;
  std::map<HardwareKey, LayoutResult> searched_;
  std::map<HardwareKey, const LayoutResult*> host_free_;  // into searched_ (a map: stable)
  std::deque<TypeRun> runs_;  // a deque: jobs_ point into it as it grows
  std::vector<Job> jobs_;     // training hardware, searched in Run
  std::vector<Candidate> all_;
  ShowBar bar_;
  LatencyMisses latency_misses_;
  std::set<HardwareKey> missed_targets_;  // fits, but misses the latency targets
  const perf::LayoutPins pins_;           // the workload's, for every layout search
  perf::LayoutMemo memo_;                 // what the layout searches share (after pins_)
};

// The best region per (instance, nodes, billing), ranked by the objective: of regions that
// score alike (the same hours under a time objective), the cheapest. (Sorted by index: a plan
// has thousands of candidates of 2 KB each.)
std::vector<Candidate> RankCandidates(const Workload& w, std::vector<Candidate> all) {
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) {
    const Candidate &a = all[i], &b = all[j];
    if (std::tie(a.instance, a.nodes, a.billing) != std::tie(b.instance, b.nodes, b.billing))
      return std::tie(a.instance, a.nodes, a.billing) < std::tie(b.instance, b.nodes, b.billing);
    return RanksBefore(w, a, b);
  });
  std::vector<size_t> unique;
  for (size_t i : order) {
    if (!unique.empty()) {
      const Candidate &kept = all[unique.back()], &c = all[i];
      if (kept.instance == c.instance && kept.nodes == c.nodes && kept.billing == c.billing)
        continue;
    }
    unique.push_back(i);
  }
  std::stable_sort(unique.begin(), unique.end(),
                   [&](size_t i, size_t j) { return RanksBefore(w, all[i], all[j]); });
  std::vector<Candidate> ranked;
  ranked.reserve(unique.size());
  for (size_t i : unique)
    ranked.push_back(std::move(all[i]));
  return ranked;
}

// The Pareto front on (hours, cost) of the priced candidates: sweep by hours, keep strictly
// cheaper. Marks them in `ranked` too.
std::vector<Candidate> ParetoFront(std::vector<Candidate>& ranked) {
  std::vector<size_t> order(ranked.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& x = ranked[a];
    const auto& y = ranked[b];
    const double mx = x.cost.total.amount(), my = y.cost.total.amount();
    return std::tie(x.job_hours, mx) < std::tie(y.job_hours, my);
  });
  std::vector<Candidate> front;
  double cheapest = kInf;
  for (size_t i : order) {
    if (!ranked[i].price_known)
      continue;  // no cost: not on a time-vs-cost front
    const double money = FrontMoney(ranked[i]);
    if (money < cheapest) {
      cheapest = money;
      ranked[i].pareto = true;
      front.push_back(ranked[i]);
    }
  }
  return front;
}

// The advice, storage and image of a shown candidate.
void Annotate(const Workload& w, const ModelArch& arch, const Catalog& catalog,
              const Calibration& cal, const PlanOptions& options, const LatencyTargets& targets,
              Candidate& c) {
  const bool serving = w.IsServing();
  const InstanceType* t = catalog.FindInstance(c.instance);
  const Gpu& g = catalog.GpuOf(*t);
  rules::Context ctx;
  ctx.workload = &w;
  ctx.instance = t;
  ctx.gpu = &g;
  ctx.architecture = catalog.ArchitectureOf(g);
  ctx.calibration = &cal;
  ctx.ratios = &options.ratios;
  ctx.storage = &catalog.storage;
  // Copies of a service are independent: only the instances one copy spans talk to each other.
  const bool copies_independent = !w.IsTraining();
  ctx.nodes = copies_independent ? c.nodes_per_copy : c.nodes;
  ctx.tp = c.layout.tp;
  ctx.pp = c.layout.pp;
  ctx.dp = c.layout.dp;
  ctx.billing = c.billing;
  ctx.job_hours = c.job_hours;
  ctx.step_s = w.IsTraining() ? c.estimate.time.step_s : 0;
  ctx.dp_comm_s = c.estimate.time.breakdown.dp_comm;
  ctx.tp_comm_s = c.estimate.time.breakdown.tp_comm;
  ctx.memory_per_gpu_gib = c.estimate.memory.per_gpu_gib;
  ctx.memory_capacity_gib = c.estimate.memory.capacity_gib;
  ctx.memory_p90_gib = c.ranges && w.IsTraining() ? c.ranges->memory_gib.p90 : 0;
  ctx.samples_per_s = c.estimate.throughput.samples_per_s_per_gpu * c.gpus;
  ctx.tokens_per_s = c.estimate.throughput.tokens_per_s_per_gpu * c.gpus;
  ctx.vocab = arch.vocab;
  ctx.modality = arch.gen.modality;
  ctx.checkpoint_interval_hours = c.cost.checkpoint_interval_hours;
  ctx.spot_cost_lower_bound = c.cost.lower_bound || c.spot_cost_low.has_value();
  c.advice = rules::Check(ctx);
  c.storage = ChooseStorage(w, *t, ctx.nodes, rules::RequiredReadMbs(ctx), cal, catalog.storage);
  if (copies_independent) {
    // Each instance keeps the weights on its own disk, plus room for the engine's caches.
    const double weights_gib = c.estimate.memory.breakdown.weights * c.gpus_per_copy;
    const double need_gib = std::ceil(weights_gib + cal.serving_disk_extra_gib);
    if (c.storage.kind != "local_nvme" && c.storage.size_gib < need_gib) {
      c.storage.size_gib = need_gib;
      c.storage.why = c.storage.kind + " of " + Num(need_gib) +
                      " GiB on each instance: the model's " + Num(weights_gib) +
                      " GiB of weights plus " + Num(cal.serving_disk_extra_gib) +
                      " GiB for the image and the engine's caches";
    }
  }
  if (serving && c.copies > 1) {
    c.advice.push_back(
        {"service-load-balancer", rules::Severity::kInfo,
         std::to_string(c.copies) + " independent model copies on " + std::to_string(c.nodes) +
             " instances: put a load balancer (ALB/NLB, or the engine's router) in front; "
             "no network between copies is needed"});
  }
  if (c.spare_instances > 0) {
    c.advice.push_back({"spot-service-spare-copies", rules::Severity::kWarning,
                        "spot for a service: " + std::to_string(c.spare_instances) +
                            " spare instance(s) included (one per ten, at least one) so a "
                            "reclaim (5-minute notice, "
                            "about 15 minutes to replace) keeps the rate; requests in flight on "
                            "a reclaimed copy fail "
                            "and must be retried"});
  }
  if (!c.price_known)
    c.advice.push_back({"price-unknown", rules::Severity::kWarning, c.price_hint});
  if (std::optional<rules::Advice> a = LatencyAdvice(w, targets, cal, c))
    c.advice.push_back(std::move(*a));
  if (c.spot_ranked_at_payg > 0)
    c.advice.push_back({"spot-price-not-ranked", rules::Severity::kWarning, SpotNotRankedWhy(c)});
  c.image = ChooseImage(catalog.ArchitectureOf(g), g, *t);
}

// What the top pick's speed rests on: memory and layout for training, copies and latency for
// serving, price per TFLOPS for rendering and HPC.
std::string WhyFits(const Workload& w, const Catalog& catalog, const Candidate& best) {
  if (w.IsTraining()) {
    const perf::Estimate::Memory& m = best.estimate.memory;
    // The headroom the fit test left at the workload's memory confidence (the model's memory
    // error).
    const std::string headroom =
        m.checked_gib != m.per_gpu_gib
            ? " (" + Num(m.checked_gib) + " at p" +
                  std::to_string(std::lround(w.memory_confidence * 100)) +
                  " of the model's memory error: " + Num(m.capacity_gib - m.checked_gib) +
                  " GiB headroom)"
            : "";
    std::string why = "fits at " + Num(m.per_gpu_gib) + " of " + Num(m.capacity_gib) +
                      " GiB per GPU" + headroom + " with " + perf::DescribeLayout(best.layout) +
                      ", " + Num(best.estimate.time.step_s) + " s per step, MFU " +
                      Num(best.estimate.throughput.mfu * 100) + "% (" +
                      std::string(best.estimate.mfu_basis) + ")";
    const bool pinned_savers = w.offload || w.optimizer_in_backward || w.activation_offload;
    if (!pinned_savers && (best.layout.offload != perf::Offload::kNone ||
                           best.layout.optimizer_in_backward || best.layout.activation_offload)) {
      why += "; nothing fits without these memory savers, so they were tried (host RAM " +
             Num(best.estimate.memory.host_gib) + " of " +
             Num(best.estimate.memory.host_capacity_gib) + " GiB usable per node)";
    }
    if (std::string framework = FrameworkWhy(w, best.layout); !framework.empty())
      why += "; " + framework;
    return why;
  }
  if (best.estimate.inference) {
    const perf::InferenceTimes& inf = *best.estimate.inference;
    if (w.inference.output_tokens > 0) {
      return std::to_string(best.copies) + " model copies of " +
             std::to_string(best.gpus_per_copy) +
             " GPU(s) each (tp=" + std::to_string(best.layout.tp) +
             (best.layout.pp > 1 ? " pp=" + std::to_string(best.layout.pp) : "") +
             (best.layout.ep > 1 ? " ep=" + std::to_string(best.layout.ep) +
                                       ": experts over every GPU, attention data parallel over " +
                                       std::to_string(best.layout.dp) + " ranks"
                                 : "") +
             ") on " + std::to_string(best.nodes) + " instance(s); each instance serves " +
             Num(inf.requests_per_s / std::max(best.nodes_per_copy, 1)) + " requests/s at batch " +
             std::to_string(inf.batch) + (best.layout.ep > 1 ? " per rank" : " per copy") +
             " (TTFT " + Num(inf.ttft_ms) + " ms, TPOT " + Num(inf.tpot_ms) + " ms, " +
             Num(best.estimate.memory.per_gpu_gib) + " of " +
             Num(best.estimate.memory.capacity_gib) + " GiB per GPU)";
    }
    return "each instance processes " + Num(inf.requests_per_s) + " samples/s at batch " +
           std::to_string(inf.batch) + " (" + Num(inf.ttft_ms) + " ms per batch, " +
           Num(best.estimate.memory.per_gpu_gib) + " GiB per GPU)";
  }
  const InstanceType* t = catalog.FindInstance(best.instance);
  return "the lowest price per " + std::string(w.task == Task::kHpc ? "FP64" : "FP32") +
         " TFLOPS among types that can " + (w.task == Task::kHpc ? "run FP64 work" : "render") +
         " (" + Num(t ? t->gpu_count : 0) + " x " + best.gpu + ")";
}

// A shown job that nearly ties the top pick on the objective and is far better on the other
// measure, which a user would rather take: a score (what the ranking compares: cost, or hours,
// at the workload's confidence) within 2% of the pick's and at least 20% fewer hours (under a
// cost objective) or 20% less cost (under a time objective); "" when none is. Spot ranked at
// its PAYG cap is left out: its own price cannot be relied on. The first such in rank order
// (its index into `at`).
std::string NearTie(const Workload& w, const std::vector<Candidate>& shown, size_t& at) {
  constexpr double kTie = 0.02, kBetter = 0.2;
  const Candidate& best = shown[0];
  const auto job = [](const Candidate& c) {
    return c.price_known && !c.monthly && c.job_hours > 0 && c.cost.total.amount() > 0 &&
           c.score > 0 && c.spot_ranked_at_payg == 0;
  };
  if (!job(best))
    return "";
  const bool by_time = RanksByTime(w);
  const double best_hours = best.job_hours, best_cost = best.cost.total.amount();
  for (size_t i = 1; i < shown.size(); ++i) {
    const Candidate& c = shown[i];
    if (!job(c) || c.cost.total.currency() != best.cost.total.currency() ||
        c.score > best.score * (1 + kTie)) {
      continue;
    }
    const double hours = c.job_hours, money = c.cost.total.amount();
    if (by_time ? money > best_cost * (1 - kBetter) : hours > best_hours * (1 - kBetter))
      continue;
    at = i;
    const std::string what = std::to_string(c.nodes) + " x " + c.instance + " " +
                             std::string(cost::ModeName(c.billing)) + " in " + c.region;
    if (by_time) {
      return "near tie: " + what + " takes " + Num(hours) + " h instead of " + Num(best_hours) +
             " h for " + c.cost.total.ToString() + " (" + Num(100 * (1 - money / best_cost)) +
             "% less)";
    }
    const double more = money - best_cost;
    return "near tie: " + what + " finishes in " + Num(hours) + " h instead of " + Num(best_hours) +
           " h for " + c.cost.total.ToString() + " (" +
           (std::abs(more) < 0.005 ? std::string("the same cost")
                                   : Money(std::abs(more), best.cost.total.currency()).ToString() +
                                         (more > 0 ? " more" : " less")) +
           ")";
  }
  return "";
}

// The top pick's one-paragraph why: what, where, billed how, why it fits, what it costs, how
// sure, a near tie worth taking instead, and the runner-up.
std::string WhyBest(const Workload& w, const Catalog& catalog, const std::vector<Candidate>& shown,
                    const LatencyTargets& targets, bool spot_alternative,
                    const std::string& currency) {
  const Candidate& best = shown[0];
  std::string why = std::to_string(best.nodes) + " x " + best.instance + " (" +
                    std::to_string(best.gpus) + " x " + best.gpu + ") in " +
                    (best.region.empty() ? "any region" : best.region) + ", " +
                    (!best.price_known ? std::string("price unknown")
                     : best.fleet      ? serving::FleetSummary(*best.fleet)
                                       : std::string(cost::ModeName(best.billing))) +
                    ": ";
  why += WhyFits(w, catalog, best);
  if (best.estimate.inference && (targets.ttft_ms || targets.tpot_ms))
    why += "; within " + TargetsText(targets);
  why += !best.price_known ? (best.job_hours > 0 ? "; " + Num(best.job_hours) + " h" : "") + "; " +
                                 best.price_hint
         : best.monthly       ? "; " + best.monthly->per_month.ToString() + " per month"
         : best.job_hours > 0 ? "; " + Num(best.job_hours) + " h for " + best.cost.total.ToString()
                              : "; " + best.cost.total.ToString() + " per hour";
  if (std::string sure = ConfidenceWhy(w, best, currency); !sure.empty())
    why += "; " + sure;
  if (best.spot_ranked_at_payg > 0) {
    why += "; ranked as if spot cost its PAYG cap " +
           Money(best.spot_ranked_at_payg, best.cost.total.currency()).ToString() +
           "/h: its own spot price cannot be relied on (see the spot-price-not-ranked advice)";
  } else if (spot_alternative) {
    why += "; spot looks cheaper only at a price that cannot be relied on (see the notes)";
  }
  size_t tie_at = 0;
  if (std::string tie = NearTie(w, shown, tie_at); !tie.empty())
    why += "; " + tie;
  if (shown.size() > 1 && tie_at != 1) {
    const Candidate& next = shown[1];
    why += "; next best " + std::to_string(next.nodes) + " x " + next.instance + " " +
           (next.price_known ? std::string(cost::ModeName(next.billing)) : "price unknown") + " (" +
           (next.job_hours > 0 ? Num(next.job_hours) + " h, " : "") +
           (!next.price_known ? "cost unknown"
            : next.monthly    ? next.monthly->per_month.ToString() + " per month"
                              : next.cost.total.ToString()) +
           ")";
  }
  return why;
}

// The plan's notes: how old the prices are, unpriced candidates, vendors, and what the numbers
// do not cover.
void AddNotes(const Workload& w, bool no_nvidia, const std::string& currency,
              const LatencyMisses& misses, Plan& plan) {
  // "As of" is the date of the oldest price the shown candidates rest on, not today.
  for (const Candidate& c : plan.candidates) {
    const cost::PriceQuote* q = PriceUsed(c);
    if (!q || q->as_of.empty())
      continue;
    if (plan.prices_as_of.empty() || q->as_of < plan.prices_as_of) {
      plan.prices_as_of = q->as_of;
      plan.prices_age_days = q->age_days;
    }
  }
  std::string as_of =
      plan.prices_as_of.empty() ? "none known" : "as of " + plan.prices_as_of + " (the oldest used";
  if (!plan.prices_as_of.empty()) {
    as_of += plan.prices_age_days ? ", " + std::to_string(*plan.prices_age_days) + " days old" : "";
    as_of += plan.prices_age_days && *plan.prices_age_days > kStalePriceDays
                 ? "; stale: refresh with 'gpuplan prices refresh --region R')"
                 : ")";
  }
  plan.notes.push_back("prices: " + as_of +
                       "; costs are instance-only (disks and bandwidth extra), in " + currency);
  const size_t unpriced =
      static_cast<size_t>(std::count_if(plan.candidates.begin(), plan.candidates.end(),
                                        [](const Candidate& c) { return !c.price_known; }));
  if (unpriced > 0) {
    plan.notes.push_back(
        std::to_string(unpriced) + " shown candidate(s) have no known price" +
        (RanksByTime(w) ? " (ranked by time with the rest)"
                        : " (ranked by time after every priced one)") +
        ": 'gpuplan prices refresh --region R', 'gpuplan prices import FILE' or "
        "'gpuplan prices add TYPE AMOUNT --region R --billing payg' brings a price");
  }
  if (plan.spot_alternative)
    plan.notes.push_back(SpotAlternativeNote(*plan.spot_alternative, plan.candidates.front()));
  if (no_nvidia)
    plan.notes.push_back(kNoNvidiaNote);
  if (std::string note = DefaultTargetsNote(plan.latency); !note.empty())
    plan.notes.push_back(note);

  if (plan.candidates.empty()) {
    if (std::string note = NoSetupMeetsNote(w, plan.latency, misses); !note.empty())
      plan.notes.push_back(note);
  }
  const bool serving = w.IsServing();
  if (w.task == Task::kRendering || w.task == Task::kHpc) {
    plan.notes.push_back(
        std::string("gpuplan has no speed model for ") + std::string(TaskName(w.task)) +
        ": types that can do it are ranked by price per " +
        (w.task == Task::kHpc ? "FP64" : "FP32") + " TFLOPS; benchmark your own scene or solver");
  } else if (!w.TotalTokens() && !w.samples && !serving) {
    plan.notes.push_back(
        "no amount of work given (tokens or samples): costs are per hour and ranking is by cost "
        "per million tokens");
  }
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

// The limits and modes a plan assumes when the workload gives none: the node limit and the
// billing modes (for the "Assumed:" list).
void AssumePlanLimits(const Workload& w, const PlanOptions& options,
                      const std::vector<Billing>& modes, std::vector<Assumption>& assumed) {
  if (w.task == Task::kRendering || w.task == Task::kHpc || w.unset.Count() == 0)
    return;  // a workload built in code gives everything
  if (w.unset.confidence && (w.constraints.deadline_hours || w.constraints.budget)) {
    assumed.push_back({"confidence", Num(w.confidence),
                       "the deadline and budget are checked at p" +
                           std::to_string(std::lround(w.confidence * 100)) +
                           " of the model's time and cost error"});
  }
  if (!w.constraints.max_nodes && !w.constraints.max_gpus) {
    assumed.push_back({"constraints.max_nodes", std::to_string(options.default_max_nodes),
                       "gpuplan's node limit when neither max_nodes nor max_gpus is given; node "
                       "counts are tried in powers of two up to it"});
  }
  if (w.constraints.billing.empty() && !modes.empty()) {
    std::string names;
    for (Billing b : modes)
      names += (names.empty() ? "" : ", ") + std::string(BillingName(b));
    assumed.push_back({"constraints.billing", "[" + names + "]",
                       w.IsService() ? "a service is priced pay-as-you-go and by subscription, "
                                       "never spot unless billing lists it"
                                     : "a job is priced pay-as-you-go and spot"});
  }
}

Result<Plan> MakePlan(const Workload& given, const ModelArch& arch, const Catalog& catalog,
                      const Calibration& cal, const PlanOptions& options) {
  // What the workload leaves unset is derived from the work (gpuplan/defaults.h); the plan
  // lists it.
  std::vector<Assumption> assumed;
  const Workload asked = DeriveDefaults(given, arch, cal, &assumed);
  if (Status s = ValidateWorkload(asked); !s.ok())
    return s;
  if (Status s = CheckRegions(asked.constraints.regions, catalog, options.market); !s.ok())
    return s;
  if (Status s = CheckConstraintNames(asked.constraints, catalog); !s.ok())
    return s;
  Plan plan;
  plan.assumptions = std::move(assumed);
  AssumePlanLimits(asked, options, AllowedModes(asked), plan.assumptions);
  const bool no_nvidia = VendorExcluded(asked.constraints, GpuVendor::kNvidia);
  if (std::string why = EveryVendorExcluded(asked.constraints, catalog); !why.empty()) {
    plan.rejected.push_back({"*", why});
    if (no_nvidia)
      plan.notes.push_back(kNoNvidiaNote);
    return plan;
  }
  const std::vector<Billing> modes = AllowedModes(asked);
  if (modes.empty()) {
    plan.rejected.push_back({"*", "constraints.billing allows no mode gpuplan can price (" +
                                      BillingChoices(BillingUse::kCosted) + ")"});
    return plan;
  }
  // The serving search and everything after it hold the workload to the targets in force.
  plan.latency = ServingTargets(asked, cal);
  Workload w = asked;
  if (w.task == Task::kInference) {
    w.inference.ttft_ms = plan.latency.ttft_ms;
    w.inference.tpot_ms = plan.latency.tpot_ms;
  }
  CandidateSearch search(w, arch, catalog, cal, options, modes, plan);
  for (const InstanceType& t : catalog.instances)
    search.AddInstance(t);
  search.Run();
  search.Finish();
  std::vector<Candidate> all = search.TakeCandidates();
  std::optional<Candidate> spot = CheapestSpotAtQuote(all);
  std::vector<Candidate> ranked = RankCandidates(w, std::move(all));
  // Shown only when it would have come first at its own price.
  if (spot && !ranked.empty() && spot->score_at_quote < ranked.front().score)
    plan.spot_alternative = std::move(spot);
  plan.pareto = ParetoFront(ranked);
  if (ranked.size() > static_cast<size_t>(options.top_n))
    ranked.resize(static_cast<size_t>(options.top_n));
  for (Candidate& c : ranked)
    Annotate(w, arch, catalog, cal, options, plan.latency, c);
  plan.candidates = std::move(ranked);
  if (!plan.candidates.empty()) {
    plan.candidates[0].why = WhyBest(w, catalog, plan.candidates, plan.latency,
                                     plan.spot_alternative.has_value(), search.currency());
  }
  AddNotes(w, no_nvidia, search.currency(), search.latency_misses(), plan);
  if (std::string note = serving::FleetNote(w, options); !note.empty())
    plan.notes.push_back(note);
  // An exact tie at the top is decided by a rule, which the plan states.
  if (plan.candidates.size() > 1) {
    const Candidate &a = plan.candidates[0], &b = plan.candidates[1];
    if (a.score == b.score && a.price_known == b.price_known) {
      plan.notes.push_back("tie: " + std::to_string(a.nodes) + " x " + a.instance + " and " +
                           std::to_string(b.nodes) + " x " + b.instance +
                           " score alike on the objective; " + kTieBreakRule);
    }
  }
  return plan;
}

}  // namespace gpuplan::planner
