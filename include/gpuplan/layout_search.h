// The one layout search: the fastest parallel layout of a job on given hardware, as the
// performance model sees it. `gpuplan plan` runs it for every hardware candidate and
// `gpuplan estimate` runs it when the user leaves layout dimensions open, so both report the
// same layout for the same hardware.
//
//   perf::LayoutPins pins;             // nothing pinned: search every dimension
//   perf::LayoutSearch s = perf::SearchLayout(w, arch, hw, cal, pins);
//   if (s.ok) Use(s.layout, s.estimate.time.step_s);
//
// Training space: every tp dividing the node's GPUs and the heads; cp dividing the rest with
// seq_len divisible by 2 cp; pp any divisor of the rest with pp <= layers (inside a node too);
// vp dividing layers / pp; dp the rest, dividing the global batch; ZeRO 0-3; micro-batch every
// divisor of the local batch; recomputation none, selective or full; and of those only the
// layouts one of the workload's frameworks runs (LayoutPins::frameworks). Offload (optimizer or
// parameters), optimizer-in-backward and activation offload are tried only when nothing fits
// without them. Pruning keeps the optimum provably (see layout_search.cc): best-first over lower
// bounds taken at the largest micro-batch each recomputation fits, and per micro-batch only the
// lightest recomputation that fits.
//
// Thread safety: pure function over const inputs.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_LAYOUT_SEARCH_H_
#define GPUPLAN_INCLUDE_GPUPLAN_LAYOUT_SEARCH_H_

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/estimate.h"

namespace gpuplan::perf {

// Dimensions the caller fixes; the search covers the others. micro_batch and recompute pins
// also come from the workload (w.micro_batch, w.recompute).
struct LayoutPins {
  std::optional<int> tp, cp, pp, vp, dp, ep, zero, micro_batch;
  std::optional<Recompute> recompute;
  std::optional<Offload> offload;
  std::optional<bool> optimizer_in_backward, activation_offload, sequence_parallel;
  // The frameworks whose layouts the space holds: a layout is tried only when one of them runs
  // it (gpuplan/framework.h). Empty = every layout.
  std::vector<FrameworkCaps> frameworks;
};

// The pins a workload sets: micro_batch, recompute, cp, virtual_stages, offload,
// optimizer_in_backward, activation_offload, and its frameworks' capabilities.
LayoutPins PinsFrom(const Workload& w);

struct LayoutSearch {
  bool ok = false;                   // a layout that fits was found
  Layout layout;                     // the fastest that fits (else the one with the least memory)
  Estimate estimate;                 // its estimate (set whenever any layout could be estimated)
  bool memory_savers = false;        // the pick uses savers the search added (offload, optimizer in
                                     // backward, activation offload): to fit, or to be faster
  double without_savers_step_s = 0;  // the best step without added savers (0: none fits, or
                                     // that search was cut off)
  bool host_limited = false;         // some layout fit the GPU but not the host's RAM (offload)
  long long structures = 0;          // parallel structures (tp, cp, pp, vp, dp, zero, savers) valid
  long long configurations = 0;      // structures x micro-batches x recomputation covered
  long long evaluated = 0;           // estimator calls made
  long long explored = 0;            // structures whose micro-batches were searched (not pruned)
  double min_memory_gib = 0;         // least per-GPU memory over what was estimated (0 = none)
  std::string reason;                // why nothing fits or works (empty when ok)
  // Stopped because the planner's cut-off (src/core/perf/layout_search_cutoff.h) said no step of
  // at least floor_step_s could matter (ok is then false, and floor_step_s is a lower bound of
  // the step time of every layout of the space). The search below never sets it.
  bool cut_off = false;
  double floor_step_s = 0;
};

// The fastest layout of `w` on `hw` that fits, over every dimension `pins` leaves open.
LayoutSearch SearchLayout(const Workload& w, const ModelArch& arch, const Hardware& hw,
                          const Calibration& cal, const LayoutPins& pins = {});

}  // namespace gpuplan::perf

#endif  // GPUPLAN_INCLUDE_GPUPLAN_LAYOUT_SEARCH_H_
