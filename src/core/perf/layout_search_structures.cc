// The structures of a layout search's space and their groups (perf/layout_search_internal.h):
// every (tp, cp, pp) that divides the GPUs, then vp, ZeRO stage, expert degree, micro-batches and
// recomputations, as the pins and the frameworks allow.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <queue>
#include <vector>

#include "gpuplan/strings.h"
#include "perf/layout_search_internal.h"

namespace gpuplan::perf::internal {

const StructureList& Search::Structures(const Savers& savers, bool any_savers) const {
  auto [it, fresh] = shape_->structures.try_emplace(std::make_tuple(
      savers.offload, savers.optimizer_in_backward, savers.activation_offload, any_savers));
  StructureList& list = it->second;
  if (fresh) {
    list.structures = BuildStructures(savers, any_savers);
    list.groups = GroupsOf(list.structures);
  }
  return list;
}

std::vector<Group> Search::GroupsOf(const std::vector<Structure>& structures) const {
  std::vector<Group> groups;
  std::map<std::tuple<int, int, int, int>, size_t> flat;  // by (tp, cp, pp, ep)
  for (size_t begin = 0; begin < structures.size();) {
    const Layout& first = structures[begin].base;
    size_t end = begin + 1;
    while (end < structures.size()) {
      const Layout& b = structures[end].base;
      if (std::tie(b.tp, b.cp, b.pp, b.vp, b.ep) !=
          std::tie(first.tp, first.cp, first.pp, first.vp, first.ep)) {
        break;
      }
      ++end;
    }
    Group g{begin, end, std::nullopt};
    const auto key = std::make_tuple(first.tp, first.cp, first.pp, first.ep);
    if (first.vp == 1) {
      flat.emplace(key, groups.size());
    } else if (auto it = flat.find(key);
               it != flat.end() && Covers(structures, groups[it->second], g)) {
      g.flat_sibling = it->second;
    }
    groups.push_back(g);
    begin = end;
  }
  return groups;
}

std::vector<Structure> Search::BuildStructures(const Savers& savers, bool any_savers) const {
  std::vector<Structure> out;
  const int gpus = hw_.Gpus();
  const bool transformer = arch_.IsTransformer();
  const int layers = transformer ? arch_.layers : 1;
  for (int tp : DivisorsOf(hw_.gpus_per_node)) {
    if (!Allowed(pins_.tp, tp) || gpus % tp != 0)
      continue;
    if (tp > 1 && (!transformer || arch_.heads % tp != 0))
      continue;
    for (int cp : DivisorsOf(gpus / tp)) {
      if (!Allowed(pins_.cp, cp))
        continue;
      if (cp > 1 && (!transformer || !w_.flash_attention || w_.seq_len % (2 * cp) != 0))
        continue;
      for (int pp : DivisorsOf(gpus / (tp * cp))) {
        if (!Allowed(pins_.pp, pp) || pp > layers || (pp > 1 && !transformer))
          continue;
        AddStructures(tp, cp, pp, layers, savers, any_savers, out);
      }
    }
  }
  return out;
}

void Search::AddStructures(int tp, int cp, int pp, int layers, const Savers& savers,
                           bool any_savers, std::vector<Structure>& out) const {
  const int dp = hw_.Gpus() / (tp * cp * pp);
  if (!Allowed(pins_.dp, dp) || w_.global_batch % dp != 0)
    return;
  const int local = w_.global_batch / dp;
  Recomputes recomputes;
  const std::optional<Recompute> pin_r = pins_.recompute ? pins_.recompute : w_.recompute;
  for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
    if (Allowed(pin_r, r))
      recomputes.push_back(r);
  }
  const std::vector<int> expert_degrees = ExpertDegrees(tp, dp);
  static constexpr int kOne[] = {1};
  const std::span<const int> vps = pp > 1 ? std::span<const int>(DivisorsOf(layers / pp)) : kOne;
  for (int vp : vps) {
    if (!Allowed(pins_.vp, vp) || (vp > 1 && layers % (pp * vp) != 0))
      continue;
    const std::span<const int> micro_batches = MicroBatches(local, pp, vp, savers);
    if (micro_batches.empty())
      continue;
    // In the order Solve groups them: a group (all but the ZeRO stage) is a contiguous run,
    // highest stage first.
    for (int ep : expert_degrees) {
      for (int zero = dp * cp > 1 ? 3 : 0; zero >= 0; --zero) {
        if (!Allowed(pins_.zero, zero))
          continue;
        Structure s;
        s.local_batch = local;
        s.micro_batches = micro_batches;
        Layout& l = s.base;
        l.tp = tp;
        l.cp = cp;
        l.pp = pp;
        l.vp = vp;
        l.dp = dp;
        l.ep = ep;
        l.zero = zero;
        l.sequence_parallel =
            pins_.sequence_parallel.value_or(tp > 1 && SpaceHasSequenceParallel());
        l.flash_attention = w_.flash_attention;
        l.offload = savers.offload;
        l.optimizer_in_backward = savers.optimizer_in_backward;
        l.activation_offload = savers.activation_offload;
        // Only the recomputations a framework runs with this structure: every framework
        // runs none and full (data/frameworks.csv), selective is Megatron's
        // (FrameworkCaps::selective_recompute), so only selective needs its own check.
        l.recompute = Recompute::kNone;
        if (!InSpace(l, any_savers))
          continue;
        for (Recompute r : recomputes) {
          l.recompute = r;
          if (r != Recompute::kSelective || InSpace(l, any_savers))
            s.recomputes.push_back(r);
        }
        l.recompute = Recompute::kNone;
        if (s.recomputes.size() > 0)
          out.push_back(s);
      }
    }
  }
}

bool Search::InSpace(const Layout& l, bool any_savers) const {
  if (pins_.frameworks.empty())
    return true;
  Layout shape = l;
  if (any_savers) {
    shape.offload = Offload::kNone;
    shape.optimizer_in_backward = shape.activation_offload = false;
  }
  return std::any_of(pins_.frameworks.begin(), pins_.frameworks.end(),
                     [&](const FrameworkCaps& c) { return Runs(c, shape); });
}

bool Search::SpaceHasSequenceParallel() const {
  return pins_.frameworks.empty() ||
         std::any_of(pins_.frameworks.begin(), pins_.frameworks.end(),
                     [](const FrameworkCaps& c) { return c.sequence_parallel; });
}

const std::vector<int>& Search::DivisorsOf(int n) const {
  auto [it, fresh] = shape_->divisors.try_emplace(n);
  if (fresh)
    it->second = Divisors(n);
  return it->second;
}

std::span<const int> Search::MicroBatches(int local, int pp, int vp, const Savers& savers) const {
  const auto key = std::make_tuple(local, vp > 1 ? pp : 0, savers.optimizer_in_backward);
  auto [it, fresh] = shape_->micro_batch_lists.try_emplace(key);
  if (!fresh)
    return it->second;
  std::vector<int>& out = it->second;
  const std::optional<int> pin_b = pins_.micro_batch ? pins_.micro_batch : w_.micro_batch;
  for (int b : DivisorsOf(local)) {
    if (!Allowed(pin_b, b))
      continue;
    const int m = local / b;
    if (vp > 1 && m % pp != 0)
      continue;  // Megatron's interleaving needs m % pp == 0
    if (savers.optimizer_in_backward && m > 1)
      continue;  // no accumulation
    out.push_back(b);
  }
  return out;
}

std::vector<int> Search::ExpertDegrees(int tp, int dp) const {
  if (!arch_.IsMoe())
    return {pins_.ep.value_or(1)};
  std::vector<int> out;
  for (int ep : DivisorsOf(tp * dp)) {
    if (arch_.moe.experts % ep == 0 && Allowed(pins_.ep, ep))
      out.push_back(ep);
  }
  return out;
}

}  // namespace gpuplan::perf::internal
