// The one layout search (include/gpuplan/layout_search.h).
//
// Why the pruning keeps the optimum. Every layout of a structure (tp, cp, pp, vp, dp, ep, ZeRO,
// memory savers) processes the same tokens per step, so the fastest step wins. For one
// structure, with the micro-batch b and recomputation r free:
//  - memory grows with b, and a heavier r needs no more memory than a lighter one: per r there
//    is a largest b that fits (b_r, found by bisection of memory probes), and b_r never falls as
//    r gets heavier.
//  - compute, tensor-parallel and context-parallel volume, the pipeline point-to-point volume,
//    the optimizer step and the data-parallel exposure only fall as b grows: GEMM efficiency
//    rises with rows, per-micro-batch overheads fall with fewer micro-batches, and a longer
//    last backward hides more of the gradient traffic. So every layout with r takes at least
//    their sum at b_r plus the bubble of the smallest b at b_r's compute per sequence (offload
//    exposure is >= 0 and left out); the least of that over r bounds the structure.
//  - at a fixed b, a heavier r adds compute, bubble and collectives, and can save only
//    exposure: its longer backward hides more data-parallel traffic and offload. So a heavier r
//    at the same b takes at least the lighter one's step less its data-parallel and offload
//    exposure (HeavierFloor), and is estimated only when that could beat the best.
// Groups (structures that differ only in ZeRO stage) and groups with virtual stages get bounds
// of the same kind from fewer estimates (Solve). Entries are visited in increasing lower bound;
// the search stops when the next bound is no better than the best step found (best-first
// branch and bound).
#include "gpuplan/layout_search.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "gpuplan/strings.h"
#include "perf/framework_spaces.h"
#include "perf/layout_search_cutoff.h"
#include "perf/layout_search_internal.h"

namespace gpuplan::perf {

LayoutMemo::LayoutMemo(const Workload& w, const ModelArch& arch, const LayoutPins& pins)
    : w_(&w), arch_(&arch), pins_(&pins) {}
LayoutMemo::~LayoutMemo() = default;

std::vector<std::unique_ptr<internal::FrameworkSpace>>* LayoutMemo::Spaces(const Workload& w,
                                                                           const ModelArch& arch,
                                                                           const LayoutPins& pins) {
  if (!BoundTo(w, arch, pins))
    return nullptr;
  if (!spaces_) {
    spaces_ = std::make_unique<internal::FrameworkSpaces>(internal::SplitFrameworks(w, arch, pins));
  }
  return spaces_.get();
}

LayoutMemo::Shape* LayoutMemo::For(const Workload& w, const ModelArch& arch, const LayoutPins& pins,
                                   int gpus, int gpus_per_node) {
  if (!BoundTo(w, arch, pins))
    return nullptr;
  std::unique_ptr<Shape>& shape = shapes_[{gpus, gpus_per_node}];
  if (!shape)
    shape = std::make_unique<Shape>();
  return shape.get();
}

namespace internal {

LayoutSearch Search::Training(bool exhaustive) {
  Solve(Structures(PinnedSavers()), exhaustive);
  if (result_.ok && !result_.cut_off)
    result_.without_savers_step_s = result_.estimate.time.step_s;
  double cut_floor = TakeCut();
  // Offload needs the host's RAM to be known (an instance type, not a bare GPU count), and a
  // transformer's layers to stream (a zoo CNN, UNet or DiT has no per-layer shape here).
  if (!SaversPinned() && hw_.host_memory_gib > 0 && arch_.IsTransformer())
    cut_floor = std::min(cut_floor, SearchSavers(exhaustive));
  // A search cut off (CutOff) left only layouts no faster than the least floor it was cut at,
  // none of which can matter: unless the best found beats that floor (then it is the best of
  // all), the caller learns only the floor.
  if (cut_floor < kInf && (!result_.ok || result_.estimate.time.step_s >= cut_floor)) {
    result_.cut_off = true;
    result_.floor_step_s = cut_floor;
  }
  result_.memory_savers = result_.ok && UsesSavers(result_.layout);
  if (result_.cut_off) {
    result_.ok = false;
    result_.reason = "no layout can matter: every step takes at least " +
                     strings::Num(result_.floor_step_s) + " s";
    return result_;
  }
  if (result_.ok)
    result_.reason.clear();
  // A probe's memory stood in for the least-memory layout: time it for the caller.
  if (!result_.ok && result_.min_memory_gib > 0 && !stand_in_timed_) {
    if (Result<Estimate> e = Evaluate(result_.layout); e.ok())
      result_.estimate = *e;
  }
  if (!result_.ok && !host_reason_.empty())
    result_.reason = host_reason_;
  if (!result_.ok && result_.reason.empty()) {
    result_.reason = result_.min_memory_gib > 0 ? "no layout fits in memory"
                                                : "no valid layout (the global batch of " +
                                                      std::to_string(w_.global_batch) +
                                                      " sequences must divide over the "
                                                      "data-parallel replicas)";
  }
  return result_;
}

// What people use to squeeze a job onto fewer or smaller GPUs (ZeRO-Offload; parameters too;
// activations; optimizer in backward) is searched like every other dimension, not only when
// nothing fits: less memory can buy a lighter recomputation or a larger micro-batch that beats
// the best layout without them. Each rung starts from the best so far, so the bounds prune what
// cannot beat it; a rung whose floor cannot beat it, or cannot matter to the caller, is skipped.
// Returns the least floor a rung was cut at or skipped for not mattering (kInf: none).
double Search::SearchSavers(bool exhaustive) {
  double cut_floor = kInf;
  const bool could_fit = exhaustive || result_.ok || SaversCanFitGpu();
  for (const Savers& s : SaverLadder()) {
    const StructureList& list = Structures(s);
    if (!exhaustive && RungRuledOut(s, could_fit, cut_floor)) {
      Cover(list);  // ruled out by a bound: covered all the same
      continue;
    }
    asked_at_ = 0;  // the rung's floors start below the last rung's
    Solve(list, exhaustive);
    cut_floor = std::min(cut_floor, TakeCut());
  }
  return cut_floor;
}

// Whether rung `s` can be left out: nothing fits even with savers; adapters' optimizer is too
// small to be stepped in backward (training_memory.cc), so that rung alone is the search without
// savers again; its floor cannot beat the best so far; or (lowering `cut_floor` to it) its floor
// cannot matter to the caller.
bool Search::RungRuledOut(const Savers& s, bool could_fit, double& cut_floor) {
  if (!could_fit)
    return true;
  if (TrainsAdapters(w_) && s.optimizer_in_backward && s.offload == Offload::kNone &&
      !s.activation_offload) {
    return true;
  }
  const double floor = SaversFloor(s);
  if (result_.ok && floor >= result_.estimate.time.step_s)
    return true;
  if (Matters(floor))
    return false;
  cut_floor = std::min(cut_floor, floor);
  return true;
}

// The floor a Solve was cut off at (kInf: none), clearing the mark so the search goes on.
double Search::TakeCut() {
  if (!result_.cut_off)
    return kInf;
  result_.cut_off = false;
  return result_.floor_step_s;
}

// A lower bound of every layout with `s`: the step's compute floor (StepFloorSeconds), plus for
// offload the traffic no layout avoids. Each GPU sends at least its share of the transformer
// layers' gradients (at least 2 bytes each) and takes back the updated weights (at least 1
// byte) over PCIe, and the host's Adam updates the node's share (training_time.cc). Embeddings
// and routed experts are left out: how they are sharded varies with the layout.
double Search::SaversFloor(const Savers& s) {
  if (savers_floor_s_ < 0)
    savers_floor_s_ = StepFloorSeconds(w_, arch_, hw_, cal_);
  double floor = savers_floor_s_;
  const Layout any;
  const TrainingInvariants* inv = Invariants(any);
  if (s.offload != Offload::kNone && inv != nullptr && !TrainsAdapters(w_)) {
    const Dims& d = inv->d;
    const double per_gpu =
        d.layers * std::max(0.0, d.layer_params - d.expert_layer_params) / hw_.Gpus();
    const double pcie = HostLinkBytesPerS(*hw_.gpu, hw_, cal_);
    constexpr double kLeastBytesEachWay = 3, kLeastUpdateBytes = 4;
    if (pcie > 0)
      floor += per_gpu * kLeastBytesEachWay / pcie;
    floor += HostAdamSeconds(per_gpu * hw_.gpus_per_node, kLeastUpdateBytes, cal_);
  }
  return floor;
}

bool Search::SaversCanFitGpu() {
  for (const Structure& s :
       Structures({Offload::kParams, false, true}, /*any_savers=*/true).structures) {
    Layout l = s.base;
    l.micro_batch = s.micro_batches.front();
    l.recompute = s.recomputes.back();
    Result<Estimate> e = Evaluate(l, true);  // memory only
    if (e.ok() && e->memory.checked_gib <= e->memory.capacity_gib)
      return true;
  }
  return false;
}

LayoutSearch Search::Inference() {
  const int gpus = hw_.Gpus();
  const int heads = arch_.IsTransformer() ? arch_.heads : 1;
  for (int tp : Divisors(hw_.gpus_per_node)) {
    if (!Allowed(pins_.tp, tp) || gpus % tp != 0 || heads % tp != 0)
      continue;
    if (tp > 1 && !arch_.IsTransformer())
      continue;
    const int pp = pins_.pp.value_or(1);
    if (pp < 1 || (gpus / tp) % pp != 0)
      continue;
    Layout l;
    l.tp = tp;
    l.pp = pp;
    l.dp = gpus / (tp * pp);
    l.ep = pins_.ep.value_or(1);
    if (!Allowed(pins_.dp, l.dp))
      continue;
    l.flash_attention = w_.flash_attention;
    l.micro_batch = w_.inference.batch ? *w_.inference.batch : 1;
    ++result_.structures;
    ++result_.configurations;
    Result<Estimate> e = Run(l);
    if (!e.ok() || !e->memory.fits)
      continue;
    if (!result_.ok || e->time.step_s < result_.estimate.time.step_s) {
      result_.ok = true;
      result_.layout = l;
      result_.estimate = *e;
    }
  }
  if (result_.ok)
    result_.reason.clear();
  if (!result_.ok && result_.reason.empty())
    result_.reason = "no layout fits in memory";
  return result_;
}

}  // namespace internal

LayoutPins PinsFrom(const Workload& w) {
  LayoutPins p;
  p.micro_batch = w.micro_batch;
  p.recompute = w.recompute;
  p.cp = w.cp;
  p.vp = w.virtual_stages;
  p.offload = w.offload;
  p.optimizer_in_backward = w.optimizer_in_backward;
  p.activation_offload = w.activation_offload;
  for (const Framework& f : w.frameworks)
    p.frameworks.push_back(f.caps);
  return p;
}

LayoutSearch SearchLayout(const Workload& w, const ModelArch& arch, const Hardware& hw,
                          const Calibration& cal, const LayoutPins& pins) {
  return SearchLayout(w, arch, hw, cal, pins, CutOff{});
}

LayoutSearch SearchLayout(const Workload& w, const ModelArch& arch, const Hardware& hw,
                          const Calibration& cal, const LayoutPins& pins, const CutOff& cut_off,
                          LayoutMemo* memo) {
  internal::FrameworkSpaces own;
  internal::FrameworkSpaces* spaces = memo ? memo->Spaces(w, arch, pins) : nullptr;
  if (spaces == nullptr) {
    own = internal::SplitFrameworks(w, arch, pins);
    spaces = &own;
  }
  if (!spaces->empty()) {
    // The caller's `matters` is monotone and costly (the planner prices the floor): what one
    // space learned of it answers the others where it can.
    double matters_up_to = 0, not_from = internal::kInf;
    CutOff shared = cut_off;
    if (cut_off.matters) {
      shared.matters = [&](double floor) {
        if (floor <= matters_up_to)
          return true;
        if (floor >= not_from)
          return false;
        const bool m = cut_off.matters(floor);
        (m ? matters_up_to : not_from) = floor;
        return m;
      };
    }
    return internal::SearchSpaces(*spaces, [&](const internal::FrameworkSpace& s, double best) {
      // A later space matters only where it could beat the best of those before it.
      CutOff beat = shared;
      if (best != internal::kNoBest)
        beat.beat_step_s = std::min(beat.beat_step_s, best);
      return SearchLayout(s.w, arch, hw, cal, s.pins, beat, s.memo.get());
    });
  }
  LayoutMemo::Shape* shared =
      memo ? memo->For(w, arch, pins, hw.Gpus(), hw.gpus_per_node) : nullptr;
  internal::Search search(w, arch, hw, cal, pins, &cut_off, shared);
  return w.IsTraining() ? search.Training(false) : search.Inference();
}

LayoutSearch ExhaustiveLayoutSearch(const Workload& w, const ModelArch& arch, const Hardware& hw,
                                    const Calibration& cal, const LayoutPins& pins) {
  const internal::FrameworkSpaces spaces = internal::SplitFrameworks(w, arch, pins);
  if (!spaces.empty()) {
    return internal::SearchSpaces(spaces, [&](const internal::FrameworkSpace& s, double) {
      return ExhaustiveLayoutSearch(s.w, arch, hw, cal, s.pins);
    });
  }
  internal::Search search(w, arch, hw, cal, pins);
  return w.IsTraining() ? search.Training(true) : search.Inference();
}

}  // namespace gpuplan::perf
