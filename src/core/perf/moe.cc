// Mixture of Experts in the performance model: the MoE parts of the dimensions, how experts are
// sharded, the token dispatch/combine all-to-all and the expert GEMMs' efficiency.
#include <algorithm>
#include <cmath>

#include "perf/internal.h"

namespace gpuplan::perf::internal {

// The MoE parts of Dims: routed experts per layer, the token's MLP width (dense layers' ffn,
// MoE layers' top_k experts plus the shared ones) and its routed copies.
void ApplyMoeDims(const ModelArch& m, Dims& d) {
  const double layers = m.layers;
  const double moe_layers = m.MoeLayers();
  d.moe_layer_share = moe_layers / layers;
  d.expert_layer_params = m.RoutedExpertParams() / layers;
  d.active_expert_layer_params = d.expert_layer_params * m.moe.top_k / m.moe.experts;
  const double shared_width =
      m.moe.shared_experts * (m.moe.shared_ffn > 0 ? m.moe.shared_ffn : m.moe.expert_ffn);
  d.ffn = ((layers - moe_layers) * m.ffn +
           moe_layers * (m.moe.top_k * static_cast<double>(m.moe.expert_ffn) + shared_width)) /
          layers;
  d.routed_copies = m.moe.top_k * d.moe_layer_share;
}

// GPUs one expert's weights are spread over: ep ranks, each holding whole experts, times the
// tensor-parallel split while ep x tp fits in a pipeline stage's tp x dp GPUs (Megatron's MoE
// parallel folding gives experts their own tp = 1 once ep spans the data-parallel ranks).
double ExpertShards(const Layout& l) {
  return std::min(static_cast<double>(l.ep) * l.tp, static_cast<double>(l.tp) * l.dp);
}

namespace {

// Token dispatch (or combine) of `tokens` on this GPU in one MoE layer over an ep group of
// `ep` ranks, `top_k` copies of `token_bytes` each, routed uniformly. Inside a node the copies
// go over NVLink/PCIe; across nodes a token is sent once per remote node its experts live on and
// forwarded inside that node (DeepEP / Megatron's hierarchical dispatch; DeepSeek-V3, 3.2.2):
// n (1 - (1 - 1/n)^k) (n - 1)/n remote copies for n nodes. The slower link bounds it.
double DispatchSeconds(double tokens, double top_k, double token_bytes, int ep, const Hardware& hw,
                       const Calibration& cal) {
  if (ep <= 1 || tokens <= 0)
    return 0;
  const int local = std::max(1, std::min(ep, hw.gpus_per_node));
  const double n = static_cast<double>(ep) / local;  // nodes the group spans
  const double intra_eff =
      hw.intra_link == LinkKind::kPcie ? cal.pcie_efficiency : cal.nvlink_efficiency;
  const double intra = std::max(cal.fallback_link_gbs * 1e9, hw.intra_gbs * 1e9 * intra_eff);
  const double inter = std::max(1e8, hw.inter_node_gbps / 8 * 1e9 *
                                         (hw.rdma ? cal.rdma_efficiency : cal.tcp_efficiency) /
                                         std::max(1, hw.gpus_per_node));
  // Copies to this node's other GPUs, plus the copies that arrive from remote nodes and are
  // forwarded to their GPU (on average as many as are sent away).
  const double remote_share = (ep - local) / static_cast<double>(ep);
  const double intra_copies = top_k * (local - 1.0) / ep + top_k * remote_share;
  const double remote_nodes = n > 1 ? n * (1 - std::pow(1 - 1 / n, top_k)) * (n - 1) / n : 0;
  const double t_intra = tokens * token_bytes * intra_copies / intra;
  const double t_inter = tokens * token_bytes * remote_nodes / inter;
  return std::max(t_intra, t_inter) + 2 * cal.collective_latency_us * 1e-6;
}

}  // namespace

// Token dispatch and combine of one micro-batch's `tokens` on this GPU over all its MoE layers
// (`moe_layers`), `passes` all-to-alls per layer (forward dispatch + combine = 2, backward 2
// more, a full-recompute forward 2 more): top_k copies of each token's hidden state; the
// `hidden` fraction of them runs behind compute.
double MoeAllToAllSeconds(const Dims& d, const Layout& l, const Hardware& hw,
                          const Calibration& cal, double tokens, double moe_layers, double passes,
                          double act_bytes, double hidden) {
  if (l.ep <= 1 || d.routed_copies <= 0)
    return 0;
  const double top_k = d.routed_copies / d.moe_layer_share;
  return moe_layers * passes * DispatchSeconds(tokens, top_k, d.h * act_bytes, l.ep, hw, cal) *
         (1 - hidden);
}

double ExpertTensorSplit(const Layout& l) {
  return std::max(1.0, ExpertShards(l) / std::max(1, l.ep));
}

// Achieved GEMM efficiency of the expert GEMMs: each expert multiplies only the tokens routed
// to it, `tokens` x top_k / experts rows (the ep ranks' tokens together), through this GPU's
// share of its expert_ffn-wide matrices (expert_ffn / split: tensor parallelism splits each
// expert as it splits a dense MLP), so small batches run as weight-bound GEMVs and narrow
// shards as small GEMMs.
double ExpertGemmEfficiency(const ModelArch& arch, const ArchEfficiency& eff,
                            const Calibration& cal, const Gpu& gpu, double peak, double tokens,
                            double split, Precision p, double weight_bytes) {
  const double rows = tokens * arch.moe.top_k / arch.moe.experts;
  return GemmEfficiency(eff, cal, gpu, peak, arch.moe.expert_ffn / std::max(1.0, split),
                        std::max(1e-3, rows), p, weight_bytes);
}

double ExpertGemmSeconds(const ModelArch& arch, const ArchEfficiency& eff, const Calibration& cal,
                         const Gpu& gpu, double peak, double tokens, double split, Precision p,
                         double weight_bytes, double flops) {
  const double at_rows =
      flops / (peak * 1e12 *
               ExpertGemmEfficiency(arch, eff, cal, gpu, peak, tokens, split, p, weight_bytes));
  const double math = flops / (peak * 1e12 *
                               ExpertGemmEfficiency(arch, eff, cal, gpu, peak, kSaturatedGemmRows,
                                                    split, p, weight_bytes));
  return math * cal.moe_load_imbalance + (at_rows - math);
}

}  // namespace gpuplan::perf::internal
