// Searching each set of frameworks that time layouts alike (perf/framework_spaces.h).
#include "perf/framework_spaces.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "perf/layout_search_internal.h"

namespace gpuplan::perf::internal {

namespace {

// Whether two frameworks estimate every layout they both run alike: the fields of
// data/frameworks.csv the estimator reads (attention_kernel, main_grads, selective_policy,
// zero3_fetch for the time; main_grads and cross_entropy for the memory, hence the fit).
bool EstimateAlike(const Framework& a, const Framework& b) {
  return a.attention_kernel == b.attention_kernel && a.fp32_main_grads == b.fp32_main_grads &&
         a.selective_keeps_matmuls == b.selective_keeps_matmuls &&
         a.zero3_fetches_modules == b.zero3_fetches_modules && a.cross_entropy == b.cross_entropy;
}

// Adds `r`, one space's result, to `all`: the counters; the pick when r is faster, or the first
// to fit, or as fast on a framework earlier in the table (the simpler stack); while nothing
// fits, the least-memory layout.
void Merge(LayoutSearch r, LayoutSearch& all) {
  const double t = r.estimate.time.step_s, best = all.estimate.time.step_s;
  const bool faster =
      r.ok &&
      (!all.ok || (StepsTie(t, best) ? r.layout.framework < all.layout.framework : t < best));
  const bool leaner = !r.ok && !all.ok && r.min_memory_gib > 0 &&
                      (all.min_memory_gib == 0 || r.min_memory_gib < all.min_memory_gib);
  LayoutSearch other = std::move(r);
  if (faster || leaner)
    std::swap(all, other);
  all.structures += other.structures;
  all.configurations += other.configurations;
  all.evaluated += other.evaluated;
  all.explored += other.explored;
  all.host_limited = all.host_limited || other.host_limited;
  if (other.min_memory_gib > 0 &&
      (all.min_memory_gib == 0 || other.min_memory_gib < all.min_memory_gib))
    all.min_memory_gib = other.min_memory_gib;
}

}  // namespace

FrameworkSpaces SplitFrameworks(const Workload& w, const ModelArch& arch, const LayoutPins& pins) {
  FrameworkSpaces spaces;
  if (!w.IsTraining() || w.frameworks.size() < 2)
    return spaces;
  std::vector<int> space_of(w.frameworks.size(), -1);
  std::vector<std::vector<int>> members;
  for (size_t i = 0; i < w.frameworks.size(); ++i) {
    for (size_t s = 0; s < members.size() && space_of[i] < 0; ++s) {
      if (EstimateAlike(w.frameworks[members[s].front()], w.frameworks[i]))
        space_of[i] = static_cast<int>(s);
    }
    if (space_of[i] < 0) {
      space_of[i] = static_cast<int>(members.size());
      members.emplace_back();
    }
    members[space_of[i]].push_back(static_cast<int>(i));
  }
  if (members.size() < 2)
    return spaces;
  for (const std::vector<int>& rows : members) {
    auto space = std::make_unique<FrameworkSpace>();
    space->w = w;
    space->w.frameworks.clear();
    space->pins = pins;
    // Pins without capabilities search every layout; they stay so in each space.
    if (!pins.frameworks.empty())
      space->pins.frameworks.clear();
    for (int i : rows) {
      space->w.frameworks.push_back(w.frameworks[i]);
      if (!pins.frameworks.empty())
        space->pins.frameworks.push_back(w.frameworks[i].caps);
    }
    space->rows = rows;
    space->memo = std::make_unique<LayoutMemo>(space->w, arch, space->pins);
    spaces.push_back(std::move(space));
  }
  return spaces;
}

LayoutSearch SearchSpaces(const FrameworkSpaces& spaces, const SpaceSearch& search) {
  LayoutSearch all;
  // The lowest floor a space was cut off at (kInf: none), and that space's reason.
  double cut_floor = kInf;
  std::string cut_reason;
  for (size_t s = 0; s < spaces.size(); ++s) {
    const FrameworkSpace& space = *spaces[s];
    LayoutSearch r = search(space, all.ok ? all.estimate.time.step_s : kNoBest);
    if (const Framework* f = FrameworkFor(space.w.frameworks, r.layout))
      r.layout.framework = space.rows[static_cast<size_t>(f - space.w.frameworks.data())];
    if (r.cut_off && r.floor_step_s < cut_floor) {
      cut_floor = r.floor_step_s;
      cut_reason = r.reason;
    }
    if (s == 0)
      all = std::move(r);
    else
      Merge(std::move(r), all);
  }
  // As within one search (Search::Training): a space cut off at a floor hides only layouts no
  // faster than it, so the best found stands when it is no slower than that floor.
  all.cut_off = cut_floor < kInf && (!all.ok || all.estimate.time.step_s > cut_floor);
  if (all.cut_off) {
    all.ok = false;
    all.floor_step_s = cut_floor;
    all.reason = cut_reason;
  } else if (all.ok) {
    all.reason.clear();
  }
  return all;
}

}  // namespace gpuplan::perf::internal
