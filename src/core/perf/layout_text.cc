// One wording of a layout for the why, explain and estimate outputs.
#include <string>

#include "gpuplan/estimate.h"

namespace gpuplan::perf {

std::string DescribeLayout(const Layout& l) {
  std::string s = "tp=" + std::to_string(l.tp);
  if (l.cp > 1)
    s += " cp=" + std::to_string(l.cp);
  s += " pp=" + std::to_string(l.pp);
  if (l.vp > 1)
    s += " vp=" + std::to_string(l.vp) + " (interleaved)";
  s += " dp=" + std::to_string(l.dp);
  if (l.ep > 1)
    s += " ep=" + std::to_string(l.ep);
  s += " ZeRO-" + std::to_string(l.zero) + ", micro-batch " + std::to_string(l.micro_batch);
  if (l.recompute != Recompute::kNone)
    s += ", " + std::string(RecomputeName(l.recompute)) + " recompute";
  if (l.offload != Offload::kNone)
    s += ", " + std::string(OffloadName(l.offload)) + " offload to host RAM";
  if (l.optimizer_in_backward)
    s += ", optimizer in backward";
  if (l.activation_offload)
    s += ", activations offloaded";
  return s;
}

}  // namespace gpuplan::perf
