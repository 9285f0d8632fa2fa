// Model architectures: what the performance model needs to know about a network.
//
// A decoder LLM is described by its transformer shape (layers, hidden, heads, KV heads, FFN width
// and kind, vocabulary); parameters and FLOPs follow from it. Other networks (BERT, ResNet, ViT,
// SDXL UNet, Whisper) are described by parameter count, FLOPs per sample and, where they are
// transformers, their shape too. The zoo (data/models.csv, loaded by io/model_zoo.h) holds named
// models with a source and date per row; users can also give an architecture inline.
//
//   const ModelArch* m = zoo.Find("llama-2-7b");
//   double n = m->Params();            // 6.74e9
//
// Thread safety: plain values; a const ModelZoo may be shared across threads.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_MODEL_H_
#define GPUPLAN_INCLUDE_GPUPLAN_MODEL_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/status.h"

namespace gpuplan {

// What kind of network: decides which formulas apply.
enum class ModelKind {
  kDecoder,  // causal LM (GPT, Llama, Qwen ...): all formulas apply
  kEncoder,  // bidirectional transformer (BERT): training/prefill formulas apply, no decode
  kOther,    // CNN, diffusion UNet, speech: params and flops_per_sample only
};
std::string_view ModelKindName(ModelKind k);  // "decoder", "encoder", "other"

// Kind of MLP block. `ffn` is the width of one projection in both cases.
enum class MlpKind {
  kGelu,    // two matrices h x ffn (GPT, MPT, OPT, BLOOM, BERT)
  kSwiglu,  // three matrices h x ffn (Llama, Mistral, Qwen)
};

struct ModelArch {
  std::string name;  // zoo name ("llama-2-7b") or "inline"
  ModelKind kind = ModelKind::kDecoder;
  // Transformer shape; 0 for kOther models.
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;  // = heads without grouped-query attention
  int ffn = 0;       // width of one MLP projection
  int vocab = 0;
  MlpKind mlp = MlpKind::kGelu;
  bool tied_embeddings = false;  // output projection shares the input embedding
  // Trains with dropout (GPT-3/Megatron-era models): dropout masks are saved activations
  // (Korthikanti et al. 2022 count them in the 34sbh + 5as^2b per layer).
  bool dropout = false;
  // Total parameters as published; 0 = compute from the shape (see Params()).
  double params = 0;
  // Forward FLOPs per sample at `default_seq_len` for kOther models (images, audio windows);
  // 0 for transformers (computed from the shape and sequence length).
  double forward_flops_per_sample = 0;
  // Output elements of all layers for one sample in a forward pass (kOther models; 0 =
  // unknown): the traffic of the memory-bound layers between the GEMMs/convolutions
  // (normalisation, activation functions, residual adds), which dominates convolutional networks
  // once tensor cores make the convolutions fast.
  double activation_elements_per_sample = 0;
  int default_seq_len = 0;  // tokens per sample the model was trained with (0 = unknown)
  std::string source;       // where the numbers come from
  std::string as_of;        // date of the source

  // Total parameters: `params` when published, else computed from the shape (embeddings, per
  // layer attention with GQA, MLP, norms; output head unless tied).
  double Params() const;
  // Parameters in the transformer layers only (no embeddings/head); 0 for kOther.
  double LayerParams() const;
  // Parameters of the embedding and (untied) output head.
  double EmbeddingParams() const;
  int HeadDim() const { return heads > 0 ? hidden / heads : 0; }
  bool IsTransformer() const { return kind != ModelKind::kOther && layers > 0 && hidden > 0; }
};

// Checks a ModelArch for consistency (positive sizes, heads divides hidden, kv_heads divides
// heads). Returns InvalidArgument naming the field, e.g. `field "kv_heads": expected a divisor
// of heads (32), got 5`.
Status ValidateModelArch(const ModelArch& m);

class ModelZoo {
 public:
  std::vector<ModelArch> models;

  // Case-insensitive name lookup; also accepts "_" for "-" and "meta-llama/Llama-2-7b-hf"-style
  // names (the part after '/'). nullptr when absent.
  const ModelArch* Find(std::string_view name) const;
  // Up to `limit` closest names, for "did you mean".
  std::vector<std::string> Suggest(std::string_view name, int limit = 3) const;
};

}  // namespace gpuplan

#endif  // GPUPLAN_INCLUDE_GPUPLAN_MODEL_H_
