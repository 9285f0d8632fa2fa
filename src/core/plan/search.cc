// The candidate search of one plan: the driver (src/core/plan/search.h). How a layout becomes
// candidates is in sizing.cc.
#include "plan/search.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <span>

#include "gpuplan/strings.h"
#include "gpuplan/uncertainty.h"
#include "plan/candidates.h"
#include "serving/search.h"

namespace gpuplan::planner {
namespace {

using strings::Num;
constexpr double kInf = std::numeric_limits<double>::infinity();

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

}  // namespace

CandidateSearch::CandidateSearch(const PlanInputs& in, const std::vector<cost::Mode>& modes,
                                 Plan& plan)
    : w_(in.w),
      arch_(in.arch),
      catalog_(in.catalog),
      cal_(in.cal),
      options_(in.options),
      shortcuts_(in.shortcuts),
      modes_(modes),
      plan_(plan),
      currency_(in.w.constraints.budget ? in.w.constraints.budget->currency
                                        : in.options.default_currency),
      serving_(in.w.IsServing()),
      bar_(in.w, in.options.top_n),
      pins_(perf::PinsFrom(in.w)),
      memo_(in.w, in.arch, pins_) {
  // Prices grouped by instance once, so each lookup scans only its own rows.
  for (const Price& p : in.catalog.prices)
    price_book_[p.instance].prices.push_back(p);
}

void CandidateSearch::AddInstance(const InstanceType& t) {
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
  run.pricing = PriceRegions(w_, options_, shortcuts_, t, price_book_[t.name], modes_, currency_);
  run.unpriced = Unpriced(run.pricing);
  if (w_.task == Task::kRendering || w_.task == Task::kHpc) {
    AddByCapability(run);
    return;
  }
  const std::vector<int> node_counts = NodeCounts(w_, t, options_);
  if (node_counts.empty()) {
    run.early = std::to_string(t.whole_gpus()) + " GPUs per instance, over constraints.max_gpus (" +
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

void CandidateSearch::Run() {
  auto speed = [&](const Job& j) {
    const Precision p = ComputesAs(*j.run->g, w_.precision, w_.task == Task::kInference);
    return j.hw.Gpus() * j.run->g->Tflops(p).value_or(0);
  };
  std::stable_sort(jobs_.begin(), jobs_.end(),
                   [&](const Job& a, const Job& b) { return speed(a) > speed(b); });
  for (const Job& j : jobs_)
    AddNodes(*j.run, j.nodes, j.hw, shortcuts_.prune_hardware);
  jobs_.clear();
}

void CandidateSearch::Finish() {
  for (const TypeRun& run : runs_) {
    if (!run.early.empty())
      plan_.rejected.push_back({run.t->name, run.early});
    else if (!run.any) {
      std::string why = !run.cut.empty() ? run.cut : run.rejection;
      if (!run.beyond.empty())
        why = why.empty() ? run.beyond : why + "; more instances: " + run.beyond;
      plan_.rejected.push_back({run.t->name, why.empty() ? "no priced region" : why});
    }
  }
  runs_.clear();
}

// The hardware of `nodes` x `run.t`, or (recorded in `run`) why more nodes cannot be built.
Result<perf::Hardware> PlanHardware(const PlanInputs& in, const InstanceType& t, int nodes) {
  Result<perf::Hardware> hw = perf::HardwareFor(in.catalog, t, nodes);
  if (hw.ok() && in.w.IsTraining())
    hw->memory_error_ratio =
        uncertainty::MemoryErrorRatio(in.options.uncertainty, in.w, in.arch, *hw);
  return hw;
}

Result<perf::Hardware> CandidateSearch::NodeHardware(TypeRun& run, int nodes) {
  const InstanceType& t = *run.t;
  Result<perf::Hardware> hw =
      PlanHardware({w_, arch_, catalog_, cal_, options_, shortcuts_}, t, nodes);
  if (!hw.ok()) {
    run.Reject(nodes, hw.status().message());
    return hw;
  }
  if ((w_.constraints.need_rdma || !w_.IsTraining()) && nodes > 1 && !t.rdma) {
    std::string why =
        t.family + " has no eRDMA and " +
        (w_.IsTraining() ? "the constraints need RDMA between nodes"
                         : "a model copy across instances needs it (its layers' traffic crosses "
                           "them at every token)");
    if (run.beyond.empty())
      run.beyond = why;
    return Status::Unsupported(why);
  }
  return hw;
}

// The layout for `hw` (of `t`): searched once per distinct hardware, or the fixed one
// evaluated. A search `matters` cut off for one type is searched again for another type with
// the same hardware when its floor matters to that one (its prices differ).
const LayoutResult& CandidateSearch::LayoutFor(const perf::Hardware& hw, const InstanceType& t,
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
    it->second = SearchTrainingLayout(w_, arch_, hw, cal_, pins_, cut_off, memo_, &plan_.evaluated);
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
bool CandidateSearch::Searched(const perf::Hardware& hw) const {
  return searched_.count(KeyOf(hw)) > 0 || host_free_.count(HostFreeKey(hw)) > 0;
}

// Whether a training search's answer is the same whatever the host's RAM: a layout without
// memory savers, holding nothing in host RAM (no offload, no paged optimizer states), where no
// saver's layout was held back by the host's RAM (on a larger host it might have won), and not
// cut off (a cut-off's floor may be a saver's).
bool CandidateSearch::HostFree(const LayoutResult& r) const {
  return r.ok && !r.cut_off && !r.memory_savers && !r.host_limited &&
         r.layout.offload == perf::Offload::kNone && !r.layout.activation_offload &&
         !PagedStates(w_.optimizer);
}

// The candidates of `nodes` x `run.t` on `hw` into all_ (and the bar), or why none; with
// `prune`, the layout search stops once the hardware cannot be shown. Returns whether more
// nodes cannot help (serving: a copy that fits, or fits but misses its targets).
bool CandidateSearch::AddNodes(TypeRun& run, int nodes, const perf::Hardware& hw, bool prune) {
  perf::CutOff cut_off;
  // A type priced in no usable region is rejected for that once any layout fits (and for its
  // memory when none does): the search need not go past the first fit.
  const bool priceless =
      !run.unpriced && std::none_of(run.pricing.rates.begin(), run.pricing.rates.end(),
                                    [](const RegionRates& r) { return r.rates.has_value(); });
  if (prune && priceless) {
    cut_off.matters = [](double) { return false; };
  } else if (prune) {
    cut_off.matters = [&](double floor_step_s) { return CouldShow(run, nodes, hw, floor_step_s); };
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
  Offered offered = Offer(run, nodes, hw, lr, true);
  const size_t before = all_.size();
  std::move(offered.candidates.begin(), offered.candidates.end(), std::back_inserter(all_));
  run.any |= offered.added;
  run.Reject(nodes, std::move(offered.rejection));
  bar_.Add(std::span<const Candidate>(all_).subspan(before));
  // Inference: a copy fits on this many nodes; more only add communication.
  return !w_.IsTraining();
}

// Whether `nodes` x `run.t` could be shown if its step took `floor_step_s`: its candidates
// priced at that step (every measure grows with the step time) against the bar.
bool CandidateSearch::CouldShow(const TypeRun& run, int nodes, const perf::Hardware& hw,
                                double floor_step_s) {
  if (bar_.Open())
    return true;  // pricing the floor cannot change the answer
  LayoutResult floor;
  floor.ok = true;
  floor.layout.dp = hw.Gpus();
  floor.estimate.time.step_s = floor_step_s;
  // No checkpoint cost: the floor's hours stay under those of every layout of this hardware.
  floor.estimate.job = perf::TrainingJob(w_, hw.Gpus(), floor_step_s, cal_, 0);
  floor.estimate.throughput.tokens_per_s_per_gpu =
      static_cast<double>(w_.global_batch) * w_.seq_len / hw.Gpus() / floor_step_s;
  // Not priced even at the floor (a deadline, budget or price missed): searched to the end,
  // so that its rejection says what it takes.
  const Offered floors = Offer(run, nodes, hw, floor, false);
  return !floors.added || bar_.CouldShow(floors.candidates);
}

// Why hardware whose search was cut off is not in the plan.
// An unpriced type says so first: under a cost objective that, not its speed, is what keeps
// it out (unpriced types rank after every priced one), and a price is what the user can add.
std::string CandidateSearch::CutOffReason(const TypeRun& run, int nodes, const perf::Hardware& hw,
                                          double floor_step_s) const {
  const double hours = perf::TrainingJob(w_, hw.Gpus(), floor_step_s, cal_, 0).hours;
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

}  // namespace gpuplan::planner
