#include "io/calibration_csv.h"

#include <map>
#include <string>

#include "io/csv.h"
#include "io/embedded_data.h"

namespace gpuplan::io {
namespace {

struct Range {
  double min, max;
};

// Parameters with a scope "*" (global) and their plausible ranges.
Status SetGlobal(Calibration& c, const std::string& name, double v, CsvRowReader& r) {
  const std::map<std::string, std::pair<double*, Range>> globals = {
      {"gemm_half_dim", {&c.gemm_half_dim, {0, 1e5}}},
      {"gemm_weight_read_factor", {&c.gemm_weight_read_factor, {0, 100}}},
      {"unfused_attention_factor", {&c.unfused_attention_factor, {0.01, 1}}},
      {"fp8_gemm_factor", {&c.fp8_gemm_factor, {0.01, 1}}},
      {"elementwise_traffic", {&c.elementwise_traffic, {0, 100}}},
      {"eager_elementwise_traffic", {&c.eager_elementwise_traffic, {0, 100}}},
      {"unfused_score_passes", {&c.unfused_score_passes, {0, 100}}},
      {"train_layer_overhead_us", {&c.train_layer_overhead_us, {0, 1e5}}},
      {"eager_launch_us", {&c.eager_launch_us, {0, 1e4}}},
      {"nvlink_efficiency", {&c.nvlink_efficiency, {0.01, 1}}},
      {"pcie_efficiency", {&c.pcie_efficiency, {0.01, 1}}},
      {"rdma_efficiency", {&c.rdma_efficiency, {0.01, 1}}},
      {"tcp_efficiency", {&c.tcp_efficiency, {0.01, 1}}},
      {"collective_latency_us", {&c.collective_latency_us, {0, 1e4}}},
      {"dp_overlap", {&c.dp_overlap, {0, 1}}},
      {"zero3_overlap", {&c.zero3_overlap, {0, 1}}},
      {"moe_load_imbalance", {&c.moe_load_imbalance, {1, 8}}},
      {"moe_a2a_overlap", {&c.moe_a2a_overlap, {0, 1}}},
      {"moe_layer_overhead_us", {&c.moe_layer_overhead_us, {0, 1e5}}},
      {"cpu_adam_gparams_per_s", {&c.cpu_adam_gparams_per_s, {0.001, 1000}}},
      {"host_ram_usable_fraction", {&c.host_ram_usable_fraction, {0.05, 1}}},
      {"cuda_context_gib", {&c.cuda_context_gib, {0, 16}}},
      {"allocator_fragmentation", {&c.allocator_fragmentation, {0, 1}}},
      {"transient_factor", {&c.transient_factor, {0, 10}}},
      {"hf_layer_overhead_us", {&c.hf_layer_overhead_us, {0, 1e5}}},
      {"vllm_layer_overhead_us", {&c.vllm_layer_overhead_us, {0, 1e5}}},
      {"trtllm_layer_overhead_us", {&c.trtllm_layer_overhead_us, {0, 1e5}}},
      {"hf_step_overhead_us", {&c.hf_step_overhead_us, {0, 1e6}}},
      {"torch_layer_overhead_us", {&c.torch_layer_overhead_us, {0, 1e5}}},
      {"torch_step_overhead_us", {&c.torch_step_overhead_us, {0, 1e6}}},
      {"hf_kv_expand_passes", {&c.hf_kv_expand_passes, {0, 100}}},
      {"hf_quant_layer_overhead_us", {&c.hf_quant_layer_overhead_us, {0, 1e5}}},
      {"vllm_step_overhead_us", {&c.vllm_step_overhead_us, {0, 1e6}}},
      {"trtllm_step_overhead_us", {&c.trtllm_step_overhead_us, {0, 1e6}}},
      {"vllm_max_sequences", {&c.vllm_max_sequences, {1, 1e6}}},
      {"trtllm_max_sequences", {&c.trtllm_max_sequences, {1, 1e6}}},
      {"vllm_gpu_memory_utilization", {&c.vllm_gpu_memory_utilization, {0.05, 1}}},
      {"trtllm_free_gpu_memory_fraction", {&c.trtllm_free_gpu_memory_fraction, {0.05, 1}}},
      {"conv_gemm_dim", {&c.conv_gemm_dim, {1, 1e6}}},
      {"fallback_link_gbs", {&c.fallback_link_gbs, {0.001, 1e4}}},
      {"static_max_batch", {&c.static_max_batch, {1, 1e6}}},
      {"interactive_ttft_ms", {&c.interactive_ttft_ms, {1, 3.6e6}}},
      {"interactive_tpot_ms", {&c.interactive_tpot_ms, {1, 3.6e6}}},
      {"hpc_min_fp64_tflops", {&c.hpc_min_fp64_tflops, {0, 1e4}}},
      {"page_cache_fraction", {&c.page_cache_fraction, {0.01, 1}}},
      {"dataset_disk_factor", {&c.dataset_disk_factor, {1, 10}}},
      {"disk_headroom_gib", {&c.disk_headroom_gib, {0, 1e6}}},
      {"min_data_disk_gib", {&c.min_data_disk_gib, {1, 1e6}}},
      {"serving_disk_extra_gib", {&c.serving_disk_extra_gib, {0, 1e6}}},
  };
  auto it = globals.find(name);
  if (it == globals.end()) {
    r.Fail("parameter", "unknown parameter \"" + name + "\" for scope \"*\"");
    return r.status();
  }
  if (v < it->second.second.min || v > it->second.second.max) {
    r.Fail("value", "expected " + std::to_string(it->second.second.min) + " to " +
                        std::to_string(it->second.second.max) + " for " + name);
    return r.status();
  }
  *it->second.first = v;
  return Status::Ok();
}

GpuEfficiency* FindOrAdd(std::vector<GpuEfficiency>& rows, const std::string& gpu) {
  for (GpuEfficiency& g : rows) {
    if (g.gpu == gpu)
      return &g;
  }
  rows.push_back(GpuEfficiency{});
  rows.back().gpu = gpu;
  return &rows.back();
}

}  // namespace

Result<Calibration> ParseCalibration(std::string_view text, const std::string& file) {
  Result<CsvTable> table = CsvTable::Parse(text, file);
  if (!table.ok())
    return table.status();
  if (Status s = table->RequireColumns({"parameter", "scope", "value", "unit", "source", "fitted"});
      !s.ok()) {
    return s;
  }
  Calibration c;
  for (const CsvRow& row : table->rows()) {
    CsvRowReader r(*table, row);
    const std::string name = r.Text("parameter", true);
    const std::string scope = r.Text("scope", true);
    const double v = r.Number("value", 0, 1e7);
    r.Text("source", true);
    r.Text("fitted", true);
    if (!r.status().ok())
      return r.status();
    if (scope == "*") {
      if (Status s = SetGlobal(c, name, v, r); !s.ok())
        return s;
      continue;
    }
    // Per-architecture rows ("fallback" is the row for unlisted architectures) and per-GPU
    // corrections (scope gpu:NAME) set one of the efficiency fractions.
    const std::map<std::string, int> fractions = {{"gemm_fraction", 0},
                                                  {"memory_bw_fraction", 1},
                                                  {"attention_fraction", 2},
                                                  {"simt_fraction", 3},
                                                  {"cudnn_attention_fraction", 4}};
    const auto field = fractions.find(name);
    if (field == fractions.end()) {
      r.Fail("parameter",
             "expected gemm_fraction, memory_bw_fraction, attention_fraction, "
             "cudnn_attention_fraction or simt_fraction for scope \"" +
                 scope + "\", got \"" + name + "\"");
      return r.status();
    }
    if (v <= 0 || v > 1) {
      r.Fail("value", "expected a fraction in (0, 1]");
      return r.status();
    }
    if (scope.rfind("gpu:", 0) == 0) {
      GpuEfficiency* g = FindOrAdd(c.gpus, scope.substr(4));
      std::optional<double>* slots[] = {&g->gemm_fraction, &g->memory_bw_fraction,
                                        &g->attention_fraction, &g->simt_fraction,
                                        &g->cudnn_attention_fraction};
      *slots[field->second] = v;
      continue;
    }
    ArchEfficiency* a = scope == "fallback" ? &c.fallback : nullptr;
    if (a == nullptr) {
      for (ArchEfficiency& x : c.archs) {
        if (x.architecture == scope)
          a = &x;
      }
    }
    if (a == nullptr) {
      c.archs.push_back(c.fallback);  // unset fields start from the fallback's
      a = &c.archs.back();
      a->architecture = scope;
    }
    if (field->second == 4) {
      a->cudnn_attention_fraction = v;
      continue;
    }
    double* slots[] = {&a->gemm_fraction, &a->memory_bw_fraction, &a->attention_fraction,
                       &a->simt_fraction};
    *slots[field->second] = v;
  }
  return c;
}

Result<Calibration> LoadCalibration() {
  return ParseCalibration(EmbeddedData("calibration.csv"), "data/calibration.csv");
}

}  // namespace gpuplan::io
