// Best-first over lower bounds (perf/layout_search_internal.h): memory probes and the largest
// micro-batch that fits, each structure's lower bound, the layouts that can beat the best, and
// the early stop the caller's CutOff allows. Why this keeps the optimum: layout_search.cc.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <queue>
#include <vector>

#include "gpuplan/strings.h"
#include "perf/layout_search_internal.h"

namespace gpuplan::perf::internal {

const internal::TrainingInvariants* Search::Invariants(const Layout& l) {
  if (!w_.IsTraining() || hw_.gpu == nullptr)
    return nullptr;
  auto it = invariants_.find(l.cp);
  if (it == invariants_.end()) {
    const bool flash = l.flash_attention && w_.flash_attention;
    it = invariants_.emplace(l.cp, internal::InvariantsOf(w_, arch_, *hw_.gpu, cal_, l.cp, flash))
             .first;
  }
  return &it->second;
}

Result<Estimate> Search::Evaluate(const Layout& l, bool memory_only) {
  ++result_.evaluated;
  return internal::EstimateRunShared(w_, arch_, hw_, l, cal_, Invariants(l), memory_only);
}

Result<Estimate> Search::Run(const Layout& l) {
  Result<Estimate> e = Evaluate(l);
  Note(l, e, true);
  return e;
}

bool Search::Probe(const Structure& s, size_t micro_batch_index, Recompute r) {
  if (memorize_ && s.memory == nullptr)
    s.memory = shape_->slots.Take(s.micro_batches.size() * kRecomputeNames.size());
  KnownMemory* known =
      memorize_ ? &s.memory[micro_batch_index * kRecomputeNames.size() + static_cast<size_t>(r)]
                : nullptr;
  if (known && known->per_gpu_gib >= 0) {
    // FitGpu and FitHost's test, without building the memory: most probes are of memory
    // another hardware of the shape estimated, and NoteMemory has nothing to note for one
    // the host holds that is no less than the least seen.
    const bool host_fits =
        !(known->host_gib > 0 && hw_.host_memory_gib > 0 && known->host_gib > host_usable_gib_);
    if (host_fits && result_.min_memory_gib > 0 && known->per_gpu_gib >= result_.min_memory_gib) {
      return known->per_gpu_gib * hw_.memory_error_ratio <= gpu_usable_gib_;
    }
  }
  Layout l = s.base;
  l.micro_batch = s.micro_batches[micro_batch_index];
  l.recompute = r;
  if (known && known->per_gpu_gib >= 0) {
    Estimate::Memory m;
    m.per_gpu_gib = known->per_gpu_gib;
    m.host_gib = known->host_gib;
    internal::FitGpu(m, hw_);
    internal::FitHost(m, hw_, cal_);
    NoteMemory(l, m, nullptr, false);
    return m.fits;
  }
  Result<Estimate> e = Evaluate(l, true);
  if (known && e.ok())
    *known = {e->memory.per_gpu_gib, e->memory.host_gib};
  Note(l, e, false);
  return e.ok() && e->memory.fits;
}

void Search::Note(const Layout& l, const Result<Estimate>& e, bool timed) {
  if (e.ok())
    NoteMemory(l, e->memory, &*e, timed);
  else if (result_.reason.empty())
    result_.reason = e.status().message();
}

void Search::NoteMemory(const Layout& l, const Estimate::Memory& m, const Estimate* e, bool timed) {
  if (m.host_capacity_gib > 0 && m.host_gib > m.host_capacity_gib) {
    if (m.checked_gib > m.capacity_gib)
      return;  // fits neither: GPU memory says why
    result_.host_limited = true;
    // Fits the GPU only by offloading more than the host holds: say that, not GPU memory.
    if (host_reason_.empty() || m.host_gib < host_need_) {
      host_need_ = m.host_gib;
      host_reason_ = "fits GPU memory only with offload, which needs " + strings::Num(m.host_gib) +
                     " GiB of host RAM per node (" + strings::Num(m.host_capacity_gib) + " usable)";
    }
    return;
  }
  if (result_.min_memory_gib == 0 || m.per_gpu_gib < result_.min_memory_gib) {
    result_.min_memory_gib = m.per_gpu_gib;
    if (!result_.ok) {  // the least-memory layout stands in until one fits
      result_.layout = l;
      result_.estimate = e ? *e : Estimate{};
      result_.estimate.memory = m;
      stand_in_timed_ = timed;
    }
  }
}

std::optional<size_t> Search::LargestFitting(const Structure& s, Recompute r, size_t lo) {
  if (lo == 0) {
    if (!Probe(s, 0, r))
      return std::nullopt;
    lo = 1;
  }
  std::optional<size_t> best = lo - 1;
  size_t hi = s.micro_batches.size();  // candidates [lo, hi)
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (Probe(s, mid, r)) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return best;
}

double Search::LowerBound(const Structure& s, Learned& k) {
  if (!FindFits(s, k))
    return kInf;
  double bound = kInf;
  k.without_bubble = k.sequence_time = kInf;
  Layout l = s.base;
  for (size_t i = 0; i < s.recomputes.size(); ++i) {
    if (k.fit[i] < 0)
      continue;
    l.recompute = s.recomputes[i];
    l.micro_batch = s.micro_batches[static_cast<size_t>(k.fit[i])];
    Result<Estimate> e = Run(l);
    if (!e.ok())
      return kInf;
    if (e->memory.fits)
      Consider(l, *e);
    const TimeBreakdown& t = e->time.breakdown;
    const double without_bubble =
        t.compute + t.tp_comm + t.pp_comm + t.optimizer + t.cp_comm + t.dp_comm;
    const double per_sequence = BubblePerSequence(t, s, l.micro_batch);
    k.without_bubble = std::min(k.without_bubble, without_bubble);
    k.sequence_time = std::min(k.sequence_time, per_sequence);
    bound = std::min(bound, without_bubble + (s.base.pp - 1.0) / s.base.vp *
                                                 s.micro_batches.front() * per_sequence);
  }
  k.settled = Flat(s);
  return bound;
}

bool Search::FindFits(const Structure& s, Learned& k) {
  if (!k.fits_known) {
    k.fits_known = true;
    if (Probe(s, 0, s.recomputes.back())) {
      size_t lo = 0;
      for (size_t i = 0; i < s.recomputes.size(); ++i) {
        if (const std::optional<size_t> fit = LargestFitting(s, s.recomputes[i], lo)) {
          k.fit[i] = static_cast<int16_t>(*fit);
          lo = *fit + 1;
        }
      }
    }
  }
  return k.fit[s.recomputes.size() - 1] >= 0;
}

void Search::Explore(const Structure& s, const Learned& k, bool exhaustive) {
  ++result_.explored;
  for (size_t bi = 0; bi < s.micro_batches.size(); ++bi) {
    const int b = s.micro_batches[bi];
    // The bubble grows with the micro-batch: once the bound passes the best, stop.
    if (!exhaustive && result_.ok &&
        k.without_bubble + (s.base.pp - 1.0) / s.base.vp * b * k.sequence_time >=
            result_.estimate.time.step_s) {
      break;
    }
    bool any_fits = false;
    for (size_t i = 0; i < s.recomputes.size(); ++i) {
      if (!exhaustive && k.fit[i] < static_cast<int>(bi))
        continue;  // does not fit this micro-batch
      Layout l = s.base;
      l.micro_batch = b;
      l.recompute = s.recomputes[i];
      Result<Estimate> e = Run(l);
      if (!e.ok() || !e->memory.fits)
        continue;
      any_fits = true;
      Consider(l, *e);
      if (!exhaustive && !CouldBeat(HeavierFloor(*e)))
        break;  // heavier recomputation cannot hide enough to win
    }
    // Memory grows with the micro-batch: once nothing fits, nothing larger does.
    if (!any_fits && !exhaustive)
      break;
  }
}

void Search::Consider(const Layout& l, const Estimate& e) {
  const double t = e.time.step_s, best = result_.estimate.time.step_s;
  const bool tie = result_.ok && StepsTie(t, best);
  if (!result_.ok || (tie ? Simpler(l, result_.layout) : t < best)) {
    result_.ok = true;
    result_.layout = l;
    result_.estimate = e;
  }
}

void Search::Cover(const StructureList& list) {
  result_.structures += static_cast<long long>(list.structures.size());
  for (const Structure& s : list.structures)
    result_.configurations += static_cast<long long>(s.micro_batches.size() * s.recomputes.size());
}

void Search::Solve(const StructureList& list, bool exhaustive) {
  const std::vector<Structure>& structures = list.structures;
  std::vector<Learned> learned(structures.size());
  Cover(list);
  if (exhaustive) {
    for (size_t i = 0; i < structures.size(); ++i)
      Explore(structures[i], learned[i], true);
    return;
  }
  // One estimate per recomputation bounds a whole group (GroupParts); a group's structures
  // get their own, tighter bounds (LowerBound) only when the group comes up in best-first
  // order, and a structure is explored only when its own bound comes up. Every bound is at
  // most the step time of every layout it covers, so stopping at the first bound no better
  // than the best keeps the optimum. ZeRO 0, 1, 2 need ever less memory at the same
  // everything else: where ZeRO-2 cannot fit the smallest micro-batch, ZeRO 0 and 1 cannot
  // either (a group lists its higher stages first).
  //
  // A group with virtual stages (vp > 1) is bounded without an estimate of its own, from
  // its flat sibling (same tp, cp, pp, ep without them; Derived): interleaving leaves the
  // compute and the tensor- and context-parallel traffic as they are, multiplies the pipeline
  // traffic by vp, divides the bubble by vp, and only adds in-flight activations. So when the
  // sibling fits nowhere, neither does the group; otherwise its fit probes and its own bound
  // wait until the group comes up (kLazyGroup), and most never do.
  Frontier frontier;
  const std::optional<Layout> fits = SeedGroups(list, learned, frontier);
  // Timed, it is a first incumbent: the bound test and the caller's cut-off (StopEarly) start
  // from the first structure rather than wait for one whose own search finds a fit.
  if (fits && !result_.ok) {
    if (Result<Estimate> e = Run(*fits); e.ok() && e->memory.fits)
      Consider(*fits, *e);
  }
  while (!frontier.queue.empty()) {
    const Entry top = frontier.queue.top();
    frontier.queue.pop();
    if (top.bound == kInf || (result_.ok && top.bound >= result_.estimate.time.step_s))
      break;
    if (StopEarly(top.bound))
      return;
    if (top.kind == EntryKind::kStructure) {
      Explore(structures[top.index], learned[top.index], false);
      continue;
    }
    const Group& group = list.groups[top.index];
    if (top.kind == EntryKind::kLazyGroup) {
      if (const std::optional<GroupFitting> fit = GroupFit(structures, learned, group)) {
        const RecomputeParts parts = GroupParts(structures, group, *fit);
        const double own = BoundOf(parts, structures[group.begin]);
        frontier.Push(std::max(own, top.bound), EntryKind::kGroup, top.index);
      }
      continue;
    }
    SplitGroup(structures, group, learned, frontier);
  }
}

std::optional<Layout> Search::SeedGroups(const StructureList& list, std::vector<Learned>& learned,
                                         Frontier& frontier) {
  const std::vector<Structure>& structures = list.structures;
  std::optional<Layout> fits;  // the first layout a group's probe found to fit
  // The bound parts of the groups without virtual stages that fit (the siblings).
  struct Sibling {
    RecomputeParts parts;
  };
  std::vector<Sibling> siblings;                        // of the flat groups that fit
  std::vector<int> sibling_of(list.groups.size(), -1);  // group -> siblings index
  for (size_t g = 0; g < list.groups.size(); ++g) {
    const Group& group = list.groups[g];
    if (group.flat_sibling) {
      const int at = sibling_of[*group.flat_sibling];
      if (at < 0)
        continue;  // more activations in flight than a sibling that fits nowhere
      const Sibling& sibling = siblings[static_cast<size_t>(at)];
      if (std::optional<double> b = Derived(sibling.parts, structures, group)) {
        frontier.Push(*b, EntryKind::kLazyGroup, g);
        continue;
      }
    }
    const std::optional<GroupFitting> fit = GroupFit(structures, learned, group);
    if (fit) {
      RecomputeParts parts = GroupParts(structures, group, *fit);
      frontier.Push(BoundOf(parts, structures[group.begin]), EntryKind::kGroup, g);
      if (!fits)
        fits = fit->layout;
      if (structures[group.begin].base.vp == 1) {
        sibling_of[g] = static_cast<int>(siblings.size());
        siblings.push_back({parts});
      }
    }
  }
  return fits;
}

void Search::SplitGroup(const std::vector<Structure>& structures, const Group& group,
                        std::vector<Learned>& learned, Frontier& frontier) {
  bool zero2_infeasible = false;
  for (size_t i = group.begin; i < group.end; ++i) {
    const Structure& s = structures[i];
    Learned& k = learned[i];
    if (s.base.zero < 2 && zero2_infeasible)
      continue;
    const double bound = LowerBound(s, k);
    if (s.base.zero == 2 && bound == kInf)
      zero2_infeasible = true;
    if (bound < kInf && !k.settled)
      frontier.Push(bound, EntryKind::kStructure, i);
  }
}

bool Search::StopEarly(double floor) {
  if (cut_off_ != nullptr && floor >= cut_off_->beat_step_s) {
    result_.cut_off = true;
    result_.floor_step_s = floor;
    return true;
  }
  if (cut_off_ == nullptr || !cut_off_->matters || !result_.ok ||
      result_.evaluated < cut_off_->ask_after || floor <= asked_at_ * cut_off_->ask_again)
    return false;
  asked_at_ = floor;
  if (cut_off_->matters(floor))
    return false;
  result_.cut_off = true;
  result_.floor_step_s = floor;
  return true;
}

}  // namespace gpuplan::perf::internal
