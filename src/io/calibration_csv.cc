#include "io/calibration_csv.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/csv.h"
#include "io/embedded_data.h"

namespace gpuplan::io {
namespace {

struct Range {
  double min, max;
};

// The parameters of scope "*" (global), the field each sets and its plausible range. Every one
// needs a row: the file is their only source (calibration.h has no values of its own).
struct Global {
  const char* name;
  double Calibration::*field;
  Range range;
};
constexpr Global kGlobals[] = {
    {"gemm_half_dim", &Calibration::gemm_half_dim, {0, 1e5}},
    {"gemm_weight_read_factor", &Calibration::gemm_weight_read_factor, {0, 100}},
    {"unfused_attention_factor", &Calibration::unfused_attention_factor, {0.01, 1}},
    {"fp8_gemm_factor", &Calibration::fp8_gemm_factor, {0.01, 1}},
    {"elementwise_traffic", &Calibration::elementwise_traffic, {0, 100}},
    {"eager_elementwise_traffic", &Calibration::eager_elementwise_traffic, {0, 100}},
    {"unfused_score_passes", &Calibration::unfused_score_passes, {0, 100}},
    {"train_layer_overhead_us", &Calibration::train_layer_overhead_us, {0, 1e5}},
    {"eager_launch_us", &Calibration::eager_launch_us, {0, 1e4}},
    {"zero3_module_hook_us", &Calibration::zero3_module_hook_us, {0, 1e5}},
    {"nvlink_efficiency", &Calibration::nvlink_efficiency, {0.01, 1}},
    {"pcie_efficiency", &Calibration::pcie_efficiency, {0.01, 1}},
    {"host_link_gpus", &Calibration::host_link_gpus, {1, 16}},
    {"rdma_efficiency", &Calibration::rdma_efficiency, {0.01, 1}},
    {"tcp_efficiency", &Calibration::tcp_efficiency, {0.01, 1}},
    {"collective_latency_us", &Calibration::collective_latency_us, {0, 1e4}},
    {"engine_allreduce_us", &Calibration::engine_allreduce_us, {0, 1e4}},
    {"dp_overlap", &Calibration::dp_overlap, {0, 1}},
    {"zero3_overlap", &Calibration::zero3_overlap, {0, 1}},
    {"moe_load_imbalance", &Calibration::moe_load_imbalance, {1, 8}},
    {"moe_a2a_overlap", &Calibration::moe_a2a_overlap, {0, 1}},
    {"moe_a2a_overlap_on", &Calibration::moe_a2a_overlap_on, {0, 1}},
    {"tp_comm_overlap_on", &Calibration::tp_comm_overlap_on, {0, 1}},
    {"moe_layer_overhead_us", &Calibration::moe_layer_overhead_us, {0, 1e5}},
    {"cpu_adam_gparams_per_s", &Calibration::cpu_adam_gparams_per_s, {0.001, 1000}},
    {"host_ram_usable_fraction", &Calibration::host_ram_usable_fraction, {0.05, 1}},
    {"cuda_context_gib", &Calibration::cuda_context_gib, {0, 16}},
    {"allocator_fragmentation", &Calibration::allocator_fragmentation, {0, 1}},
    {"transient_factor", &Calibration::transient_factor, {0, 10}},
    {"hf_layer_overhead_us", &Calibration::hf_layer_overhead_us, {0, 1e5}},
    {"vllm_layer_overhead_us", &Calibration::vllm_layer_overhead_us, {0, 1e5}},
    {"trtllm_layer_overhead_us", &Calibration::trtllm_layer_overhead_us, {0, 1e5}},
    {"hf_step_overhead_us", &Calibration::hf_step_overhead_us, {0, 1e6}},
    {"torch_layer_overhead_us", &Calibration::torch_layer_overhead_us, {0, 1e5}},
    {"torch_step_overhead_us", &Calibration::torch_step_overhead_us, {0, 1e6}},
    {"hf_kv_expand_passes", &Calibration::hf_kv_expand_passes, {0, 100}},
    {"hf_quant_layer_overhead_us", &Calibration::hf_quant_layer_overhead_us, {0, 1e5}},
    {"hf_expert_iteration_us", &Calibration::hf_expert_iteration_us, {0, 1e5}},
    {"vllm_step_overhead_us", &Calibration::vllm_step_overhead_us, {0, 1e6}},
    {"trtllm_step_overhead_us", &Calibration::trtllm_step_overhead_us, {0, 1e6}},
    {"vllm_max_sequences", &Calibration::vllm_max_sequences, {1, 1e6}},
    {"trtllm_max_sequences", &Calibration::trtllm_max_sequences, {1, 1e6}},
    {"vllm_gpu_memory_utilization", &Calibration::vllm_gpu_memory_utilization, {0.05, 1}},
    {"trtllm_free_gpu_memory_fraction", &Calibration::trtllm_free_gpu_memory_fraction, {0.05, 1}},
    {"conv_gemm_dim", &Calibration::conv_gemm_dim, {1, 1e6}},
    {"other_layer_overhead_us", &Calibration::other_layer_overhead_us, {0, 1e5}},
    {"jpeg_decode_ms", &Calibration::jpeg_decode_ms, {0, 1e4}},
    {"fallback_link_gbs", &Calibration::fallback_link_gbs, {0.001, 1e4}},
    {"static_max_batch", &Calibration::static_max_batch, {1, 1e6}},
    {"interactive_ttft_ms", &Calibration::interactive_ttft_ms, {1, 3.6e6}},
    {"interactive_tpot_ms", &Calibration::interactive_tpot_ms, {1, 3.6e6}},
    {"hpc_min_fp64_tflops", &Calibration::hpc_min_fp64_tflops, {0, 1e4}},
    {"page_cache_fraction", &Calibration::page_cache_fraction, {0.01, 1}},
    {"dataset_disk_factor", &Calibration::dataset_disk_factor, {1, 10}},
    {"disk_headroom_gib", &Calibration::disk_headroom_gib, {0, 1e6}},
    {"min_data_disk_gib", &Calibration::min_data_disk_gib, {1, 1e6}},
    {"serving_disk_extra_gib", &Calibration::serving_disk_extra_gib, {0, 1e6}},
    {"pretrain_batch_mtokens_lt1b", &Calibration::pretrain_batch_mtokens_lt1b, {0.001, 1e3}},
    {"pretrain_batch_mtokens_lt3b", &Calibration::pretrain_batch_mtokens_lt3b, {0.001, 1e3}},
    {"pretrain_batch_mtokens_lt20b", &Calibration::pretrain_batch_mtokens_lt20b, {0.001, 1e3}},
    {"pretrain_batch_mtokens_large", &Calibration::pretrain_batch_mtokens_large, {0.001, 1e3}},
    {"pretrain_batch_samples_other", &Calibration::pretrain_batch_samples_other, {1, 1e7}},
    {"interruptions_per_gpu_hour", &Calibration::interruptions_per_gpu_hour, {0, 0.01}},
    {"restart_minutes", &Calibration::restart_minutes, {0, 1440}},
    {"checkpoint_write_gbps_per_node", &Calibration::checkpoint_write_gbps_per_node, {0.001, 1000}},
    {"pretrain_min_steps", &Calibration::pretrain_min_steps, {1, 1e7}},
    {"reasoning_output_tokens", &Calibration::reasoning_output_tokens, {1, 1e6}},
};

// The efficiency fractions a per-architecture ("fallback" = unlisted architectures) or per-GPU
// (gpu:NAME) row may set, in the order of the error message.
struct Fraction {
  const char* name;
  std::optional<double> GpuEfficiency::*field;
  bool fallback_needs;  // the fallback row must give it (every GPU needs a value)
};
constexpr Fraction kFractions[] = {
    {"gemm_fraction", &GpuEfficiency::gemm_fraction, true},
    {"memory_bw_fraction", &GpuEfficiency::memory_bw_fraction, true},
    {"attention_fraction", &GpuEfficiency::attention_fraction, true},
    {"cudnn_attention_fraction", &GpuEfficiency::cudnn_attention_fraction, false},
    {"serving_attention_fraction", &GpuEfficiency::serving_attention_fraction, false},
    {"simt_fraction", &GpuEfficiency::simt_fraction, true},
};

// The rows of one scope ("fallback", an architecture, or gpu:NAME) as read; `gpu` holds the
// scope's name.
GpuEfficiency* FindOrAdd(std::vector<GpuEfficiency>& rows, const std::string& name) {
  for (GpuEfficiency& g : rows) {
    if (g.gpu == name)
      return &g;
  }
  rows.push_back(GpuEfficiency{});
  rows.back().gpu = name;
  return &rows.back();
}

// `row`'s values over `base`'s: the efficiency of an architecture over the fallback.
ArchEfficiency Resolve(const GpuEfficiency& row, const ArchEfficiency& base) {
  ArchEfficiency a = row.Over(base);
  a.architecture = row.gpu;
  return a;
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
  std::map<std::string, int> seen;   // "parameter,scope" -> line, for duplicates
  std::vector<GpuEfficiency> archs;  // "fallback" and architecture rows, in file order
  std::vector<GpuEfficiency> gpus;   // gpu:NAME rows
  for (const CsvRow& row : table->rows()) {
    CsvRowReader r(*table, row);
    const std::string name = r.Text("parameter", true);
    const std::string scope = r.Text("scope", true);
    const double v = r.Number("value", 0, 1e7);
    r.Text("source", true);
    r.Text("fitted", true);
    if (!r.status().ok())
      return r.status();
    if (auto [it, added] = seen.emplace(name + "," + scope, row.line); !added) {
      r.Fail("parameter", "parameter \"" + name + "\" for scope \"" + scope +
                              "\" is given twice (first on line " + std::to_string(it->second) +
                              ")");
      return r.status();
    }
    if (scope == "*") {
      const Global* g = std::find_if(std::begin(kGlobals), std::end(kGlobals),
                                     [&](const Global& x) { return name == x.name; });
      if (g == std::end(kGlobals)) {
        r.Fail("parameter", "unknown parameter \"" + name + "\" for scope \"*\"");
        return r.status();
      }
      if (v < g->range.min || v > g->range.max) {
        r.Fail("value", "expected " + std::to_string(g->range.min) + " to " +
                            std::to_string(g->range.max) + " for " + name);
        return r.status();
      }
      c.*(g->field) = v;
      continue;
    }
    const bool gpu = scope.rfind("gpu:", 0) == 0;
    // The part an architecture's attention fractions were measured on (a ratio, not a
    // fraction; a GPU's own rows need none: they hold for that GPU as they are).
    if (name == "attention_reference_ratio") {
      if (gpu) {
        r.Fail("scope",
               "attention_reference_ratio belongs to an architecture or \"fallback\", "
               "not to \"" +
                   scope + "\"");
        return r.status();
      }
      if (v < 1 || v > 1000) {
        r.Fail("value", "expected a tensor-to-FP32 ratio from 1 to 1000");
        return r.status();
      }
      FindOrAdd(archs, scope)->attention_reference_ratio = v;
      continue;
    }
    // Per-architecture rows ("fallback" is the row for unlisted architectures) and per-GPU
    // corrections (scope gpu:NAME) set one of the efficiency fractions.
    const Fraction* f = std::find_if(std::begin(kFractions), std::end(kFractions),
                                     [&](const Fraction& x) { return name == x.name; });
    if (f == std::end(kFractions)) {
      r.Fail("parameter",
             "expected gemm_fraction, memory_bw_fraction, attention_fraction, "
             "cudnn_attention_fraction, serving_attention_fraction, simt_fraction or "
             "attention_reference_ratio for scope "
             "\"" +
                 scope + "\", got \"" + name + "\"");
      return r.status();
    }
    if (v <= 0 || v > 1) {
      r.Fail("value", "expected a fraction in (0, 1]");
      return r.status();
    }
    GpuEfficiency* target = gpu ? FindOrAdd(gpus, scope.substr(4)) : FindOrAdd(archs, scope);
    (*target).*(f->field) = v;
  }

  // A parameter without a row is an error naming it: no value stands in for it.
  std::vector<std::string> missing;
  for (const Global& g : kGlobals) {
    if (!seen.count(std::string(g.name) + ",*"))
      missing.push_back(std::string(g.name) + ",*");
  }
  for (const Fraction& f : kFractions) {
    if (f.fallback_needs && !seen.count(std::string(f.name) + ",fallback"))
      missing.push_back(std::string(f.name) + ",fallback");
  }
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing)
      list += (list.empty() ? "" : "; ") + m;
    return Status::InvalidArgument(file + ": missing " + (missing.size() == 1 ? "row" : "rows") +
                                   " (parameter,scope): " + list);
  }

  // Architectures inherit what they do not set from the fallback row, wherever it stands.
  const GpuEfficiency* fallback = FindOrAdd(archs, "fallback");
  c.fallback = Resolve(*fallback, ArchEfficiency{});
  c.fallback.architecture.clear();
  for (const GpuEfficiency& a : archs) {
    if (a.gpu != "fallback")
      c.archs.push_back(Resolve(a, c.fallback));
  }
  c.gpus = std::move(gpus);
  return c;
}

Result<Calibration> LoadCalibration() {
  return ParseCalibration(EmbeddedData("calibration.csv"), "data/calibration.csv");
}

}  // namespace gpuplan::io
