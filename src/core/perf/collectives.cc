// Collective communication: ring times and the bandwidth of a group of GPUs.
#include <algorithm>

#include "perf/internal.h"

namespace gpuplan::perf::internal {

// Ring collective time (NCCL): an all-reduce moves 2(n-1)/n of the buffer over the slowest
// link, an all-gather or reduce-scatter (n-1)/n; plus a latency per ring step (Thakur et al.
// 2005; NCCL docs "busbw").
double RingTime(double bytes, int n, double factor, double bw_bytes_s, double latency_s) {
  if (n <= 1 || bytes <= 0)
    return 0;
  const double nn = n;
  return factor * (nn - 1) / nn * bytes / bw_bytes_s + factor * (nn - 1) * latency_s;
}

// Effective bandwidth (bytes/s) of a collective over `n` GPUs placed `per_node` to a node: over
// the intra-node link inside a node; across nodes the ring crosses each node's NICs once per
// channel, so the node's total network bandwidth is the bottleneck (NCCL multi-rail rings).
double GroupBandwidth(const Hardware& hw, const Calibration& cal, int n, int span_per_node) {
  const double intra_eff =
      hw.intra_link == LinkKind::kPcie ? cal.pcie_efficiency : cal.nvlink_efficiency;
  const double intra = hw.intra_gbs * 1e9 * intra_eff;
  if (n <= span_per_node || hw.nodes <= 1)
    return intra > 0 ? intra : cal.fallback_link_gbs * 1e9;
  const double inter =
      hw.inter_node_gbps / 8 * 1e9 * (hw.rdma ? cal.rdma_efficiency : cal.tcp_efficiency);
  if (inter <= 0)
    return cal.fallback_link_gbs * 1e9;
  return intra > 0 ? std::min(intra, inter) : inter;
}

}  // namespace gpuplan::perf::internal
