#include "cli/workload_flags.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "cli/commands.h"
#include "io/calibration_csv.h"
#include "io/framework_csv.h"
#include "io/hf_config.h"
#include "io/workload_yaml.h"

namespace gpuplan::cli {
namespace {

Status Usage(const std::string& msg) { return Status::InvalidArgument(msg); }

// Parses `text` into `*out` (an E or an optional<E>) when the flag was given.
template <typename E, typename Out>
Status SetEnum(const char* flag, const std::string& text,
               std::optional<E> (*parse)(std::string_view), std::string_view expected, Out* out) {
  if (text.empty())
    return Status::Ok();
  std::optional<E> v = parse(text);
  if (!v)
    return Usage(fmt::format("{}: expected {}, got \"{}\"", flag, expected, text));
  *out = *v;
  return Status::Ok();
}
// As above for an enum with a name table: any case, and the error lists the table's names.
template <typename E, size_t N, typename Out>
Status SetEnum(const char* flag, const std::string& text, const EnumNames<E, N>& names, Out* out) {
  if (text.empty())
    return Status::Ok();
  std::optional<E> v = ParseName(names, text, NameCase::kIgnore);
  if (!v) {
    return Usage(fmt::format("{}: expected {}, got \"{}\"", flag, NameChoices(names), text));
  }
  *out = *v;
  return Status::Ok();
}
// The CLI's --billing takes any mode of the billing table.
std::optional<Billing> ParseAnyBilling(std::string_view name) { return ParseBilling(name); }

Status SetAmount(const char* flag, const std::string& text, std::string_view example,
                 std::optional<double>* out) {
  if (text.empty())
    return Status::Ok();
  *out = ParseAmount(text);
  if (!*out) {
    return Usage(fmt::format("{}: expected an amount like {}, got \"{}\"", flag, example, text));
  }
  return Status::Ok();
}

template <typename T, typename Out>
void SetIfGiven(const std::optional<T>& flag, Out* out) {
  if (flag)
    *out = *flag;
}

// The named choices (task, method, precision, optimizer, recompute, offload, engine) and the
// amounts of work (--tokens, --samples).
Status ApplyChoiceFlags(const WorkloadFlags& f, Workload& w) {
  if (Status s = SetEnum("--task", f.task, kTaskNames, &w.task); !s.ok()) {
    return s;
  }
  // A task other than finetune drops the file's fine-tuning method unless --method names one.
  if (!f.task.empty() && f.method.empty() && w.task != Task::kFinetune)
    w.method = Method::kFull;
  for (const Status& s : {
           SetEnum("--method", f.method, kMethodNames, &w.method),
           SetEnum("--precision", f.precision, io::kWorkloadPrecisionNames, &w.precision),
           SetEnum("--optimizer", f.optimizer, kOptimizerNames, &w.optimizer),
           SetEnum("--recompute", f.recompute, kRecomputeNames, &w.recompute),
           SetEnum("--offload", f.offload, kOffloadNames, &w.offload),
           SetEnum("--lora-targets", f.lora_targets, kLoraTargetsNames, &w.lora_targets),
           SetEnum("--cross-entropy", f.cross_entropy, kCrossEntropyNames, &w.cross_entropy),
           SetEnum("--memory-format", f.memory_format, kMemoryFormatNames, &w.memory_format),
           SetEnum("--weight-format", f.weight_format, kWeightFormatNames, &w.weight_format),
           SetEnum("--quantized-layers", f.quantized_layers, kQuantizedLayersNames,
                   &w.quantized_layers),
           SetEnum("--engine", f.engine, kEngineNames, &w.inference.engine),
           SetEnum("--kv-cache-dtype", f.kv_cache_dtype, kKvCacheDtypeNames,
                   &w.inference.kv_cache_dtype),
           SetAmount("--tokens", f.tokens, "100M or 2B", &w.tokens),
           SetAmount("--samples", f.samples, "50K", &w.samples),
       }) {
    if (!s.ok())
      return s;
  }
  return Status::Ok();
}

// The numbers: epochs, sequence, batches, parallel degrees, LoRA rank, weight bits, inference
// lengths, and the on/off switches.
void ApplyNumberFlags(const WorkloadFlags& f, Workload& w) {
  SetIfGiven(f.epochs, &w.epochs);
  SetIfGiven(f.seq_len, &w.seq_len);
  SetIfGiven(f.micro_batch, &w.micro_batch);
  SetIfGiven(f.cp, &w.cp);
  SetIfGiven(f.virtual_stages, &w.virtual_stages);
  if (f.optimizer_in_backward)
    w.optimizer_in_backward = true;
  if (f.activation_offload)
    w.activation_offload = true;
  SetIfGiven(f.global_batch, &w.global_batch);
  SetIfGiven(f.memory_confidence, &w.memory_confidence);
  SetIfGiven(f.lora_rank, &w.lora_rank);
  SetIfGiven(f.lora_dropout, &w.lora_dropout);
  SetIfGiven(f.weight_bits, &w.weight_bits);
  if (w.method == Method::kQlora && w.weight_bits == 0)
    w.weight_bits = 4;
  if (f.no_flash_attention)
    w.flash_attention = false;
  if (f.moe_a2a_overlap)
    w.moe_a2a_overlap = true;
  if (f.tp_comm_overlap)
    w.tp_comm_overlap = true;
  if (f.no_master_weights)
    w.master_weights = false;
  SetIfGiven(f.prompt_tokens, &w.inference.prompt_tokens);
  SetIfGiven(f.output_tokens, &w.inference.output_tokens);
  SetIfGiven(f.batch, &w.inference.batch);
}

// --model NAME or --model-config PATH (a config.json).
Status ApplyModelFlags(const WorkloadFlags& f, Workload& w) {
  if (!f.model.empty() && !f.model_config.empty()) {
    return Usage("give --model NAME or --model-config PATH, not both");
  }
  if (!f.model.empty()) {
    w.model_name = f.model;
    w.inline_arch.reset();
    w.model_config.clear();
  }
  if (!f.model_config.empty()) {
    w.model_config = f.model_config;
    w.model_name = "config";
    w.inline_arch.reset();
  }
  return Status::Ok();
}

// An inline architecture: --layers --hidden --heads --ffn --vocab and their refinements.
Status ApplyInlineArchFlags(const WorkloadFlags& f, Workload& w) {
  const bool refinements = f.experts || f.top_k || f.moe_ffn || f.shared_experts ||
                           f.dense_layers || f.head_dim || f.q_lora_rank || f.kv_lora_rank ||
                           f.qk_rope_head_dim || f.qk_nope_head_dim || f.v_head_dim;
  if (refinements && !f.layers) {
    return Usage(
        "--experts, --top-k, --moe-ffn, --shared-experts, --dense-layers, --head-dim and "
        "the MLA ranks refine an inline architecture: give --layers, --hidden, --heads "
        "and --vocab too (or --model-config PATH for a config.json)");
  }
  if (f.layers || f.hidden || f.heads || f.ffn || f.vocab) {
    // Every layer may be MoE: then --ffn (the dense width) is not needed.
    if (!(f.layers && f.hidden && f.heads && (f.ffn || f.experts) && f.vocab)) {
      return Usage(
          "an inline architecture needs --layers, --hidden, --heads, --ffn and --vocab "
          "(--kv-heads defaults to --heads; with --experts, --ffn is the dense layers' width)");
    }
    ModelArch a;
    a.name = f.model.empty() ? "inline" : f.model;
    a.layers = *f.layers;
    a.hidden = *f.hidden;
    a.heads = *f.heads;
    a.kv_heads = f.kv_heads.value_or(*f.heads);
    a.ffn = f.ffn.value_or(0);
    a.vocab = *f.vocab;
    a.mlp = a.ffn == 4 * a.hidden ? MlpKind::kGelu : MlpKind::kSwiglu;
    a.head_dim = f.head_dim.value_or(0);
    a.moe.experts = f.experts.value_or(0);
    a.moe.top_k = f.top_k.value_or(a.moe.experts > 0 ? 1 : 0);
    a.moe.expert_ffn = f.moe_ffn.value_or(0);
    a.moe.shared_experts = f.shared_experts.value_or(0);
    a.moe.dense_layers = f.dense_layers.value_or(0);
    if (f.kv_lora_rank) {
      a.attention = AttentionKind::kMla;
      a.mla = {.q_lora_rank = f.q_lora_rank.value_or(0),
               .kv_lora_rank = *f.kv_lora_rank,
               .qk_rope_head_dim = f.qk_rope_head_dim.value_or(0),
               .qk_nope_head_dim = f.qk_nope_head_dim.value_or(0),
               .v_head_dim = f.v_head_dim.value_or(0)};
    }
    if (Status s = ValidateModelArch(a); !s.ok()) {
      return Usage("inline architecture: " + s.message());
    }
    w.inline_arch = a;
    w.model_name = a.name;
  }
  return Status::Ok();
}

// The job: task, method, model, precision, batch, amount of work, inference shape.
Status ApplyJobFlags(const WorkloadFlags& f, Workload& w) {
  if (Status s = ApplyChoiceFlags(f, w); !s.ok())
    return s;
  ApplyNumberFlags(f, w);
  if (!f.framework.empty())
    w.framework = f.framework;
  if (Status s = ApplyModelFlags(f, w); !s.ok())
    return s;
  return ApplyInlineArchFlags(f, w);
}

// Planning: constraints, serving targets, objective.
Status ApplyPlanningFlags(const WorkloadFlags& f, Workload& w) {
  Constraints& c = w.constraints;
  if (!f.regions.empty())
    c.regions = f.regions;
  if (!f.billing.empty()) {
    c.billing.clear();
    for (const std::string& mode : f.billing) {
      Billing b = Billing::kPayg;
      if (Status s = SetEnum<Billing>("--billing", mode, ParseAnyBilling,
                                      BillingChoices(BillingUse::kAny), &b);
          !s.ok()) {
        return s;
      }
      c.billing.push_back(b);
    }
  }
  // Added to the file's list, not replacing it: a flag must not quietly lift a compliance rule.
  for (const std::string& name : f.exclude_vendors) {
    const std::optional<GpuVendor> v = ParseGpuVendor(name);
    if (!v) {
      return Usage(
          fmt::format("--exclude-vendor: expected {}, got \"{}\"", GpuVendorChoices(), name));
    }
    if (std::find(c.exclude_vendors.begin(), c.exclude_vendors.end(), *v) ==
        c.exclude_vendors.end()) {
      c.exclude_vendors.push_back(*v);
    }
  }
  SetIfGiven(f.max_gpus, &c.max_gpus);
  SetIfGiven(f.max_nodes, &c.max_nodes);
  SetIfGiven(f.deadline_hours, &c.deadline_hours);
  SetIfGiven(f.confidence, &w.confidence);
  if (f.budget || !f.currency.empty()) {
    if (!f.budget && !c.budget)
      return Usage("--currency needs a budget: give --budget AMOUNT");
    Budget b = c.budget.value_or(Budget{});
    SetIfGiven(f.budget, &b.amount);
    if (!f.currency.empty()) {
      if (f.currency != "CNY" && f.currency != "USD") {
        return Usage(fmt::format("--currency: expected CNY or USD, got \"{}\"", f.currency));
      }
      b.currency = f.currency;
    }
    c.budget = b;
  }
  SetIfGiven(f.requests_per_s, &w.inference.requests_per_s);
  SetIfGiven(f.ttft_ms, &w.inference.ttft_ms);
  SetIfGiven(f.tpot_ms, &w.inference.tpot_ms);
  if (Status s = SetEnum("--latency", f.latency, kLatencyModeNames, &w.inference.latency); !s.ok())
    return s;
  return SetEnum("--objective", f.objective, kObjectiveNames, &w.objective);
}

// ValidateWorkload names a field (`field "seq_len": expected ...`); when a flag set that field,
// the message names the flag instead, as the user typed it.
Status NameTheFlag(const WorkloadFlags& f, const Status& s) {
  struct FieldFlag {
    std::string_view field;
    const char* flag;
    bool given;
  };
  const FieldFlag kFields[] = {
      {"seq_len", "--seq-len", f.seq_len.has_value()},
      {"global_batch", "--global-batch", f.global_batch.has_value()},
      {"micro_batch", "--micro-batch", f.micro_batch.has_value()},
      {"epochs", "--epochs", f.epochs.has_value()},
      {"confidence", "--confidence", f.confidence.has_value()},
      {"memory_confidence", "--memory-confidence", f.memory_confidence.has_value()},
      {"cp", "--cp", f.cp.has_value()},
      {"virtual_stages", "--virtual-stages", f.virtual_stages.has_value()},
      {"recompute", "--recompute", !f.recompute.empty()},
      {"method", "--method", !f.method.empty()},
      {"framework", "--framework", !f.framework.empty()},
      {"lora_rank", "--lora-rank", f.lora_rank.has_value()},
      {"lora_targets", "--lora-targets", !f.lora_targets.empty()},
      {"lora_dropout", "--lora-dropout", f.lora_dropout.has_value()},
      {"weight_bits", "--weight-bits", f.weight_bits.has_value()},
      {"weight_format", "--weight-format", !f.weight_format.empty()},
      {"quantized_layers", "--quantized-layers", !f.quantized_layers.empty()},
      {"moe_a2a_overlap", "--moe-a2a-overlap", f.moe_a2a_overlap},
      {"tp_comm_overlap", "--tp-comm-overlap", f.tp_comm_overlap},
      {"cross_entropy", "--cross-entropy", !f.cross_entropy.empty()},
      {"memory_format", "--memory-format", !f.memory_format.empty()},
      {"precision", "--precision", !f.precision.empty()},
      {"inference.prompt_tokens", "--prompt-tokens", f.prompt_tokens.has_value()},
      {"inference.output_tokens", "--output-tokens", f.output_tokens.has_value()},
      {"inference.batch", "--batch", f.batch.has_value()},
      {"inference.kv_cache_dtype", "--kv-cache-dtype", !f.kv_cache_dtype.empty()},
      {"inference.requests_per_s", "--requests-per-s", f.requests_per_s.has_value()},
      {"inference.prompt_tokens.p90", "--prompt-tokens-p90", f.prompt_tokens_p90.has_value()},
      {"inference.output_tokens.p90", "--output-tokens-p90", f.output_tokens_p90.has_value()},
      {"inference.traffic.scale_up_minutes", "--scale-up-minutes", f.scale_up_minutes.has_value()},
      {"inference.traffic", "--hourly-rps", !f.hourly_rps.empty()},
      {"inference.traffic", "--peak-rps", f.peak_rps.has_value()},
      {"inference.ttft_ms", "--ttft-ms", f.ttft_ms.has_value()},
      {"inference.tpot_ms", "--tpot-ms", f.tpot_ms.has_value()},
      {"tokens", "--tokens", !f.tokens.empty()},
      {"samples", "--samples", !f.samples.empty()},
      {"constraints.max_gpus", "--max-gpus", f.max_gpus.has_value()},
      {"constraints.max_nodes", "--max-nodes", f.max_nodes.has_value()},
      {"constraints.deadline_hours", "--deadline-hours", f.deadline_hours.has_value()},
      {"constraints.budget.amount", "--budget", f.budget.has_value()},
      {"constraints.budget", "--budget", f.budget.has_value()},
  };
  for (const FieldFlag& ff : kFields) {
    const std::string prefix = fmt::format("field \"{}\": ", ff.field);
    if (ff.given && s.message().starts_with(prefix)) {
      return Usage(ff.flag + (": " + s.message().substr(prefix.size())));
    }
  }
  return Usage(s.message());
}

// Reads w.model_config (a config.json or its folder) into the inline architecture, named after
// its folder; the release's weight format applies unless the user chose a precision or bits.
Status ReadModelConfig(CliContext& ctx, const WorkloadFlags& flags, Workload& w) {
  Result<io::HfModelConfig> c = io::LoadHfModelConfig(w.model_config);
  if (!c.ok())
    return c.status();
  for (const std::string& note : c->notes)
    *ctx.err << "gpuplan: note: " << note << "\n";
  std::filesystem::path p = w.model_config;
  if (p.filename() == "config.json")
    p = p.parent_path();
  const std::string folder = p.filename().empty() ? "config" : p.filename().string();
  if (w.model_name == "config")
    w.model_name = folder;
  c->arch.name = w.model_name;
  const bool precision_given = !flags.precision.empty() || w.precision != Precision::kBf16;
  const bool bits_given = flags.weight_bits.has_value() || w.weight_bits != 0;
  io::ApplyWeightFormat(c->weights, precision_given, bits_given, w);
  w.inline_arch = std::move(c->arch);
  return ValidateWorkload(w);
}

// A whole-number flag of WorkloadFlags: its name, field and help (after a shared prefix).
struct WholeNumberFlag {
  const char* name;
  std::optional<int> WorkloadFlags::*field;
  const char* help;
};

// The inline architecture's sizes, its MoE and head refinements, and its MLA ranks, in --help
// order.
constexpr WholeNumberFlag kArchFlags[] = {
    {"--layers", &WorkloadFlags::layers, "layers"},
    {"--hidden", &WorkloadFlags::hidden, "hidden size"},
    {"--heads", &WorkloadFlags::heads, "attention heads"},
    {"--kv-heads", &WorkloadFlags::kv_heads, "KV heads (GQA)"},
    {"--ffn", &WorkloadFlags::ffn, "MLP width"},
    {"--vocab", &WorkloadFlags::vocab, "vocabulary"},
};
constexpr WholeNumberFlag kArchRefinementFlags[] = {
    {"--head-dim", &WorkloadFlags::head_dim, "per-head size (default hidden/heads)"},
    {"--experts", &WorkloadFlags::experts, "routed experts per MoE layer"},
    {"--top-k", &WorkloadFlags::top_k, "experts per token"},
    {"--moe-ffn", &WorkloadFlags::moe_ffn, "one expert's MLP width"},
    {"--shared-experts", &WorkloadFlags::shared_experts, "always-on experts per MoE layer"},
    {"--dense-layers", &WorkloadFlags::dense_layers, "leading layers with a dense MLP of --ffn"},
};
constexpr WholeNumberFlag kMlaFlags[] = {
    {"--q-lora-rank", &WorkloadFlags::q_lora_rank, "query low-rank (0 = none)"},
    {"--kv-lora-rank", &WorkloadFlags::kv_lora_rank, "KV latent rank"},
    {"--qk-rope-head-dim", &WorkloadFlags::qk_rope_head_dim, "RoPE key per head"},
    {"--qk-nope-head-dim", &WorkloadFlags::qk_nope_head_dim, "non-RoPE query/key per head"},
    {"--v-head-dim", &WorkloadFlags::v_head_dim, "value per head"},
};

void AddWholeNumberFlags(CLI::App* cmd, WorkloadFlags* f, std::span<const WholeNumberFlag> flags,
                         std::string_view help_prefix) {
  for (const WholeNumberFlag& flag : flags)
    cmd->add_option(flag.name, f->*flag.field, std::string(help_prefix) + flag.help);
}

}  // namespace

void AddWorkloadFlags(CLI::App* cmd, WorkloadFlags* f) {
  cmd->add_option("--task", f->task, "pretrain | finetune | inference | rendering | hpc");
  cmd->add_option("--method", f->method, "full | lora | qlora (finetune)");
  cmd->add_option("--model", f->model, "Zoo model name (see 'gpuplan estimate --list-models')");
  cmd->add_option("--precision", f->precision, "bf16 | fp16 | fp32 | fp8 | fp64");
  cmd->add_option("--seq-len", f->seq_len, "Tokens per sample");
  cmd->add_option("--micro-batch", f->micro_batch, "Sequences per GPU per forward pass");
  cmd->add_option("--global-batch", f->global_batch, "Sequences per optimizer step");
  cmd->add_option("--memory-confidence", f->memory_confidence,
                  "A training layout fits when its memory at this percentile of the model's "
                  "memory error is within the GPU's: 0.9 = fits with 90% confidence (default "
                  "0.9; lower accepts the risk of an OOM)");
  cmd->add_option("--tokens", f->tokens, "Tokens of the whole job (suffix K M B T)");
  cmd->add_option("--samples", f->samples, "Samples per epoch (suffix K M B T)");
  cmd->add_option("--epochs", f->epochs, "Epochs over --samples");
  cmd->add_option("--optimizer", f->optimizer,
                  "adamw | adamw_8bit | paged_adamw_8bit | paged_adamw | sgd | adafactor (8bit: "
                  "bitsandbytes block-wise 8-bit moments; paged: they spill to host RAM when the "
                  "GPU is full; paged_adamw keeps them in fp32)");
  cmd->add_option("--recompute", f->recompute, "none | selective | full");
  cmd->add_option("--cp", f->cp, "Context-parallel degree (ring attention over the sequence)");
  cmd->add_option("--virtual-stages", f->virtual_stages,
                  "Interleaved pipeline: model chunks per pipeline rank");
  cmd->add_option("--offload", f->offload,
                  "none | optimizer | params: optimizer states (and parameters) in host RAM");
  cmd->add_flag("--optimizer-in-backward", f->optimizer_in_backward,
                "Step each parameter during backward (no full gradient buffer)");
  cmd->add_flag("--activation-offload", f->activation_offload,
                "Keep saved activations in host RAM");
  Result<FrameworkTable> frameworks = io::LoadFrameworks();
  cmd->add_option(
      "--framework", f->framework,
      "Training framework whose layouts to search: auto (default: LoRA/QLoRA on "
      "peft, full training on the fastest framework for the layout, ties to the first) or " +
          (frameworks.ok() ? frameworks->Names() : std::string("(table unreadable)")) +
          " (data/frameworks.csv)");
  cmd->add_option("--lora-rank", f->lora_rank, "LoRA rank");
  cmd->add_option("--lora-targets", f->lora_targets,
                  "all | attention | qv: the linear layers LoRA adapts (default all)");
  cmd->add_option("--lora-dropout", f->lora_dropout,
                  "Dropout probability on each LoRA adapter's input (default 0)");
  cmd->add_option("--weight-bits", f->weight_bits, "Quantised base weights: 4 or 8");
  cmd->add_option("--weight-format", f->weight_format,
                  "Inference: how the --weight-bits weights are stored: int (GPTQ/AWQ, default) "
                  "or mxfp4 (4.25 bits; gpt-oss's release)");
  cmd->add_option("--quantized-layers", f->quantized_layers,
                  "Inference: the layers --weight-bits quantises: all (default) or experts (an "
                  "MoE's routed experts only, as gpt-oss is released)");
  cmd->add_flag("--no-flash-attention", f->no_flash_attention, "Unfused attention (s^2 scores)");
  cmd->add_flag("--moe-a2a-overlap", f->moe_a2a_overlap,
                "MoE: overlap each micro-batch's expert-parallel all-to-alls with another's "
                "compute (training: Megatron-Core --overlap-moe-expert-parallel-comm; serving: "
                "SGLang --enable-two-batch-overlap, vLLM --enable-dbo)");
  cmd->add_flag("--tp-comm-overlap", f->tp_comm_overlap,
                "Training: overlap the tensor-parallel all-gathers and reduce-scatters with the "
                "GEMMs (Megatron-Core --tp-comm-overlap, Transformer Engine userbuffers)");
  cmd->add_option(
      "--cross-entropy", f->cross_entropy,
      "Training: how the loss holds the logits, for its memory: fp32 (upcast, as "
      "Transformers and torchtitan), chunked (torchtune), fused (Megatron-Core), "
      "native (16-bit), fused_linear (Liger, Cut Cross-Entropy); default: the framework's "
      "(data/frameworks.csv)");
  cmd->add_option("--memory-format", f->memory_format,
                  "Convolutional networks: the activations' layout, nhwc (channels last, the "
                  "default) | nchw (PyTorch's contiguous default: cuDNN transposes each "
                  "tensor-core convolution's input and output)");
  cmd->add_flag("--no-master-weights", f->no_master_weights,
                "Pure 16-bit training: no fp32 master weights, optimizer states in bf16/fp16");
  AddWholeNumberFlags(cmd, f, kArchFlags, "Inline architecture: ");
  cmd->add_option("--model-config", f->model_config,
                  "A Hugging Face config.json (or the model folder holding it) instead of --model");
  AddWholeNumberFlags(cmd, f, kArchRefinementFlags, "Inline architecture: ");
  AddWholeNumberFlags(cmd, f, kMlaFlags, "Inline MLA: ");
  cmd->add_option("--prompt-tokens", f->prompt_tokens, "Inference: prompt tokens per request");
  cmd->add_option("--output-tokens", f->output_tokens, "Inference: generated tokens per request");
  cmd->add_option("--batch", f->batch, "Inference: concurrent sequences");
  cmd->add_option("--engine", f->engine, "Inference engine: hf | vllm | trtllm | torch");
  cmd->add_option("--kv-cache-dtype", f->kv_cache_dtype,
                  "Inference: the KV cache's type, auto (16-bit; vLLM's default) | fp8 (vLLM "
                  "--kv-cache-dtype fp8: twice the sequences per GPU)");
}

void AddPlanningFlags(CLI::App* cmd, WorkloadFlags* f) {
  // Ranges are checked by ValidateWorkload (the YAML file's too), whose messages name the flag.
  cmd->add_option("--region", f->regions, "Only these regions (overrides constraints.regions)");
  cmd->add_option(
      "--billing", f->billing,
      "Allowed billing modes (overrides constraints.billing): " + BillingChoices(BillingUse::kAny));
  cmd->add_option("--exclude-vendor", f->exclude_vendors,
                  "Do not use GPUs of this maker (repeatable; nvidia, amd, intel, t-head, huawei, "
                  "cambricon); added to constraints.exclude_vendors")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--max-gpus", f->max_gpus, "At most this many GPUs in all");
  cmd->add_option("--max-nodes", f->max_nodes, "At most this many instances");
  cmd->add_option("--deadline-hours", f->deadline_hours,
                  "Finish within this many hours (needs --tokens or --samples)");
  cmd->add_option("--confidence", f->confidence,
                  "Check the deadline and budget (and rank) at this percentile of the calibrated "
                  "time and cost range: 0.9 = met with 90% confidence (default 0.5); the memory "
                  "fit has its own, --memory-confidence");
  cmd->add_option("--budget", f->budget,
                  "Spend at most this much (in --currency, default CNY; needs --tokens or "
                  "--samples, or a service's "
                  "--requests-per-s)");
  cmd->add_option("--currency", f->currency, "Currency of --budget: CNY or USD");
  cmd->add_option("--objective", f->objective,
                  "cost, time, cost_within_deadline or time_within_budget");
  cmd->add_option("--requests-per-s", f->requests_per_s,
                  "Inference: sustained requests per second to serve");
  cmd->add_option("--ttft-ms", f->ttft_ms, "Inference: time to first token target, ms");
  cmd->add_option("--tpot-ms", f->tpot_ms, "Inference: time per output token target, ms");
  AddTrafficFlags(cmd, f);
  const Result<Calibration> defaults = io::LoadCalibration();  // data/calibration.csv's values
  cmd->add_option("--latency", f->latency,
                  fmt::format("Inference: interactive (what --ttft-ms/--tpot-ms leave unset gets "
                              "TTFT {:g} ms, TPOT {:g} ms) or batch (offline throughput: only the "
                              "targets given; also 'none'). Default: batch with --tokens or "
                              "--samples and no --requests-per-s, else interactive",
                              defaults->interactive_ttft_ms, defaults->interactive_tpot_ms));
}

Result<Workload> MergeWorkloadFlags(const WorkloadFlags& flags, std::optional<Workload> base,
                                    WorkloadUse use) {
  if (!base) {
    const bool needs_model =
        use == WorkloadUse::kEstimate || (flags.task != "rendering" && flags.task != "hpc");
    if (needs_model && flags.model.empty() && !flags.layers && flags.model_config.empty()) {
      return Usage(
          "give a workload file or --model NAME (or --model-config PATH for a config.json, or "
          "--layers/--hidden/... inline)");
    }
    base.emplace();
    base->unset = UnsetFields::All();
  }
  Workload& w = *base;
  // A flag given sets its field: it is no longer unset (DeriveDefaults, gpuplan/defaults.h).
  UnsetFields& unset = w.unset;
  unset.precision &= flags.precision.empty();
  unset.seq_len &= !flags.seq_len;
  unset.global_batch &= !flags.global_batch;
  unset.prompt_tokens &= !flags.prompt_tokens;
  unset.output_tokens &= !flags.output_tokens;
  unset.confidence &= !flags.confidence;
  unset.memory_confidence &= !flags.memory_confidence;
  if (Status s = ApplyJobFlags(flags, w); !s.ok())
    return s;
  if (Status s = ApplyPlanningFlags(flags, w); !s.ok())
    return s;
  if (Status s = ApplyTrafficFlags(flags, w); !s.ok())
    return s;
  if (Status s = ValidateWorkload(w); !s.ok())
    return NameTheFlag(flags, s);
  if (Status s = io::ResolveFrameworks(w); !s.ok())
    return NameTheFlag(flags, s);
  return std::move(w);
}

std::optional<Workload> LoadCliWorkload(CliContext& ctx, const std::string& file,
                                        const WorkloadFlags& flags, WorkloadUse use) {
  std::optional<Workload> base;
  if (!file.empty()) {
    Result<Workload> loaded = io::LoadWorkloadYaml(file);
    if (!loaded.ok()) {
      ctx.Fail(loaded.status());
      return std::nullopt;
    }
    base = std::move(*loaded);
  }
  Result<Workload> w = MergeWorkloadFlags(flags, std::move(base), use);
  if (!w.ok()) {
    ctx.Fail(w.status(), /*usage=*/true);
    return std::nullopt;
  }
  if (!w->model_config.empty() && !w->inline_arch) {
    if (Status s = ReadModelConfig(ctx, flags, *w); !s.ok()) {
      ctx.Fail(s);
      return std::nullopt;
    }
  }
  return std::move(*w);
}

}  // namespace gpuplan::cli
