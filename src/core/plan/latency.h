// The latency side of a serving plan (internal to the core): the targets it is held to
// (ServingTargets in gpuplan/plan.h), the advice on a pick near or over one, and what would
// meet them when no configuration does.
#ifndef GPUPLAN_SRC_CORE_PLAN_LATENCY_H_
#define GPUPLAN_SRC_CORE_PLAN_LATENCY_H_

#include <optional>
#include <string>

#include "gpuplan/calibration.h"
#include "gpuplan/plan.h"
#include "gpuplan/rules.h"
#include "serving/search.h"

namespace gpuplan::planner {

using serving::ServingSetup;

// The fastest setups of the instance types that fit the model but missed the targets.
struct LatencyMisses {
  struct Seen {
    ServingSetup::Fastest at;
    std::string instance;
  };
  Seen tpot, ttft;
  int types = 0;  // hardware searched that missed
  void Add(const ServingSetup& s, const std::string& instance);
};

// "TTFT <= 2000 ms and TPOT <= 100 ms (interactive defaults)"; "" without targets.
std::string TargetsText(const LatencyTargets& t);

// The plan note on targets that include an interactive default: where they come from and how
// to change them; "" when every target is the workload's own (or there is none).
std::string DefaultTargetsNote(const LatencyTargets& t);

// Advice on `c`'s latency: over a target (a fixed layout is not held to them), near one (the
// model's p90 error passes it; within 10% without ranges), or, with no target in batch mode,
// too slow for a person reading the stream. nullopt when none applies.
std::optional<rules::Advice> LatencyAdvice(const Workload& w, const LatencyTargets& t,
                                           const Calibration& cal, const Candidate& c);

// The note for a serving plan that nothing could meet the targets of: the fastest TTFT/TPOT
// seen, and what would meet them (more GPUs per copy, a faster GPU, fewer bytes per weight, a
// smaller fixed batch, a shorter prompt, a looser target).
std::string NoSetupMeetsNote(const Workload& w, const LatencyTargets& t, const LatencyMisses& m);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_PLAN_LATENCY_H_
