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

// How attention projects keys and values.
enum class AttentionKind {
  kGqa,  // K and V of kv_heads x head_dim (kv_heads == heads is plain multi-head attention)
  kMla,  // DeepSeek's multi-head latent attention: K and V from one low-rank latent per token
};
std::string_view AttentionKindName(AttentionKind k, int heads, int kv_heads);  // mha|gqa|mla

// What one sample of a kind=other model is at inference (models.csv `modality`), which decides
// how its time is counted (src/core/perf/sample_inference.cc).
enum class Modality {
  kNone,       // unknown: inference is not modelled (training only)
  kImage,      // one forward pass per image: CNN classifiers, detectors, segmenters, ViT
  kDiffusion,  // a denoiser run `steps` times per image or video, then the VAE decode
  kSpeech,     // an encoder over a 30 s audio window, then an autoregressive text decoder
};
std::string_view ModalityName(Modality m);  // "", "image", "diffusion", "speech"
std::optional<Modality> ParseModality(std::string_view name);

// A speech model's sample: one 30 s window of audio (Whisper's input, Radford et al. 2022, 2.2).
inline constexpr double kSpeechWindowSeconds = 30;

// How a kind=other model makes one sample at inference. For a diffusion denoiser the zoo's
// forward_flops_per_sample is one denoiser pass over one latent at `native_px` x `native_px`
// (and `frames`); a diffusion transformer (ModelArch layers and hidden given) is scaled by its
// token count instead: linear layers 2 x params x tokens, attention 4 x layers x tokens^2 x
// hidden (Peebles & Xie 2023, DiT, 3.2), tokens = latent frames x (pixels / 16)^2 (VAE 8x, patch
// 2x2; video VAEs 4x in time: (frames - 1) / 4 + 1 latent frames, Wan 2.1 report 2025).
struct GenerationShape {
  Modality modality = Modality::kNone;
  // Diffusion: default sampling steps; speech: tokens decoded per 30 s window.
  int steps = 0;
  bool cfg = false;  // classifier-free guidance: a conditional and an unconditional pass per step
  int native_width = 0;       // diffusion: output width and height in pixels the FLOPs are given
  int native_height = 0;      // at (1024 x 1024 for SDXL, 1280 x 720 for Wan 2.1 720p)
  int frames = 0;             // video diffusion: output frames the FLOPs are given at; 0 = an image
  double once_flops = 0;      // per sample, once: text encoders + VAE decode at native size
  double aux_params = 0;      // weights besides the main network: text encoders, VAE
  double decoder_params = 0;  // speech: weights each decode step reads
  double peak_bytes = 0;      // diffusion: the VAE decode's peak per sample at native size
};

// Multi-head latent attention (DeepSeek-V2, Liu et al. 2024, 2.1): queries through an optional
// low-rank bottleneck, keys and values decompressed from a kv_lora_rank latent plus a shared
// decoupled RoPE key of qk_rope_head_dim; the cache holds only the latent and the RoPE key.
struct MlaShape {
  int q_lora_rank = 0;  // 0 = queries projected directly from the hidden state (V2-Lite)
  int kv_lora_rank = 0;
  int qk_rope_head_dim = 0;
  int qk_nope_head_dim = 0;
  int v_head_dim = 0;
};

// Mixture-of-Experts MLP (Shazeer et al. 2017; Fedus et al. 2022): a router picks top_k of
// `experts` SwiGLU/GELU experts per token; shared experts run for every token. The first
// `dense_layers` layers keep a dense MLP of width `ffn`; after them every `moe_every`-th layer
// is MoE (1 = all; Llama 4 Maverick alternates, 2), the others dense.
struct MoeShape {
  int experts = 0;         // routed experts per MoE layer; 0 = a dense model
  int top_k = 0;           // routed experts per token
  int expert_ffn = 0;      // width of one expert's projection (moe_intermediate_size)
  int shared_experts = 0;  // always-on experts per MoE layer
  int shared_ffn = 0;      // width of one shared expert; 0 = expert_ffn
  int dense_layers = 0;    // leading dense layers (first_k_dense_replace)
  int moe_every = 1;       // MoE layer frequency after the dense ones
};

struct ModelArch {
  std::string name;  // zoo name ("llama-2-7b") or "inline"
  ModelKind kind = ModelKind::kDecoder;
  // Transformer shape; 0 for kOther models.
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;  // = heads without grouped-query attention
  int ffn = 0;       // width of one dense MLP projection (0 when every layer is MoE)
  int vocab = 0;
  int head_dim = 0;  // per-head size; 0 = hidden / heads (Qwen3, Gemma and gpt-oss set it apart)
  MlpKind mlp = MlpKind::kGelu;
  AttentionKind attention = AttentionKind::kGqa;
  MlaShape mla;  // attention == kMla
  MoeShape moe;  // moe.experts > 0
  // Sliding-window attention: `sliding_layers` of the layers attend to at most `sliding_window`
  // tokens and keep only that much KV cache (Mistral: all layers; Gemma 2, gpt-oss: half).
  int sliding_window = 0;
  int sliding_layers = 0;
  bool tied_embeddings = false;  // output projection shares the input embedding
  // Trains with dropout (GPT-3/Megatron-era models): dropout masks are saved activations
  // (Korthikanti et al. 2022 count them in the 34sbh + 5as^2b per layer).
  bool dropout = false;
  // Total parameters as published; 0 = compute from the shape (see Params()).
  double params = 0;
  // Parameters used per token as published (MoE); 0 = compute from the shape.
  double active_params = 0;
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
  std::string hf_id;        // Hugging Face repository ("Qwen/Qwen3-30B-A3B"); "" = none
  // How the weights are released (models.csv release_weights): 16-bit; FP8 (DeepSeek-V3/R1,
  // Kimi K2); or the routed experts in MXFP4 and the rest 16-bit (gpt-oss). A serving workload
  // that gives no precision is served as released (DeriveDefaults).
  enum class Release { k16Bit, kFp8, kMxfp4Experts };
  Release release = Release::k16Bit;
  // A reasoning model (models.csv reasoning): it writes thousands of tokens of thinking before
  // its answer, so a serving workload that gives no output length is sized for that.
  bool reasoning = false;
  // kind=other: what a sample is at inference (modality none = not modelled).
  GenerationShape gen;

  // Total parameters: `params` when published, else computed from the shape (embeddings, per
  // layer attention with GQA or MLA, dense MLP or all experts and the router, norms; output
  // head unless tied).
  double Params() const;
  // Parameters one token uses: `active_params` when published, else from the shape (the dense
  // part plus top_k routed and the shared experts of each MoE layer); Params() for dense models.
  double ActiveParams() const;
  // Parameters in the transformer layers only (no embeddings/head); 0 for kOther.
  double LayerParams() const;
  // Parameters of the embedding and (untied) output head.
  double EmbeddingParams() const;

  int HeadDim() const { return head_dim > 0 ? head_dim : heads > 0 ? hidden / heads : 0; }
  bool IsTransformer() const { return kind != ModelKind::kOther && layers > 0 && hidden > 0; }
  bool IsMoe() const { return moe.experts > 0; }
  // A diffusion transformer (SD3, FLUX, Wan): a diffusion model with its layers and hidden.
  bool IsDit() const { return gen.modality == Modality::kDiffusion && layers > 0 && hidden > 0; }
  // A convolutional network's (a CNN's, a UNet's) layer output elements per sample, from its
  // zoo row; 0 for transformers, diffusion transformers and rows that do not give them.
  double ConvolutionElements() const {
    return kind == ModelKind::kOther && !IsDit() ? activation_elements_per_sample : 0;
  }

  // Per-layer pieces, elements (parameters). Attention: Q, K, V and output projections (MLA:
  // the low-rank down and up projections and their norms) and, for Qwen3-style QK-norm, nothing
  // more than rounding. Dense MLP: mats x hidden x ffn.
  double AttentionParamsPerLayer() const;
  double DenseMlpParamsPerLayer() const;
  // One routed expert's parameters (mats x hidden x expert_ffn).
  double ExpertParams() const;
  // All shared experts of one MoE layer plus its router (hidden x experts): read by every token.
  double MoeAlwaysOnParamsPerLayer() const;
  int MoeLayers() const;  // layers with a MoE MLP
  // Parameters of all routed experts of all layers: the part sharded by expert parallelism.
  double RoutedExpertParams() const;
  // Queries' width (heads x head_dim; MLA: heads x (qk_nope + qk_rope)), the attention core's
  // per-token size for the score FLOPs.
  double QueryDim() const;
  // Elements of the KV cache per token per layer: GQA 2 x kv_heads x head_dim; MLA the latent
  // plus the RoPE key, kv_lora_rank + qk_rope_head_dim (one copy for all heads).
  double KvElementsPerTokenPerLayer() const;
  // KV-cache elements of one sequence of `context_tokens` over all layers, sliding-window
  // layers capped at their window.
  double KvCacheElements(double context_tokens) const;
};

// Expected number of distinct experts a batch of `tokens` tokens routes to when each picks
// `top_k` of `experts` uniformly: E (1 - (1 - k/E)^T). Decode reads only these experts'
// weights. 0 when experts is 0; experts when tokens is large.
double ExpectedDistinctExperts(int experts, int top_k, double tokens);

// Checks a ModelArch for consistency (positive sizes, heads divides hidden unless head_dim is
// given, kv_heads divides heads, MLA ranks given, top_k <= experts, a dense ffn where layers are
// dense, at most 1e13 parameters: 10T, beyond any published model). Returns InvalidArgument
// naming the field, e.g. `field "kv_heads": expected a divisor
// of heads (32), got 5`.
Status ValidateModelArch(const ModelArch& m);

class ModelZoo {
 public:
  std::vector<ModelArch> models;

  // Case-insensitive name lookup; also accepts "_" for "-", a row's Hugging Face id
  // ("Qwen/Qwen3-30B-A3B") and "meta-llama/Llama-2-7b-hf"-style names (the part after '/').
  // nullptr when absent.
  const ModelArch* Find(std::string_view name) const;
  // Up to `limit` closest names, for "did you mean".
  std::vector<std::string> Suggest(std::string_view name, int limit = 3) const;
};

}  // namespace gpuplan

#endif  // GPUPLAN_INCLUDE_GPUPLAN_MODEL_H_
