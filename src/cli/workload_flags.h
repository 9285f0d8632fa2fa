// Workload flags: the job described on the command line, instead of or on top of a workload YAML
// file. `estimate`, `plan` and `explain` share them, so one flag means one field everywhere and
// fails with one message.
//
//   auto flags = std::make_shared<WorkloadFlags>();
//   AddWorkloadFlags(cmd, flags.get());  // --task --model --seq-len --tokens ... (every command)
//   AddPlanningFlags(cmd, flags.get());  // --region --objective --max-gpus ... (plan, explain)
//   ...in the callback:
//   std::optional<Workload> w = LoadCliWorkload(ctx, file, *flags, WorkloadUse::kPlan);
//   if (!w) return;  // the error is printed and the exit code set
//
// Thread safety: plain values and free functions.
#ifndef GPUPLAN_SRC_CLI_WORKLOAD_FLAGS_H_
#define GPUPLAN_SRC_CLI_WORKLOAD_FLAGS_H_

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/status.h"
#include "gpuplan/workload.h"

namespace CLI {
class App;
}

namespace gpuplan::cli {

struct CliContext;

// What the user gave on the command line; every field is "not given" by default (empty string,
// empty list, nullopt, false) and then leaves the workload's field as it is.
struct WorkloadFlags {
  // The job (AddWorkloadFlags). Enum and amount flags are kept as text so that a bad value is
  // reported by MergeWorkloadFlags with the expected form.
  std::string task, method, model, precision, optimizer, recompute, tokens, samples, engine;
  std::string kv_cache_dtype;
  std::string offload;                    // --offload none|optimizer|params
  std::string lora_targets;               // --lora-targets all|attention|qv
  std::string framework;                  // --framework auto|NAME (data/frameworks.csv)
  std::optional<double> lora_dropout;     // --lora-dropout P
  std::optional<int> cp, virtual_stages;  // --cp, --virtual-stages
  bool optimizer_in_backward = false, activation_offload = false;
  std::optional<int> seq_len, micro_batch, global_batch, lora_rank, weight_bits;
  std::optional<double> epochs;
  // Inline architecture: --layers --hidden --heads --ffn --vocab together (--kv-heads optional).
  std::optional<int> layers, hidden, heads, kv_heads, ffn, vocab;
  // ... and its MoE / attention refinements (--experts --top-k --moe-ffn --shared-experts
  // --dense-layers --head-dim and the MLA ranks).
  std::optional<int> experts, top_k, moe_ffn, shared_experts, dense_layers, head_dim;
  std::optional<int> q_lora_rank, kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim;
  std::string model_config;  // --model-config PATH: a Hugging Face config.json or its folder
  // Inference: per request and the engine's batch.
  std::optional<int> prompt_tokens, output_tokens, batch;
  bool no_flash_attention = false;
  bool moe_a2a_overlap = false;
  bool tp_comm_overlap = false;
  std::string cross_entropy;       // --cross-entropy fp32 | chunked | fused | native
  std::string memory_format;       // --memory-format nhwc | nchw
  std::string weight_format;       // --weight-format int | mxfp4
  std::string quantized_layers;    // --quantized-layers all | experts
  bool no_master_weights = false;  // pure 16-bit training (Workload::master_weights = false)

  // Planning (AddPlanningFlags): constraints, serving targets and the objective.
  std::vector<std::string> regions;          // replaces constraints.regions
  std::vector<std::string> billing;          // replaces constraints.billing
  std::vector<std::string> exclude_vendors;  // added to constraints.exclude_vendors
  std::optional<int> max_gpus, max_nodes;
  std::optional<double> deadline_hours;
  std::optional<double> budget;  // replaces constraints.budget.amount
  std::string currency;          // constraints.budget.currency: CNY or USD
  std::string objective;
  std::optional<double> requests_per_s, ttft_ms, tpot_ms;
  std::string latency;  // --latency interactive|batch (none)
  // A service's traffic over a day (inference.traffic, traffic_flags.cc): --hourly-rps "R0,...,
  // R23" [--weekend-hourly-rps ...], or --base-rps --peak-rps --peak-hours 19-22; --timezone,
  // --scale-up-minutes. Request lengths' 90th percentiles: --prompt-tokens-p90,
  // --output-tokens-p90.
  std::string hourly_rps, weekend_hourly_rps, peak_hours, timezone;
  std::optional<double> base_rps, peak_rps, scale_up_minutes;
  std::optional<int> prompt_tokens_p90, output_tokens_p90;
  std::optional<double> confidence;  // replaces the workload's confidence
  // --memory-confidence (AddWorkloadFlags): replaces the workload's memory_confidence.
  std::optional<double> memory_confidence;
};

// Adds the job flags (--task ... --engine, names as in docs/estimate.md) to `cmd`,
// writing into `*flags`, which must outlive `cmd`.
void AddWorkloadFlags(CLI::App* cmd, WorkloadFlags* flags);

// Adds the planning flags (--region --billing --exclude-vendor --max-gpus --max-nodes
// --deadline-hours --budget --currency --objective --requests-per-s --ttft-ms --tpot-ms) to
// `cmd`. Numeric ranges are the YAML schema's; CLI11 rejects values outside them naming the flag.
void AddPlanningFlags(CLI::App* cmd, WorkloadFlags* flags);

// Adds the traffic flags (--hourly-rps --weekend-hourly-rps --base-rps --peak-rps --peak-hours
// --timezone --scale-up-minutes --prompt-tokens-p90 --output-tokens-p90); AddPlanningFlags
// calls it.
void AddTrafficFlags(CLI::App* cmd, WorkloadFlags* flags);
// Sets inference.traffic (replacing the file's) and the length percentiles from the flags given;
// errors name the flag.
Status ApplyTrafficFlags(const WorkloadFlags& f, Workload& w);

// Who reads the workload: the planner can rank rendering and HPC jobs without a model (by price
// per TFLOPS), the performance model of `estimate` cannot.
enum class WorkloadUse { kEstimate, kPlan };

// The workload: `base` (read from a YAML file) or, when nullopt, one built from the flags alone;
// then every given flag replaces the field it names, and the result is validated.
// Errors (all InvalidArgument): a bad value names the flag and the expected form
// (`--precision: expected bf16, fp16, fp32, fp8 or fp64, got "bf8"`); without `base` a model is
// needed (--model or the inline architecture), for kPlan unless --task is rendering or hpc; a
// field that a flag made invalid names the flag (`--seq-len: expected a whole number >= 1, got
// 0`), one the file set keeps its field name.
Result<Workload> MergeWorkloadFlags(const WorkloadFlags& flags, std::optional<Workload> base,
                                    WorkloadUse use);

// Loads the YAML file at `file` (none when empty) and merges `flags` over it. On error prints it
// through ctx.Fail and returns nullopt: exit 1 for the file's own errors (they name
// file:line:column and the field), exit 2 (usage) for the flags'.
std::optional<Workload> LoadCliWorkload(CliContext& ctx, const std::string& file,
                                        const WorkloadFlags& flags, WorkloadUse use);

}  // namespace gpuplan::cli

#endif  // GPUPLAN_SRC_CLI_WORKLOAD_FLAGS_H_
