// The small layout-search cases that tests compare with brute force (ExhaustiveLayoutSearch):
// small enough to enumerate every configuration, varied enough to reach every dimension
// (tensor, context and pipeline parallel, ZeRO, offload, adapters).
#ifndef GPUPLAN_TESTS_TESTING_LAYOUT_CASES_H_
#define GPUPLAN_TESTS_TESTING_LAYOUT_CASES_H_

#include <string>
#include <vector>

#include "gpuplan/estimate.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::testing {

inline Workload Training(Method method, int seq, int global_batch) {
  Workload w;
  w.task = method == Method::kFull ? Task::kPretrain : Task::kFinetune;
  w.method = method;
  w.seq_len = seq;
  w.global_batch = global_batch;
  if (method == Method::kQlora)
    w.weight_bits = 4;
  return w;
}

struct LayoutCase {
  std::string name;
  Workload w;
  ModelArch arch;
  Gpu gpu;
  int gpus, per_node;
  double inter_gbps;  // between nodes (0 = the default fabric)
  bool rdma;
  double host_gib;  // host RAM per node (0 = unknown: no offload)

  perf::Hardware Hardware() const {
    perf::Hardware hw = perf::HardwareFor(gpu, gpus, per_node);
    if (inter_gbps > 0)
      hw.inter_node_gbps = inter_gbps;
    hw.rdma = rdma;
    hw.host_memory_gib = host_gib;
    return hw;
  }
};

inline std::vector<LayoutCase> SmallLayoutCases() {
  return {
      {"7b_pretrain_one_node", Training(Method::kFull, 2048, 16), Llama(32, 4096, 32, 32, 11008),
       A100(), 8, 8, 0, true, 0},
      {"13b_two_nodes_over_tcp", Training(Method::kFull, 2048, 32), Llama(40, 5120, 40, 40, 13824),
       A100(), 16, 8, 64, false, 0},
      {"7b_lora_four_pcie_a10", Training(Method::kLora, 2048, 32), Llama(32, 4096, 32, 32, 11008),
       A10(), 4, 4, 0, true, 0},
      {"3b_long_context_cp", Training(Method::kFull, 32768, 8), Llama(16, 3072, 24, 8, 8192),
       A100(), 8, 8, 0, true, 0},
      {"8b_full_on_one_a10_needs_offload", Training(Method::kFull, 1024, 4),
       Llama(32, 4096, 32, 8, 14336), A10(), 1, 1, 0, true, 500},
      {"7b_full_on_eight_a10_needs_sharding", Training(Method::kFull, 2048, 16),
       Llama(32, 4096, 32, 32, 11008), A10(), 8, 8, 0, true, 0},
      {"gqa_pipeline_inside_node", Training(Method::kFull, 4096, 8), Llama(24, 2048, 16, 4, 5632),
       A10(), 4, 4, 0, true, 0},
      // Memory caps the micro-batch well below the local batch, so the bounds must use what fits
      // (compute falls steeply with the micro-batch once cp splits the sequence).
      {"13b_memory_bound_pipelines_over_tcp", Training(Method::kFull, 4096, 32),
       Llama(40, 5120, 40, 40, 13824), A10(), 16, 8, 32, false, 0},
      {"7b_long_sequence_cp_and_pp_over_rdma", Training(Method::kFull, 16384, 16),
       Llama(32, 4096, 32, 32, 11008), A100(), 16, 8, 200, true, 0},
  };
}

}  // namespace gpuplan::testing

#endif  // GPUPLAN_TESTS_TESTING_LAYOUT_CASES_H_
