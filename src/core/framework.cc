// Frameworks as capabilities (include/gpuplan/framework.h).
#include "gpuplan/framework.h"

#include <string>

#include "gpuplan/estimate.h"
#include "gpuplan/strings.h"
#include "gpuplan/workload.h"

namespace gpuplan {
namespace {

bool HasStage(unsigned stages, int zero) { return zero >= 0 && zero <= 3 && (stages >> zero) & 1; }

std::string Degree(std::string_view what, std::string_view dim, int n) {
  return std::string(what) + " (" + std::string(dim) + " " + std::to_string(n) + ")";
}

// Whether the row can train the workload at all: its method and, if chosen, 8-bit optimizer.
std::optional<std::string> MethodGap(const FrameworkCaps& c, const Workload& w) {
  if (w.method == Method::kLora && !c.lora)
    return "LoRA";
  if (w.method == Method::kQlora && !c.qlora)
    return "QLoRA (a 4-bit base)";
  if (w.method == Method::kFull && !c.full)
    return "full training";
  if (w.optimizer == Optimizer::kAdamw8bit && !c.optimizer_8bit)
    return "8-bit optimizer states (--optimizer adamw_8bit)";
  return std::nullopt;
}

}  // namespace

const Framework* FrameworkTable::Find(std::string_view name) const {
  const std::string want = strings::Lower(name);
  for (const Framework& f : rows) {
    if (f.name == want)
      return &f;
  }
  return nullptr;
}

std::string FrameworkTable::Names() const {
  std::string out;
  for (const Framework& f : rows)
    out += (out.empty() ? "" : ", ") + f.name;
  return out;
}

namespace {

// The capabilities Missing reports, in the order it tests them.
enum class Gap {
  kNone,
  kTp,
  kSequenceParallel,
  kCp,
  kPp,
  kVp,
  kEp,
  kZero,
  kZeroModelParallel,
  kOffloadOptimizer,
  kOffloadParams,
  kOptimizerInBackward,
  kActivationOffload,
  kSelectiveRecompute
};

Gap FirstGap(const FrameworkCaps& c, const perf::Layout& l) {
  if (l.tp > 1 && !c.tp)
    return Gap::kTp;
  if (l.tp > 1 && l.sequence_parallel && !c.sequence_parallel)
    return Gap::kSequenceParallel;
  if (l.cp > 1 && !c.cp)
    return Gap::kCp;
  if (l.pp > 1 && !c.pp)
    return Gap::kPp;
  if (l.vp > 1 && !c.vp)
    return Gap::kVp;
  if (l.ep > 1 && !c.ep)
    return Gap::kEp;
  if (!HasStage(c.zero_stages, l.zero))
    return Gap::kZero;
  if ((l.tp > 1 || l.pp > 1) && !HasStage(c.zero_stages_model_parallel, l.zero))
    return Gap::kZeroModelParallel;
  if (l.offload == Offload::kOptimizer && !c.offload_optimizer)
    return Gap::kOffloadOptimizer;
  if (l.offload == Offload::kParams && !c.offload_params)
    return Gap::kOffloadParams;
  if (l.optimizer_in_backward && !c.optimizer_in_backward)
    return Gap::kOptimizerInBackward;
  if (l.activation_offload && !c.activation_offload)
    return Gap::kActivationOffload;
  if (l.recompute == Recompute::kSelective && !c.selective_recompute)
    return Gap::kSelectiveRecompute;
  return Gap::kNone;
}

}  // namespace

bool Runs(const FrameworkCaps& caps, const perf::Layout& l) {
  return FirstGap(caps, l) == Gap::kNone;
}

std::optional<MissingCapability> Missing(const FrameworkCaps& c, const perf::Layout& l) {
  switch (FirstGap(c, l)) {
    case Gap::kNone:
      return std::nullopt;
    case Gap::kTp:
      return MissingCapability{"tp", Degree("tensor parallelism", "tp", l.tp)};
    case Gap::kSequenceParallel:
      return MissingCapability{"sequence_parallel", "Megatron-style sequence parallelism"};
    case Gap::kCp:
      return MissingCapability{"cp", Degree("context parallelism", "cp", l.cp)};
    case Gap::kPp:
      return MissingCapability{"pp", Degree("pipeline parallelism", "pp", l.pp)};
    case Gap::kVp:
      return MissingCapability{"virtual_stages", Degree("an interleaved pipeline", "vp", l.vp)};
    case Gap::kEp:
      return MissingCapability{"ep", Degree("expert parallelism", "ep", l.ep)};
    case Gap::kZero:
      return MissingCapability{"zero", "ZeRO stage " + std::to_string(l.zero)};
    case Gap::kZeroModelParallel:
      return MissingCapability{"zero", "ZeRO stage " + std::to_string(l.zero) +
                                           " together with tensor or pipeline parallelism"};
    case Gap::kOffloadOptimizer:
      return MissingCapability{"offload", "optimizer-state offload to host RAM"};
    case Gap::kOffloadParams:
      return MissingCapability{"offload", "parameter offload to host RAM"};
    case Gap::kOptimizerInBackward:
      return MissingCapability{"optimizer_in_backward", "the optimizer step in backward"};
    case Gap::kActivationOffload:
      return MissingCapability{"activation_offload", "activation offload to host RAM"};
    case Gap::kSelectiveRecompute:
      return MissingCapability{"recompute",
                               "selective recomputation (Megatron's attention-core recompute or "
                               "torchtitan's op-level policy)"};
  }
  return std::nullopt;
}

Result<std::vector<Framework>> FrameworksFor(const FrameworkTable& table, std::string_view choice,
                                             const Workload& w) {
  const bool is_auto = choice.empty() || strings::Lower(choice) == "auto";
  if (!w.IsTraining()) {
    if (is_auto)
      return std::vector<Framework>{};
    return Status::InvalidArgument(
               "field \"framework\": a training framework applies to task "
               "pretrain or finetune, not " +
               std::string(TaskName(w.task)) + " (serving uses --engine)")
        .AtField("framework");
  }
  if (!is_auto) {
    const Framework* f = table.Find(choice);
    if (f == nullptr) {
      return Status::InvalidArgument("field \"framework\": unknown framework \"" +
                                     std::string(choice) + "\"; expected auto, " + table.Names() +
                                     " (data/frameworks.csv)")
          .AtField("framework");
    }
    if (std::optional<std::string> gap = MethodGap(f->caps, w)) {
      std::string others;
      for (const Framework& g : table.rows) {
        if (!MethodGap(g.caps, w))
          others += (others.empty() ? "" : ", ") + g.name;
      }
      return Status::InvalidArgument("field \"framework\": " + f->name + " (" + f->label +
                                     ") does not run " + *gap +
                                     (others.empty() ? "" : "; frameworks that do: " + others))
          .AtField("framework");
    }
    return std::vector<Framework>{*f};
  }
  std::vector<Framework> out;
  for (const Framework& f : table.rows) {
    if (MethodGap(f.caps, w))
      continue;
    out.push_back(f);
    if (w.method != Method::kFull)
      break;  // adapters: the PEFT stack, the first row that runs them
  }
  if (out.empty()) {
    return Status::InvalidArgument(
               "field \"framework\": no framework of data/frameworks.csv runs " +
               std::string(MethodName(w.method)) + " training with optimizer " +
               std::string(OptimizerName(w.optimizer)))
        .AtField("framework");
  }
  // What the workload itself pins (the estimate's --tp/--pp/... are checked where they are read).
  perf::Layout pinned;
  pinned.cp = w.cp.value_or(1);
  pinned.vp = w.virtual_stages.value_or(1);
  pinned.offload = w.offload.value_or(Offload::kNone);
  pinned.optimizer_in_backward = w.optimizer_in_backward.value_or(false);
  pinned.activation_offload = w.activation_offload.value_or(false);
  pinned.recompute = w.recompute.value_or(Recompute::kNone);
  if (std::optional<PinProblem> p = UnrunnablePins(table, out, w, pinned)) {
    return Status::InvalidArgument("field \"" + p->field + "\": " + p->message).AtField(p->field);
  }
  return out;
}

std::optional<PinProblem> UnrunnablePins(const FrameworkTable& table,
                                         const std::vector<Framework>& frameworks,
                                         const Workload& w, const perf::Layout& pinned) {
  if (frameworks.empty() || FrameworkFor(frameworks, pinned) != nullptr)
    return std::nullopt;
  const std::optional<MissingCapability> m = Missing(frameworks.front().caps, pinned);
  if (!m)
    return std::nullopt;  // unreachable: the first does not run it
  std::string who, others;
  for (const Framework& f : frameworks)
    who += (who.empty() ? "" : ", ") + f.name;
  for (const Framework& f : table.rows) {
    if (!Missing(f.caps, pinned) && !MethodGap(f.caps, w))
      others += (others.empty() ? "" : ", ") + f.name;
  }
  const std::string subject =
      frameworks.size() == 1
          ? "framework " + who + " (" + frameworks.front().label + ") does not run " + m->what
          : "none of the frameworks " + who + " runs " + m->what;
  return PinProblem{m->field,
                    subject + " (data/frameworks.csv); " +
                        (others.empty() ? "no framework runs it with " +
                                              std::string(MethodName(w.method)) + " training"
                                        : "frameworks that do: " + others) +
                        "; or leave it out"};
}

const Framework* FrameworkFor(const std::vector<Framework>& frameworks, const perf::Layout& l) {
  const size_t chosen = static_cast<size_t>(l.framework);
  if (l.framework >= 0 && chosen < frameworks.size() && Runs(frameworks[chosen].caps, l))
    return &frameworks[chosen];
  for (const Framework& f : frameworks) {
    if (Runs(f.caps, l))
      return &f;
  }
  return nullptr;
}

AttentionKernel AttentionKernelFor(const std::vector<Framework>& frameworks,
                                   const perf::Layout& l) {
  if (frameworks.empty())
    return AttentionKernel::kFlash2;
  const Framework* f = FrameworkFor(frameworks, l);
  return (f != nullptr ? *f : frameworks.front()).attention_kernel;
}

std::optional<AttentionKernel> ParseAttentionKernel(std::string_view name) {
  for (AttentionKernel k : {AttentionKernel::kFlash2, AttentionKernel::kCudnn}) {
    if (name == AttentionKernelName(k))
      return k;
  }
  return std::nullopt;
}

std::string_view AttentionKernelName(AttentionKernel k) {
  return k == AttentionKernel::kCudnn ? "cudnn" : "flash2";
}

namespace {

// How `slower` times a layout unlike `faster` ("runs FlashAttention-2, not cuDNN attention"),
// from the fields of data/frameworks.csv the estimator reads.
// Only what bears on `l`: the ZeRO-3 fetch at ZeRO 3, the selective policy under selective
// recomputation.
std::string TimingDifference(const Framework& slower, const Framework& faster,
                             const perf::Layout& l) {
  std::string d;
  auto add = [&d](const std::string& what) { d += (d.empty() ? "" : "; ") + what; };
  auto kernel = [](AttentionKernel k) {
    return k == AttentionKernel::kCudnn ? std::string("cuDNN fused attention")
                                        : std::string("FlashAttention-2");
  };
  if (slower.attention_kernel != faster.attention_kernel)
    add("runs " + kernel(slower.attention_kernel) + ", not " + kernel(faster.attention_kernel));
  if (slower.fp32_main_grads != faster.fp32_main_grads)
    add(slower.fp32_main_grads ? "keeps fp32 main gradients" : "keeps 16-bit gradients");
  if (slower.selective_keeps_matmuls != faster.selective_keeps_matmuls &&
      l.recompute == Recompute::kSelective)
    add(slower.selective_keeps_matmuls ? "recomputes selectively by op (keeps matmul outputs)"
                                       : "recomputes the attention core selectively");
  if (slower.cross_entropy != faster.cross_entropy) {
    add("holds the logits for a " + std::string(NameOf(kCrossEntropyNames, slower.cross_entropy)) +
        " loss, not a " + std::string(NameOf(kCrossEntropyNames, faster.cross_entropy)) + " one");
  }
  if (slower.zero3_fetches_modules != faster.zero3_fetches_modules && l.zero == 3)
    add(slower.zero3_fetches_modules ? "gathers ZeRO-3 parameters module by module"
                                     : "gathers ZeRO-3 parameters layer by layer");
  return d + ": slower here, or out of memory";
}

}  // namespace

std::string FrameworkWhy(const Workload& w, const perf::Layout& l) {
  const Framework* f = FrameworkFor(w.frameworks, l);
  if (f == nullptr)
    return "";
  std::string why = "runs on " + f->name + " (" + f->label + ", launched with " + f->launcher + ")";
  if (w.frameworks.size() == 1) {
    const bool named = !w.framework.empty() && strings::Lower(w.framework) != "auto";
    return why + (named ? ": the framework asked for"
                        : ": " + std::string(MethodName(w.method)) +
                              " fine-tuning uses the PEFT stack (--framework auto); --framework "
                              "names another");
  }
  // Full training on a framework the search found faster than the first that runs the layout.
  perf::Layout first_of = l;
  first_of.framework = -1;
  const Framework* first = FrameworkFor(w.frameworks, first_of);
  if (first != nullptr && first != f) {
    return why +
           ": the fastest framework for this layout (the first of data/frameworks.csv that "
           "runs it, " +
           first->name + ", " + TimingDifference(*first, *f, l) + ")";
  }
  // Full training: what each framework before the pick lacks.
  std::string lacks;
  for (const Framework& g : w.frameworks) {
    if (&g == f)
      break;
    if (std::optional<MissingCapability> m = Missing(g.caps, l))
      lacks += (lacks.empty() ? "" : ", ") + g.name + " lacks " + m->what;
  }
  return why + (lacks.empty()
                    ? ": the simplest framework that runs this layout"
                    : ": the first of data/frameworks.csv that runs this layout (" + lacks + ")");
}

}  // namespace gpuplan
