// The search behind `gpuplan plan` (include/gpuplan/plan.h).
//
// For each instance type: filter by the workload's constraints (with a reason), then for each
// node count build the hardware, search parallel layouts with the performance model (memory fit
// first, then the fastest step), then price every allowed billing mode in every allowed region
// with the cost model. Instance types that share hardware (same GPU, GPUs per node, links and
// network) share one layout search, and each type's regional rates are resolved once. Within a
// layout search, more ZeRO sharding or recomputation is tried only while the largest micro-batch
// still does not reach the global batch (beyond that they only add time).
#include "gpuplan/plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "core/provision.h"
#include "core/plan_ranges.h"
#include "core/strings.h"

namespace gpuplan::planner {
namespace {

using strings::Num;
constexpr double kInf = std::numeric_limits<double>::infinity();

struct LayoutResult {
  bool ok = false;
  perf::Layout layout;
  perf::Estimate estimate;
  std::string reason;  // why nothing fits or works
  double min_memory_gib = kInf;  // smallest per-GPU memory over the layouts tried
};

struct HardwareKey {
  std::string gpu;
  int gpus_per_node, nodes;
  perf::LinkKind link;
  double intra_gbs, inter_gbps, memory;
  bool rdma;
  auto Tie() const {
    return std::tie(gpu, gpus_per_node, nodes, link, intra_gbs, inter_gbps, memory, rdma);
  }
  bool operator<(const HardwareKey& o) const { return Tie() < o.Tie(); }
};

HardwareKey KeyOf(const perf::Hardware& hw) {
  return {hw.gpu->name,   hw.gpus_per_node,  hw.nodes,       hw.intra_link,
          hw.intra_gbs,   hw.inter_node_gbps, hw.gpu_memory_gib, hw.rdma};
}

std::vector<cost::Mode> AllowedModes(const Workload& w) {
  std::vector<cost::Mode> modes;
  const auto& billing = w.constraints.billing;
  auto allowed = [&](Billing b) {
    return billing.empty() ? (b == Billing::kPayg || b == Billing::kSpot)
                           : std::find(billing.begin(), billing.end(), b) != billing.end();
  };
  if (allowed(Billing::kPayg)) modes.push_back(cost::Mode::kPayg);
  if (allowed(Billing::kSpot) && !w.constraints.no_spot) modes.push_back(cost::Mode::kSpot);
  if (allowed(Billing::kSubscriptionMonth)) modes.push_back(cost::Mode::kSubscriptionMonth);
  if (allowed(Billing::kSubscriptionYear)) modes.push_back(cost::Mode::kSubscriptionYear);
  return modes;
}

bool ListedIn(const std::vector<std::string>& list, const std::string& value) {
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& x) { return strings::Lower(x) == strings::Lower(value); });
}

// Why `t` cannot run `w` at all, or "" when it may.
std::string Filter(const Workload& w, const Catalog& catalog, const InstanceType& t, const Gpu& g) {
  const Constraints& c = w.constraints;
  if (!c.include_families.empty() && !ListedIn(c.include_families, t.family)) {
    return "family " + t.family + " not in constraints.include_families";
  }
  if (ListedIn(c.exclude_families, t.family)) return "family " + t.family + " excluded by constraints";
  auto gpu_listed = [&](const std::vector<std::string>& list) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& name) {
      const Gpu* x = catalog.FindGpu(name);
      return x && x->name == g.name;
    });
  };
  if (!c.include_gpus.empty() && !gpu_listed(c.include_gpus)) return g.name + " not in constraints.include_gpus";
  if (gpu_listed(c.exclude_gpus)) return g.name + " excluded by constraints";
  if (t.status == Lifecycle::kRetired) return t.family + " is retired (no longer sold)";
  if (c.min_gpu_memory_gib && t.gpu_memory_gib < *c.min_gpu_memory_gib) {
    return Num(t.gpu_memory_gib) + " GiB per GPU, constraints ask for " + Num(*c.min_gpu_memory_gib);
  }
  if (t.vgpu() && w.task != Task::kRendering) {
    return "vGPU slice (" + Num(t.gpu_count) + " of a " + g.name + "): CUDA jobs need whole GPUs";
  }
  if (w.task == Task::kRendering || c.need_graphics) {
    // Graphics APIs need a GRID/vWS licence or a graphics-capable card: data-centre compute
    // GPUs (A100, H20, A30, V100, P100) have no display engines for rendering APIs.
    const bool compute_only = g.architecture == "Volta" || g.architecture == "Pascal" ||
                              g.name.rfind("A100", 0) == 0 || g.name.rfind("A30", 0) == 0 ||
                              g.name.rfind("H", 0) == 0;
    if (compute_only) return g.name + " is a compute GPU without graphics API support (no RT cores, no vWS licence)";
  }
  if (c.need_fp64 || w.task == Task::kHpc) {
    const double fp64 = g.Tflops(Precision::kFp64).value_or(0);
    if (fp64 < 5) {
      return g.name + " has " + (fp64 > 0 ? Num(fp64) + " FP64 TFLOPS" : "no usable FP64") +
             "; FP64 work needs A100/A30/V100/P100-class GPUs";
    }
  }
  if (w.task != Task::kRendering && w.task != Task::kHpc && !g.Tflops(w.precision)) {
    return g.name + " has no " + std::string(PrecisionName(w.precision)) + " units" +
           (w.precision == Precision::kBf16 ? " (set precision: fp16 to use it)" : "");
  }
  if (t.arm && w.IsTraining()) return "ARM host (" + t.family + "): x86 training stacks do not run";
  return "";
}

// Node counts worth trying for `t`: powers of two (and the exact limit) within the limits.
std::vector<int> NodeCounts(const Workload& w, const InstanceType& t, const PlanOptions& o) {
  const int per_node = t.whole_gpus();
  int max_nodes = w.constraints.max_nodes.value_or(o.default_max_nodes);
  if (w.constraints.max_gpus) max_nodes = std::min(max_nodes, *w.constraints.max_gpus / std::max(per_node, 1));
  if (!w.IsTraining()) max_nodes = std::min(max_nodes, 1);  // serving scales by replicas instead
  std::vector<int> out;
  for (int n = 1; n <= max_nodes; n *= 2) out.push_back(n);
  return out;
}

// The fastest layout that fits, searching tp inside a node, pp across nodes, ZeRO stages and
// recomputation, each with the largest micro-batch that fits.
LayoutResult SearchTrainingLayout(const Workload& w, const ModelArch& arch, const perf::Hardware& hw,
                                  const Calibration& cal, int* evaluated) {
  LayoutResult best;
  const int gpus = hw.Gpus();
  for (int tp = 1; tp <= std::min(hw.gpus_per_node, 8); tp *= 2) {
    if (hw.gpus_per_node % tp != 0 || (arch.heads > 0 && arch.heads % tp != 0)) continue;
    if (tp > 1 && !arch.IsTransformer()) continue;
    for (int pp = 1; pp <= std::max(1, hw.nodes); pp *= 2) {
      if ((gpus / tp) % pp != 0 || (pp > 1 && pp > arch.layers)) continue;
      const int dp = gpus / (tp * pp);
      // Each data-parallel replica needs at least one sequence of the global batch.
      if (dp > w.global_batch) continue;
      const int limit = std::max(1, w.global_batch / dp);
      for (int zero = 0; zero <= (dp > 1 ? 3 : 0); ++zero) {
        bool full_batch_fits = false;
        for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
          if (w.recompute && rc != *w.recompute) continue;
          perf::Layout layout;
          layout.tp = tp;
          layout.pp = pp;
          layout.dp = dp;
          layout.zero = zero;
          layout.recompute = rc;
          layout.sequence_parallel = tp > 1;
          layout.flash_attention = w.flash_attention;
          if (w.micro_batch) {
            layout.micro_batch = *w.micro_batch;
          } else {
            const int mb = perf::MaxMicroBatch(w, arch, hw, layout, cal, limit);
            *evaluated += 1 + static_cast<int>(std::log2(limit + 1));
            layout.micro_batch = std::max(mb, 1);
          }
          Result<perf::Estimate> e = perf::EstimateRun(w, arch, hw, layout, cal);
          ++*evaluated;
          if (!e.ok()) {
            if (best.reason.empty()) best.reason = e.status().message();
            continue;
          }
          best.min_memory_gib = std::min(best.min_memory_gib, e->memory.per_gpu_gib);
          if (!e->memory.fits) continue;
          if (!best.ok || e->time.step_s < best.estimate.time.step_s) {
            best.ok = true;
            best.layout = layout;
            best.estimate = *e;
          }
          if (layout.micro_batch >= limit) {
            full_batch_fits = true;
            break;  // More recomputation only adds time.
          }
        }
        if (full_batch_fits) break;  // More sharding only adds communication.
      }
    }
  }
  return best;
}

// Inference: the whole instance serves; tp over its GPUs as memory needs, the batch (when not
// given) the largest that meets the latency targets.
LayoutResult SearchInferenceLayout(const Workload& w, const ModelArch& arch, const perf::Hardware& hw,
                                   const Calibration& cal, int* evaluated) {
  LayoutResult best;
  const InferenceSpec& spec = w.inference;
  for (int tp = 1; tp <= hw.Gpus(); tp *= 2) {
    if (hw.Gpus() % tp != 0 || (arch.heads > 0 && arch.heads % tp != 0)) continue;
    std::vector<int> batches;
    if (spec.batch) {
      batches = {*spec.batch};
    } else {
      for (int b = 1; b <= 512; b *= 2) batches.push_back(b);
    }
    for (int batch : batches) {
      Workload wb = w;
      wb.inference.batch = batch;
      perf::Layout layout;
      layout.tp = tp;
      layout.dp = hw.Gpus() / tp;
      layout.micro_batch = batch;
      Result<perf::Estimate> e = perf::EstimateRun(wb, arch, hw, layout, cal);
      ++*evaluated;
      if (!e.ok()) {
        if (best.reason.empty()) best.reason = e.status().message();
        break;
      }
      best.min_memory_gib = std::min(best.min_memory_gib, e->memory.per_gpu_gib);
      if (!e->memory.fits) break;  // Larger batches need more KV cache.
      const perf::InferenceTimes& inf = *e->inference;
      if ((spec.ttft_ms && inf.ttft_ms > *spec.ttft_ms) || (spec.tpot_ms && inf.tpot_ms > *spec.tpot_ms)) {
        if (best.reason.empty() || !best.ok) {
          best.reason = "at batch " + std::to_string(batch) + " TTFT " + Num(inf.ttft_ms) +
                        " ms / TPOT " + Num(inf.tpot_ms) + " ms miss the targets";
        }
        break;
      }
      if (!best.ok || inf.tokens_per_s_per_gpu > best.estimate.inference->tokens_per_s_per_gpu) {
        best.ok = true;
        best.layout = layout;
        best.estimate = *e;
      }
    }
    if (best.ok) break;  // The smallest tp that fits wastes the least on communication.
  }
  return best;
}

std::string MemoryReason(const LayoutResult& r, const InstanceType& t, const Gpu& g, int nodes) {
  if (r.min_memory_gib < kInf) {
    return "needs " + Num(r.min_memory_gib) + " GiB per GPU even at its best layout on " +
           std::to_string(nodes) + " node(s), " + g.name + " has " + Num(t.gpu_memory_gib) +
           " GiB";
  }
  return r.reason.empty() ? "no layout works" : r.reason;
}


// One region's rates for an instance type, or why it cannot be bought or priced there.
struct RegionRates {
  std::string region;
  std::optional<cost::BillingRates> rates;
  std::string reason;
};

// Whether the objective ranks by time first (else by cost first).
bool RanksByTime(const Workload& w) {
  return w.objective == Objective::kTime || w.objective == Objective::kTimeWithinBudget;
}

// Everything pricing needs that is the same for every candidate of one instance type.
struct Pricing {
  std::vector<RegionRates> rates;
  std::vector<cost::Mode> modes;
  std::string currency;
  const PlanOptions* options = nullptr;
};

// Prices `base` (hardware, layout and estimate filled in) in every allowed region and billing
// mode and appends the candidates that meet the budget. `hours` is the job's length (0 = no
// amount of work: price one hour and rank by cost per `units_per_hour`). Returns whether any
// candidate was added; otherwise `rejection` says why.
bool PriceCandidate(const Workload& w, const InstanceType& t, const Candidate& base, double hours,
                    double units_per_hour, bool serving, const Pricing& pricing,
                    std::vector<Candidate>& out, std::string& rejection) {
  const PlanOptions& options = *pricing.options;
  const bool per_hour = hours <= 0;
  const double work_hours = per_hour ? 1.0 : hours;
  bool any = false;
  for (const RegionRates& rr : pricing.rates) {
    const std::string& region = rr.region;
    if (!rr.rates) {
      rejection = rr.reason;
      continue;
    }
    const cost::BillingRates* rates = &*rr.rates;
    for (cost::Mode mode : pricing.modes) {
      cost::CostOptions co;
      co.mode = mode;
      co.spot = options.spot;
      if (!co.spot.reclaim_rate_per_hour) {
        co.spot.reclaim_rate_per_hour = cost::ReclaimRatePerHour(options.market, t.name, region);
      }
      Result<cost::JobCostEstimate> jc =
          cost::JobCost(*rates, {.work_hours = work_hours, .instances = base.nodes}, co);
      if (!jc.ok()) {
        rejection = jc.status().message();
        continue;
      }
      Candidate c = base;
      c.region = region;
      c.billing = mode;
      c.cost = *jc;
      c.job_hours = per_hour ? 0 : jc->wall_hours;
      if (c.ranges && !per_hour && !serving) {
        c.ranges->job_hours.point = c.job_hours;
        c.ranges->cost.point = c.cost.total.amount();
        if (Status s = PriceRanges(*c.ranges, *rates, co, work_hours, base.nodes,
                                   SpotAdviceDesc(options.market, t.name, region));
            !s.ok()) {
          rejection = s.message();
          continue;
        }
      }
      if (serving || w.constraints.long_running) {
        Result<cost::MonthlyCostEstimate> m =
            cost::MonthlyCost(*rates, options.ratios.hours_per_month, base.nodes, co, options.ratios);
        if (m.ok()) c.monthly = *m;
      }
      if (w.constraints.budget && w.constraints.budget->amount > 0 && !per_hour &&
          (c.ranges && c.ranges->cost_at_confidence > 0 ? c.ranges->cost_at_confidence
                                                         : c.cost.total.amount()) > w.constraints.budget->amount) {
        rejection = std::to_string(base.nodes) + " x " + t.name + " " + std::string(cost::ModeName(mode)) +
                    " costs " + c.cost.total.ToString() +
                    (c.ranges && c.ranges->cost_at_confidence > 0 ? " (" + pricing.currency + " " + Num(c.ranges->cost_at_confidence) + " at p" +
                                    std::to_string(std::lround(w.confidence * 100)) + ")"
                              : "") +
                    ", over the budget of " + pricing.currency + " " + Num(w.constraints.budget->amount);
        continue;
      }
      if (c.ranges && c.monthly && c.ranges->time.regime != "none") {
        // A service: more replicas when the engine is slower than predicted.
        c.ranges->cost = uncertainty::Scale(c.monthly->per_month.amount(), c.ranges->time);
      }
      const double money = CostForRanking(c);
      const double cost_score = per_hour && units_per_hour > 0 ? money / units_per_hour * 1e6 : money;
      const double time_score = per_hour && units_per_hour > 0 ? 1 / units_per_hour : HoursForRanking(c);
      const bool time_first = RanksByTime(w);
      c.score = time_first ? time_score : cost_score;
      out.push_back(std::move(c));
      any = true;
    }
  }
  return any;
}

}  // namespace

Result<ModelArch> PlanModel(const Workload& w, const ModelZoo& zoo) {
  if ((w.task == Task::kRendering || w.task == Task::kHpc) && w.model_name.empty() && !w.inline_arch) {
    ModelArch none;
    none.name = "none";
    none.kind = ModelKind::kOther;
    return none;
  }
  return ResolveModel(w, zoo);
}

Result<Plan> MakePlan(const Workload& w, const ModelArch& arch, const Catalog& catalog,
                      const Calibration& cal, const PlanOptions& options) {
  if (Status s = ValidateWorkload(w); !s.ok()) return s;
  Plan plan;
  const std::vector<cost::Mode> modes = AllowedModes(w);
  if (modes.empty()) {
    plan.rejected.push_back({"*", "constraints.billing allows no mode gpuplan can price (payg, spot, subscription)"});
    return plan;
  }
  const std::string currency = w.constraints.budget ? w.constraints.budget->currency : "CNY";
  const bool serving = w.task == Task::kInference && w.inference.requests_per_s.has_value();
  const std::optional<double> total_tokens = w.TotalTokens();

  // Prices grouped by instance once, so each lookup scans only its own rows.
  std::map<std::string, Catalog> price_book;
  for (const Price& p : catalog.prices) price_book[p.instance].prices.push_back(p);

  std::map<HardwareKey, LayoutResult> searched;
  std::vector<Candidate> all;
  for (const InstanceType& t : catalog.instances) {
    if (!options.only_instance.empty() && strings::Lower(t.name) != strings::Lower(options.only_instance) &&
        strings::Lower(t.name) != "ecs." + strings::Lower(options.only_instance)) {
      continue;
    }
    const Gpu* g = catalog.FindGpu(t.gpu);
    if (!g) continue;
    if (std::string why = Filter(w, catalog, t, *g); !why.empty()) {
      plan.rejected.push_back({t.name, why});
      continue;
    }
    const Catalog& prices = price_book[t.name];
    std::vector<std::string> regions = w.constraints.regions;
    if (regions.empty()) {
      std::set<std::string> seen;
      for (const Price& p : prices.prices) seen.insert(p.region);
      regions.assign(seen.begin(), seen.end());
    }
    Pricing pricing{{}, modes, currency, &options};
    for (const std::string& region : regions) {
      RegionRates rr{region, std::nullopt, ""};
      const cost::Availability avail = cost::CheckAvailability(prices, options.market, t.name, region);
      Result<cost::BillingRates> rates = cost::ResolveRates(
          prices, {.instance = t.name, .region = region, .zone = "", .billing = Billing::kPayg},
          options.ratios, options.today);
      if (!avail.available) {
        rr.reason = avail.reason;
      } else if (!rates.ok()) {
        rr.reason = rates.status().message() + " (bring a price with 'gpuplan prices refresh' or 'prices import')";
      } else if (CurrencyName(rates->currency()) != currency) {
        rr.reason = "priced in " + std::string(CurrencyName(rates->currency())) + " in " + region +
                    ", the plan's currency is " + currency + " (set constraints.budget.currency)";
      } else {
        rr.rates = *rates;
      }
      pricing.rates.push_back(std::move(rr));
    }
    std::string rejection;
    bool any = false;
    if (w.task == Task::kRendering || w.task == Task::kHpc) {
      // No speed model for rendering or FP64 HPC: rank whole instances by price per unit of
      // the capability that matters (FP32 TFLOPS for rendering, FP64 TFLOPS for HPC).
      const Precision key = w.task == Task::kHpc ? Precision::kFp64 : Precision::kFp32;
      Candidate base;
      base.instance = t.name;
      base.family = t.family;
      base.gpu = g->name;
      base.gpus = t.whole_gpus();
      const double capacity = g->Tflops(key).value_or(0) * std::max(t.gpu_count, 0.0);
      any = capacity > 0 && PriceCandidate(w, t, base, 0, capacity, false, pricing, all, rejection);
      if (!any) plan.rejected.push_back({t.name, rejection.empty() ? "no priced region" : rejection});
      continue;
    }
    const std::vector<int> node_counts = NodeCounts(w, t, options);
    if (node_counts.empty()) {
      plan.rejected.push_back({t.name, std::to_string(t.whole_gpus()) + " GPUs per instance, over constraints.max_gpus (" +
                                           std::to_string(w.constraints.max_gpus.value_or(0)) + ")"});
      continue;
    }
    for (int nodes : node_counts) {
      Result<perf::Hardware> hw = perf::HardwareFor(catalog, t, nodes);
      if (!hw.ok()) {
        rejection = hw.status().message();
        break;
      }
      if (w.constraints.need_rdma && nodes > 1 && !t.rdma) {
        rejection = t.family + " has no eRDMA and the constraints need RDMA between nodes";
        break;
      }
      auto [it, fresh] = searched.try_emplace(KeyOf(*hw));
      if (fresh) {
        if (options.fixed_layout) {
          Result<perf::Estimate> e = perf::EstimateRun(w, arch, *hw, *options.fixed_layout, cal);
          ++plan.evaluated;
          if (!e.ok()) {
            it->second.reason = e.status().message();
          } else {
            it->second.min_memory_gib = e->memory.per_gpu_gib;
            it->second.ok = e->memory.fits;
            it->second.layout = *options.fixed_layout;
            it->second.estimate = *e;
          }
        } else {
          it->second = w.IsTraining() ? SearchTrainingLayout(w, arch, *hw, cal, &plan.evaluated)
                                      : SearchInferenceLayout(w, arch, *hw, cal, &plan.evaluated);
        }
      }
      const LayoutResult& lr = it->second;
      if (!lr.ok) {
        rejection = MemoryReason(lr, t, *g, nodes);
        continue;  // More nodes may shard it enough.
      }
      const perf::Estimate& e = lr.estimate;
      // Wall-clock hours and instances needed.
      int instances = nodes;
      int replicas = 1;
      double hours = e.job.hours;
      if (w.task == Task::kInference && e.inference) {
        if (serving && e.inference->requests_per_s > 0) {
          replicas = static_cast<int>(std::ceil(*w.inference.requests_per_s / e.inference->requests_per_s));
          instances = replicas;
          if (w.constraints.max_gpus && instances * t.whole_gpus() > *w.constraints.max_gpus) {
            rejection = "needs " + std::to_string(instances) + " instances (" +
                        std::to_string(instances * t.whole_gpus()) + " GPUs) for " +
                        Num(*w.inference.requests_per_s) + " requests/s, over constraints.max_gpus";
            continue;
          }
          hours = 730;  // a service: one month
        } else if (w.samples && e.inference->requests_per_s > 0) {
          // Batch inference over a dataset: sequences (images, documents) per second.
          hours = *w.samples * w.epochs / e.inference->requests_per_s / 3600;
        } else if (w.tokens && e.inference->tokens_per_s_per_gpu > 0) {
          hours = *w.tokens / (e.inference->tokens_per_s_per_gpu * hw->Gpus()) / 3600;
        }
      }
      const bool per_hour = hours <= 0;  // no amount of work: price one hour, rank by cost/token
      std::optional<CandidateRanges> ranges;
      if (!options.uncertainty.regimes.empty()) {
        ranges = TimeRanges(options.uncertainty, w, arch, *hw, e, per_hour || serving ? 0 : hours);
      }
      const double hours_at_confidence = ranges && !serving ? ranges->job_hours_at_confidence : hours;
      if (w.constraints.deadline_hours && !per_hour && hours_at_confidence > *w.constraints.deadline_hours) {
        rejection = std::to_string(nodes) + " node(s): takes " + Num(hours) + " h" +
                    (ranges ? " (p" + std::to_string(std::lround(w.confidence * 100)) + " " +
                                  Num(hours_at_confidence) + " h)"
                            : "") +
                    ", deadline " + Num(*w.constraints.deadline_hours) + " h";
        continue;
      }
      Candidate base;
      base.instance = t.name;
      base.family = t.family;
      base.gpu = g->name;
      base.nodes = instances;
      base.gpus = instances * t.whole_gpus();
      base.replicas = replicas;
      base.layout = lr.layout;
      base.estimate = e;
      base.ranges = ranges;
      const double tokens_per_hour =
          (e.inference ? e.inference->tokens_per_s_per_gpu : e.throughput.tokens_per_s_per_gpu) *
          base.gpus * 3600;
      any |= PriceCandidate(w, t, base, per_hour ? 0 : hours, tokens_per_hour, serving, pricing, all, rejection);
    }
    if (!any) plan.rejected.push_back({t.name, rejection.empty() ? "no priced region" : rejection});
  }

  // Keep the cheapest region per (instance, nodes, billing), then rank.
  std::stable_sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.instance, a.nodes, a.billing, a.score) < std::tie(b.instance, b.nodes, b.billing, b.score);
  });
  std::vector<Candidate> unique;
  for (Candidate& c : all) {
    if (!unique.empty() && unique.back().instance == c.instance && unique.back().nodes == c.nodes &&
        unique.back().billing == c.billing) {
      continue;
    }
    unique.push_back(std::move(c));
  }
  const bool time_first = RanksByTime(w);
  std::stable_sort(unique.begin(), unique.end(), [&](const Candidate& a, const Candidate& b) {
    const double ta = a.job_hours, tb = b.job_hours;
    const double ma = a.cost.total.amount(), mb = b.cost.total.amount();
    if (a.score != b.score) return a.score < b.score;
    if (time_first ? ma != mb : ta != tb) return time_first ? ma < mb : ta < tb;
    return std::tie(a.instance, a.nodes) < std::tie(b.instance, b.nodes);
  });
  // Pareto front on (hours, cost): sweep by hours, keep strictly cheaper.
  std::vector<size_t> order(unique.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& x = unique[a];
    const auto& y = unique[b];
    const double mx = x.cost.total.amount(), my = y.cost.total.amount();
    return std::tie(x.job_hours, mx) < std::tie(y.job_hours, my);
  });
  double cheapest = kInf;
  for (size_t i : order) {
    const double money = unique[i].monthly ? unique[i].monthly->per_month.amount() : unique[i].cost.total.amount();
    if (money < cheapest) {
      cheapest = money;
      unique[i].pareto = true;
      plan.pareto.push_back(unique[i]);
    }
  }
  if (unique.size() > static_cast<size_t>(options.top_n)) unique.resize(static_cast<size_t>(options.top_n));
  for (Candidate& c : unique) {
    const InstanceType* t = catalog.FindInstance(c.instance);
    const Gpu& g = catalog.GpuOf(*t);
    rules::Context ctx;
    ctx.workload = &w;
    ctx.instance = t;
    ctx.gpu = &g;
    ctx.nodes = c.nodes;
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
    ctx.samples_per_s = c.estimate.throughput.samples_per_s_per_gpu * c.gpus;
    ctx.tokens_per_s = c.estimate.throughput.tokens_per_s_per_gpu * c.gpus;
    ctx.vocab = arch.vocab;
    ctx.checkpoint_interval_hours = c.cost.checkpoint_interval_hours;
    ctx.spot_cost_lower_bound = c.cost.lower_bound;
    c.advice = rules::Check(ctx);
    c.storage = ChooseStorage(w, *t, c.nodes, rules::RequiredReadMbs(ctx));
    c.image = ChooseImage(g, *t);
  }
  plan.candidates = std::move(unique);
  if (!plan.candidates.empty()) {
    const Candidate& best = plan.candidates[0];
    std::string why = std::to_string(best.nodes) + " x " + best.instance + " (" +
                      std::to_string(best.gpus) + " x " + best.gpu + ") in " + best.region + ", " +
                      std::string(cost::ModeName(best.billing)) + ": ";
    if (w.IsTraining()) {
      why += "fits at " + Num(best.estimate.memory.per_gpu_gib) + " of " + Num(best.estimate.memory.capacity_gib) +
             " GiB per GPU with tp=" + std::to_string(best.layout.tp) + " pp=" + std::to_string(best.layout.pp) +
             " dp=" + std::to_string(best.layout.dp) + " ZeRO-" + std::to_string(best.layout.zero) +
             ", micro-batch " + std::to_string(best.layout.micro_batch) + ", MFU " +
             Num(best.estimate.throughput.mfu * 100) + "%";
    } else if (best.estimate.inference) {
      const perf::InferenceTimes& inf = *best.estimate.inference;
      if (w.inference.output_tokens > 0) {
        why += "each instance serves " + Num(inf.requests_per_s) + " requests/s at batch " +
               std::to_string(inf.batch) + " (TTFT " + Num(inf.ttft_ms) + " ms, TPOT " + Num(inf.tpot_ms) +
               " ms, " + Num(best.estimate.memory.per_gpu_gib) + " GiB per GPU); " +
               std::to_string(best.replicas) + " replica(s)";
      } else {
        why += "each instance processes " + Num(inf.requests_per_s) + " samples/s at batch " +
               std::to_string(inf.batch) + " (" + Num(inf.ttft_ms) + " ms per batch, " +
               Num(best.estimate.memory.per_gpu_gib) + " GiB per GPU)";
      }
    } else {
      const InstanceType* t = catalog.FindInstance(best.instance);
      why += "the lowest price per " + std::string(w.task == Task::kHpc ? "FP64" : "FP32") + " TFLOPS among types that can " +
             (w.task == Task::kHpc ? "run FP64 work" : "render") + " (" + Num(t ? t->gpu_count : 0) + " x " + best.gpu + ")";
    }
    why += best.monthly     ? "; " + best.monthly->per_month.ToString() + " per month"
           : best.job_hours > 0 ? "; " + Num(best.job_hours) + " h for " + best.cost.total.ToString()
                                : "; " + best.cost.total.ToString() + " per hour";
    if (std::string sure = ConfidenceWhy(w, best, currency); !sure.empty()) why += "; " + sure;
    if (plan.candidates.size() > 1) {
      const Candidate& next = plan.candidates[1];
      why += "; next best " + std::to_string(next.nodes) + " x " + next.instance + " " +
             std::string(cost::ModeName(next.billing)) + " (" +
             (next.job_hours > 0 ? Num(next.job_hours) + " h, " : "") + next.cost.total.ToString() + ")";
    }
    plan.candidates[0].why = why;
  }
  plan.notes.push_back("prices: " + std::string(options.today.empty() ? "ages unknown" : "as of " + options.today) +
                       "; costs are instance-only (disks and bandwidth extra), in " + currency);
  if (w.task == Task::kRendering || w.task == Task::kHpc) {
    plan.notes.push_back(std::string("gpuplan has no speed model for ") + std::string(TaskName(w.task)) +
                         ": types that can do it are ranked by price per " +
                         (w.task == Task::kHpc ? "FP64" : "FP32") + " TFLOPS; benchmark your own scene or solver");
  } else if (!total_tokens && !w.samples && !serving) {
    plan.notes.push_back("no amount of work given (tokens or samples): costs are per hour and ranking is by cost per million tokens");
  }
  return plan;
}

}  // namespace gpuplan::planner
