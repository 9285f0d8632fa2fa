// The model as operation records (as Calculon and llm-analysis structure theirs): every operation
// of a transformer layer, and of the model around the layers, yields its FLOPs, the weights it
// multiplies by, the elements it streams or sends, and the activation bytes it keeps for
// backward, with forward, backward and recompute multipliers. The memory (training_memory.cc),
// compute (training_compute.cc) and communication (training_comm.cc) parts of the training
// estimate and the inference estimate (inference.cc) each read the records; nothing else
// restates a per-layer formula.
//
// A record is per token and per layer, for the whole layer before any parallel split: the
// readers divide by tp (inside the tensor-parallel region, or outside it under sequence
// parallelism) and multiply by the tokens of a micro-batch and the layers of a stage.
#ifndef GPUPLAN_SRC_CORE_PERF_OP_RECORDS_H_
#define GPUPLAN_SRC_CORE_PERF_OP_RECORDS_H_

#include <array>
#include <cstddef>
#include <string_view>

#include "perf/internal.h"

namespace gpuplan::perf::internal {

enum class OpKind {
  kGemm,  // a weight matrix times the activations (dense layers, shared experts, router, head)
  kExpertGemm,  // routed experts' GEMMs (MoE): their own rows per expert, the busiest one waited
                // for
  kAdapter,     // LoRA adapter GEMMs (trainable): skinny, so memory-bound at their roofline
  kAdapterElementwise,  // LoRA's scaling, add, dtype casts and dropout: counted bytes
  kAttention,           // the attention core: QK^T, softmax, AV
  kElementwise,  // memory-bound streams: norms, residual adds, activation functions, permutes
  kCollective,   // a collective the layer runs per micro-batch (tensor, context, expert parallel)
};

// Which group a collective record runs over.
enum class OpGroup { kNone, kTensor, kContext, kExpert };

// What a training step runs again in backward, as the records count it: Recompute's three
// modes, with selective split by the policy of the framework that runs it (data/frameworks.csv
// selective_policy): Megatron's, which recomputes the attention core (Korthikanti et al. 2022),
// or PyTorch's op-level selective activation checkpointing as torchtitan applies it, which keeps
// the output of every other matmul and of attention and recomputes everything else.
enum class Rerun { kNone, kSelective, kFull, kSelectiveMatmuls };
inline constexpr size_t kReruns = 4;
constexpr Rerun RerunOf(Recompute rc, bool keeps_matmuls) {
  return rc == Recompute::kSelective && keeps_matmuls ? Rerun::kSelectiveMatmuls
         : rc == Recompute::kSelective                ? Rerun::kSelective
         : rc == Recompute::kFull                     ? Rerun::kFull
                                                      : Rerun::kNone;
}
constexpr Recompute RecomputeOf(Rerun r) {
  return r == Rerun::kFull   ? Recompute::kFull
         : r == Rerun::kNone ? Recompute::kNone
                             : Recompute::kSelective;
}

// A plain aggregate: OpRecords leaves its unused slots unwritten (the layout search builds the
// records for every estimate), and Make gives a record its defaults.
struct OpRecord {
  std::string_view name;
  OpKind kind;
  OpGroup group;           // kNone but for collectives
  double flops;            // forward FLOPs per token
  double weight_params;    // parameters of its weights (the shape's count)
  double moved;            // elements per token streamed (elementwise) or sent (collective)
  double saved_bytes;      // activation bytes per token kept for backward
  double selective_bytes;  // of saved_bytes, what selective recomputation drops
  // Under the matmul-keeping policy (Rerun::kSelectiveMatmuls): the bytes per token it keeps and
  // the share of the record's forward it runs again.
  double matmul_policy_saved;
  double matmul_policy_rerun;
  bool tensor_sharded;  // inside the tensor-parallel region (else only sequence parallel)
  // Passes over the op per training step, in forward-pass units: backward costs two forwards
  // for a trainable GEMM (input and weight gradients) and one for a frozen one; recomputation
  // repeats the forward (full: every op; selective: the attention core only).
  double forward;
  double backward;
  bool selective;  // recomputed by selective recomputation too
  // Kernel launches per micro-batch, forward and backward (the host dispatches each one).
  double kernels;
  double backward_kernels;

  // Nothing computed, nothing moved; inside the tensor-parallel region; forward 1, backward 2.
  static OpRecord Make(std::string_view name, OpKind kind) {
    return OpRecord{name, kind, OpGroup::kNone, 0, 0, 0, 0, 0, 0, 0, true, 1, 2, false, 0, 0};
  }
};

// The records of one model and workload: those of one (average) transformer layer and those
// around the layers. MoE layers and dense layers are averaged by their share of the layers.
struct OpRecords {
  static constexpr int kLayerOps = 18;
  static constexpr int kModelOps = 4;
  std::array<OpRecord, kLayerOps> layer;  // [0, layer_ops) written
  std::array<OpRecord, kModelOps> model;  // [0, model_ops): embedding, final norm, logits, unlisted
  int layer_ops = 0;
  int model_ops = 0;
  double layers = 0;
  // The sums the estimates read, taken once when the records are built (the layout search
  // estimates thousands of layouts of one model): see the functions below.
  struct Sums {
    double gemm_weight_params = 0;
    double attention_flops = 0;
    double adapter_flops = 0;
    double elementwise_elements = 0;
    // Per recomputation (indexed by Rerun): a layer's kernel launches, the passes of its
    // collectives per group (indexed by OpGroup) and the activation bytes per token it keeps
    // outside and inside the tensor-parallel region.
    std::array<double, kReruns> layer_kernels{};
    std::array<std::array<double, 4>, kReruns> collective_passes{};
    std::array<double, 4> collective_forward_passes{};
    std::array<double, kReruns> saved_replicated{}, saved_sharded{};
    double matmul_policy_rerun_flops = 0;  // forward FLOPs per token it runs again, all layers
    double model_kernels = 0;
  } sums;
  double layer_input_bytes = 0;  // per token: what full recomputation keeps of a layer
};

// What the records depend on besides the architecture.
struct OpContext {
  double seq = 0;        // tokens a sequence's attention spans (full sequence)
  double seq_local = 0;  // tokens of a sequence on this rank (seq / cp): what activations hold
  double element_bytes = 2;
  bool flash = true;
  bool lora = false;  // frozen base weights, trainable rank-`lora_rank` adapters
  double lora_rank = 0;
  LoraTargets lora_targets = LoraTargets::kAll;
  double lora_dropout = 0;
  // Mixed precision keeps the trainable adapters in fp32 beside the 16-bit base (PEFT); pure
  // 16-bit training keeps them in the compute precision.
  bool fp32_adapters = false;
};

// Fills `r` (freshly constructed) in place: the estimates keep the records inside their shape
// of the step, so building them copies nothing.
void BuildOpRecords(const ModelArch& arch, const Dims& d, const OpContext& c, OpRecords& r);
inline OpRecords BuildOpRecords(const ModelArch& arch, const Dims& d, const OpContext& c) {
  OpRecords r;
  BuildOpRecords(arch, d, c, r);
  return r;
}

// A published parameter total overrides the shape's: memory scales every layer op's weights by
// this (Dims does the same); the FLOPs count the published total through the "unlisted
// weights" record (biases, position tables, rounding of the published figure).
double LayerParamScale(const ModelArch& arch, const Dims& d);

// --- Sums over the records (per token, whole model unless a name says per layer).

// Weight parameters the GEMMs multiply every token by (the model's N less the embedding table,
// plus the output head): the basis of the 2N forward FLOPs per token.
double GemmWeightParams(const OpRecords& r);
// Forward FLOPs per token of the records of `kind` over all layers (and the model ops).
double ForwardFlops(const OpRecords& r, OpKind kind);
// Elements per token per layer the elementwise ops stream.
double ElementwiseElementsPerLayer(const OpRecords& r);
// Saved activations of one layer for `tokens` tokens of a micro-batch on one GPU, bytes.
double LayerActivationBytes(const OpRecords& r, double tokens, int tp, bool sp, Rerun rc);
// Passes of a layer's collectives over `group` per training step (each pass runs it once).
double CollectivePasses(const OpRecords& r, OpGroup group, Rerun rc);
// Of those, the forward passes (what one inference forward runs).
double CollectiveForwardPasses(const OpRecords& r, OpGroup group);

// Passes of one record per training step under recomputation rc.
double Passes(const OpRecord& op, Rerun rc);
// Kernel launches of one layer's records, and of the model ops around the layers, per
// micro-batch of a training step under recomputation rc (a recompute forward launches the
// forward's kernels again).
double LayerKernels(const OpRecords& r, Rerun rc);
double ModelKernels(const OpRecords& r);

}  // namespace gpuplan::perf::internal

#endif  // GPUPLAN_SRC_CORE_PERF_OP_RECORDS_H_
