// The bounds a group of structures shares (perf/layout_search_internal.h): structures that differ
// only in ZeRO stage, or only in virtual stages from their flat sibling, get their fit and the
// parts of their lower bound from fewer estimates.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <queue>
#include <vector>

#include "gpuplan/strings.h"
#include "perf/layout_search_internal.h"

namespace gpuplan::perf::internal {

std::optional<Search::GroupFitting> Search::GroupFit(const std::vector<Structure>& structures,
                                                     std::vector<Learned>& learned,
                                                     const Group& group) {
  std::optional<GroupFitting> out;
  for (size_t i = group.begin; i < group.end; ++i) {
    const Structure& s = structures[i];
    const Learned& k = learned[i];
    if (s.base.zero < 2 && i != group.begin)
      break;  // a lower stage needs at least the memory of the higher one probed before it
    if (!FindFits(s, learned[i]))
      continue;
    if (!out) {
      out.emplace();
      out->layout = s.base;
      out->layout.recompute = s.recomputes.back();
      out->layout.micro_batch =
          s.micro_batches[static_cast<size_t>(k.fit[s.recomputes.size() - 1])];
    }
    for (size_t r = 0; r < out->cap.size(); ++r) {
      for (size_t j = 0; j < s.recomputes.size(); ++j) {
        if (static_cast<size_t>(s.recomputes[j]) >= r) {
          out->cap[r] = std::max(out->cap[r], static_cast<int>(k.fit[j]));
          break;
        }
      }
    }
  }
  return out;
}

double Search::BoundOf(const RecomputeParts& parts, const Structure& s) {
  double bound = kInf;
  for (const std::optional<CheapParts>& p : parts) {
    if (p)
      bound = std::min(bound, BoundFrom(*p, s));
  }
  return bound;
}

Search::RecomputeParts Search::GroupParts(const std::vector<Structure>& structures,
                                          const Group& group, const GroupFitting& fit) {
  RecomputeParts parts;
  for (size_t i = group.begin; i < group.end; ++i) {
    const Structure& s = structures[i];
    for (Recompute r : s.recomputes) {
      const int cap = fit.cap[static_cast<size_t>(r)];
      std::optional<CheapParts>& p = parts[static_cast<size_t>(r)];
      if (cap >= 0 && !p)
        p = CheapBound(s, static_cast<size_t>(cap), r);
    }
  }
  return parts;
}

std::optional<double> Search::Derived(const RecomputeParts& flat_parts,
                                      const std::vector<Structure>& structures,
                                      const Group& group) {
  if (std::none_of(flat_parts.begin(), flat_parts.end(),
                   [](const std::optional<CheapParts>& p) { return p.has_value(); })) {
    return std::nullopt;
  }
  return BoundOf(flat_parts, structures[group.begin]);
}

bool Search::Covers(const std::vector<Structure>& structures, const Group& flat,
                    const Group& group) {
  const auto twin = [&](const Structure& s) {
    for (size_t j = flat.begin; j < flat.end; ++j) {
      const Structure& f = structures[j];
      if (f.base.zero == s.base.zero && f.recomputes.size() == s.recomputes.size() &&
          std::equal(f.recomputes.begin(), f.recomputes.end(), s.recomputes.begin())) {
        return true;
      }
    }
    return false;
  };
  for (size_t i = group.begin; i < group.end; ++i) {
    if (!twin(structures[i]))
      return false;
  }
  return true;
}

Search::CheapParts Search::CheapBound(const Structure& s, size_t cap, Recompute r) {
  Layout l = s.base;
  l.micro_batch = s.micro_batches[cap];
  l.recompute = r;
  Result<Estimate> e = Run(l);
  if (!e.ok())
    return {};
  const TimeBreakdown& t = e->time.breakdown;
  // The offloaded states' traffic is at its least at the cap too (Estimate::Time): fewer,
  // longer micro-batches hide more of the streamed weights.
  return {.flat = t.compute + t.tp_comm + t.optimizer + t.cp_comm + e->time.offload_states,
          .pp_comm = t.pp_comm / s.base.vp,
          .per_sequence = BubblePerSequence(t, s, l.micro_batch)};
}

}  // namespace gpuplan::perf::internal
