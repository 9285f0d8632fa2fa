// Training frameworks as capabilities: which parallel layouts and memory savers a framework can
// run (data/frameworks.csv, embedded; io/framework_csv.h reads it). A plan is actionable only
// when some framework the user can run supports its layout, so the layout search tries only
// layouts of the workload's frameworks (Workload::frameworks, perf::LayoutPins::frameworks).
//
//   Result<std::vector<Framework>> fw = FrameworksFor(table, "auto", w);  // LoRA: {peft}
//   w.frameworks = *fw;                    // the search now stays inside their layouts
//   const Framework* f = FrameworkFor(w.frameworks, layout);  // who runs the pick
//
// The `auto` rule: LoRA and QLoRA run on the PEFT stack (the first row with the method, "peft"
// in the shipped table), since that is what people fine-tune adapters with; full training may
// use every row with full training, and the layout search tries each layout on every row that
// times it differently (attention kernel, gradient buffers, recomputation policy, ZeRO-3 fetch:
// src/core/perf/framework_spaces.h), keeping the fastest; among rows that time it alike, the
// first in the table's order. Rows lacking the workload's method or its 8-bit optimizer never
// qualify.
//
// Thread safety: plain values and pure functions.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_FRAMEWORK_H_
#define GPUPLAN_INCLUDE_GPUPLAN_FRAMEWORK_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/enum_names.h"
#include "gpuplan/status.h"

namespace gpuplan {

struct Workload;
namespace perf {
struct Layout;
}

// The fused attention kernel a framework's training runs (data/frameworks.csv attention_kernel):
// FlashAttention-2 (the flash-attn package, or PyTorch SDPA's flash backend, which is FA2), or
// cuDNN's fused attention (Transformer Engine's FusedAttention, which TE prefers over
// FlashAttention on Hopper and newer). Where they run at different speeds the calibration says
// (ArchEfficiency::AttentionFraction); elsewhere they are the same.
enum class AttentionKernel { kFlash2, kCudnn };

// How a training computes its cross-entropy loss over the logits, which decides the memory the
// loss takes at the step's forward-to-backward peak (data/frameworks.csv cross_entropy; a
// workload may override it: Workload::cross_entropy). Bytes per logit, e = the 16-bit width:
//   kFp32     the logits upcast to fp32 and cross_entropy over them: the 16-bit logits, the
//             log-softmax saved in fp32, its gradient and the logits' gradient in fp32: e + 12
//             (Transformers' ForCausalLMLoss, torchtitan, torchtune before v0.3);
//   kChunked  the upcast and the gradients one chunk at a time, the fp32 log-softmax of every
//             chunk saved: e + 4 (torchtune's CEWithChunkedOutputLoss, v0.3 on);
//   kFused    a fused kernel that computes the fp32 softmax and its gradient in place: e + 4
//             (Megatron-Core's vocab-parallel cross entropy);
//   kNative   cross_entropy in the logits' own 16-bit dtype (over a shifted copy, freed with the
//             forward's locals): the logits, the saved log-softmax, its gradient and the
//             logits' gradient: 4e (the GPT-2-style remote code of Qwen 1, modeling_qwen.py).
// The same count gives kFp32 its e + 12: the fp32 copy is freed once the loss is taken, the
// fp32 log-softmax, its gradient and the gradient of the logits live as backward starts.
//   kFusedLinear  the output projection and the loss fused and chunked over the tokens (Liger
//             Kernel's FusedLinearCrossEntropy, Cut Cross-Entropy): the logits are never held
//             whole; a chunk about the size of the hidden states in fp32 and the hidden states'
//             gradient, computed in forward: (e + 8) bytes per hidden value of each token.
enum class CrossEntropy { kFp32, kChunked, kFused, kNative, kFusedLinear };
inline constexpr EnumNames<CrossEntropy, 5> kCrossEntropyNames = {
    {{CrossEntropy::kFp32, "fp32"},
     {CrossEntropy::kChunked, "chunked"},
     {CrossEntropy::kFused, "fused"},
     {CrossEntropy::kNative, "native"},
     {CrossEntropy::kFusedLinear, "fused_linear"}}};

// What a framework runs; every field false/empty = unsupported (or not documented).
struct FrameworkCaps {
  bool full = false, lora = false, qlora = false;  // training methods
  bool tp = false, sequence_parallel = false, cp = false, pp = false, vp = false, ep = false;
  unsigned zero_stages = 0;                 // bit s set = ZeRO stage s (0..3) over dp
  unsigned zero_stages_model_parallel = 0;  // the stages allowed when tp or pp > 1
  bool offload_optimizer = false, offload_params = false;
  bool optimizer_in_backward = false, activation_offload = false;
  // Megatron-style selective recomputation (the attention core); none and full run everywhere.
  bool selective_recompute = false;
  bool optimizer_8bit = false;  // 8-bit optimizer states (bitsandbytes / torchao AdamW8bit)
};

struct Framework {
  std::string name;      // "peft", "megatron": what --framework takes
  std::string label;     // "HF PEFT + Transformers Trainer / TRL on accelerate (...)"
  std::string launcher;  // accelerate, torchrun, tune, deepspeed
  FrameworkCaps caps;
  AttentionKernel attention_kernel = AttentionKernel::kFlash2;
  // Mixed-precision training keeps the gradients in an fp32 main-gradient buffer the size of
  // the local parameters (data/frameworks.csv main_grads fp32: Megatron-Core), not in the
  // parameters' 16-bit dtype plus the fp32 partition ZeRO's optimizer holds (main_grads param).
  bool fp32_main_grads = false;
  // Its selective recomputation keeps every other matmul's output and attention's and
  // recomputes the rest (data/frameworks.csv selective_policy matmuls: PyTorch's op-level
  // selective activation checkpointing as torchtitan applies it), not Megatron's recompute of
  // the attention core (selective_policy attention).
  bool selective_keeps_matmuls = false;
  // Its ZeRO-3 gathers each parameterised submodule on its own, with Python hooks around every
  // one (data/frameworks.csv zero3_fetch module: DeepSpeed ZeRO-3), not one flat all-gather per
  // wrapped decoder layer (zero3_fetch layer: FSDP/FSDP2).
  bool zero3_fetches_modules = false;
  CrossEntropy cross_entropy = CrossEntropy::kFp32;  // how its loss holds the logits
  std::string source;                                // docs URLs the capabilities come from
  std::string checked;                               // YYYY-MM-DD the sources were read
  std::string note;  // what the sources say and what stays unsupported for want of one
};

struct FrameworkTable {
  std::vector<Framework> rows;                         // in the table's order: `auto`'s preference
  const Framework* Find(std::string_view name) const;  // ignoring ASCII case; nullptr if none
  std::string Names() const;                           // "peft, torchtune, ..."
};

// The capability a layout needs that `caps` lacks, first in a fixed order (tp,
// sequence_parallel, cp, pp, vp, ep, zero, offload, optimizer_in_backward, activation_offload,
// recompute):
// `field` is the workload/flag field (snake_case: "cp", "virtual_stages", "zero" ...) and `what`
// says it in words ("context parallelism (cp 2)"). nullopt when caps runs the layout.
struct MissingCapability {
  std::string field;
  std::string what;
};
std::optional<MissingCapability> Missing(const FrameworkCaps& caps, const perf::Layout& l);
// Whether caps runs `l`: the same test without building the message (no allocation; the layout
// search and every training estimate ask it).
bool Runs(const FrameworkCaps& caps, const perf::Layout& l);

// The frameworks a workload may use for `choice` ("auto" or a name of `table`), by the rule in
// the file comment. InvalidArgument (field "framework") for an unknown name, a framework that
// lacks the workload's method or 8-bit optimizer, or no framework at all for it; and (field
// "cp", "virtual_stages", "offload" ...) when none of them runs what the workload pins
// (UnrunnablePins). Workloads that do not train get an empty list (no restriction; serving has
// its own engines).
Result<std::vector<Framework>> FrameworksFor(const FrameworkTable& table, std::string_view choice,
                                             const Workload& w);

// When none of `frameworks` (non-empty) runs `pinned`, the layout the user fixed (unfixed
// dimensions at 1, ZeRO 0, no savers): the field of the first capability the first of them lacks
// and a message naming the framework, what it lacks, and the rows of `table` that run it and the
// workload's method ("framework peft (...) does not run context parallelism (cp 2)
// (data/frameworks.csv); frameworks that do: megatron; or leave it out"). The edges prefix the
// field as their user spells it.
struct PinProblem {
  std::string field;
  std::string message;
};
std::optional<PinProblem> UnrunnablePins(const FrameworkTable& table,
                                         const std::vector<Framework>& frameworks,
                                         const Workload& w, const perf::Layout& pinned);

// The framework of `frameworks` that runs `l`: the one the layout names (Layout::framework) when
// it runs it, else the first that does; nullptr when none does (or the list is empty).
const Framework* FrameworkFor(const std::vector<Framework>& frameworks, const perf::Layout& l);

// The attention kernel a training of `l` runs: that of the framework that runs it (FrameworkFor),
// else, when none of them does (a measurement on a stack whose capabilities the table
// understates), the first's; FlashAttention-2 when the list is empty (no framework named: a
// library caller, serving). No allocation: every training estimate asks it.
AttentionKernel AttentionKernelFor(const std::vector<Framework>& frameworks, const perf::Layout& l);

// "flash2" or "cudnn" (data/frameworks.csv's spelling); nullopt for another.
std::optional<AttentionKernel> ParseAttentionKernel(std::string_view name);
// The spelling ParseAttentionKernel reads (JSON `layout.attention_kernel`).
std::string_view AttentionKernelName(AttentionKernel k);

// Why the pick runs on its framework, for the plan's why: "runs on peft (HF PEFT ...): LoRA
// fine-tuning uses the PEFT stack (--framework auto)" or, for full training, which capabilities
// of the layout the frameworks before it lack. Empty when the workload has no frameworks.
std::string FrameworkWhy(const Workload& w, const perf::Layout& l);

}  // namespace gpuplan

#endif  // GPUPLAN_INCLUDE_GPUPLAN_FRAMEWORK_H_
