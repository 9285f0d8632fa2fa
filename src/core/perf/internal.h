// Internal interface of the performance model (include/gpuplan/estimate.h is the public one):
// the pieces each estimate file shares. Pure functions over const inputs.
#ifndef GPUPLAN_SRC_CORE_PERF_INTERNAL_H_
#define GPUPLAN_SRC_CORE_PERF_INTERNAL_H_

#include <array>
#include <optional>

#include "gpuplan/estimate.h"

namespace gpuplan::perf::internal {

inline constexpr double kGiB = 1073741824.0;  // 2^30 bytes

// Bytes per element of weights and activations at a compute precision.
double ElementBytes(Precision p);
// Bits per parameter of a quantised base (NF4 with double quantisation, or GPTQ/AWQ groups).
double QuantBits(int bits, WeightFormat format, bool nf4);

// The model's per-layer sizes in elements, shared by the memory and time formulas.
struct Dims {
  double layers = 0, h = 0, heads = 0, kvd = 0, ffn = 0, vocab = 0;
  double mlp_mats = 2;       // weight matrices in the MLP (GELU 2, SwiGLU 3)
  double layer_params = 0;   // one layer's parameters
  double embed_params = 0;   // embedding (+ untied head)
  double head_params = 0;    // the output projection's parameters (computed, tied or not)
  double params = 0;         // total
  double active_params = 0;  // used per token (= params for dense models)
  // Width of the attention core (QK^T and AV): heads x head_dim; MLA the mean of its QK
  // (nope + rope) and V widths. hidden for classic models.
  double attn_dim = 0;
  // Mixture of Experts, averaged over the layers (0 for dense models): the routed experts'
  // parameters (sharded by expert parallelism), those one token uses, and the routed copies of
  // each token (top_k on MoE layers) that dispatch, expert GEMMs and combine move.
  double expert_layer_params = 0;
  double active_expert_layer_params = 0;
  double routed_copies = 0;
  double moe_layer_share = 0;  // fraction of layers that are MoE
};

Dims DimsOf(const ModelArch& m);
// One linear layer LoRA adapts: its input and output widths.
struct AdaptedLinear {
  double in = 0, out = 0;
};
// The linear layers `targets` adapts in one layer; returns how many it wrote to `out`.
int AdaptedLinears(const Dims& d, LoraTargets targets, std::array<AdaptedLinear, 7>& out);
// LoRA adapter parameters per layer of the adapted linear layers.
double AdapterParamsPerLayer(const Dims& d, double rank, LoraTargets targets);
// A dense layer's submodules that hold parameters: its linear layers, its two norms and, with
// LoRA, each adapted linear's A and B.
double ParamModulesPerLayer(const Dims& d, bool lora, LoraTargets targets);

// Ring collective time of `bytes` over `n` ranks (factor 2 all-reduce, 1 gather/scatter).
double RingTime(double bytes, int n, double factor, double bw_bytes_s, double latency_s);
// Effective bandwidth (bytes/s) of a collective over `n` GPUs placed `span_per_node` per node.
double GroupBandwidth(const Hardware& hw, const Calibration& cal, int n, int span_per_node);

// Rows for a GEMM whose row term is saturated (t / (t + t_half) = 1 to within 1e-9 for any
// ridge point t_half): a convolution's batch x height x width, a decode step's full-rows rate.
inline constexpr double kSaturatedGemmRows = 1e12;

// Achieved fraction of peak of GEMMs with inner size `dim` over `tokens` rows.
double GemmEfficiency(const ArchEfficiency& arch, const Calibration& cal, const Gpu& gpu,
                      double peak_tflops, double dim, double tokens, Precision p,
                      double weight_bytes);
// The fraction of peak GemmEfficiency approaches with large GEMMs (and never exceeds).
double GemmFractionCeiling(const ArchEfficiency& arch, const Calibration& cal, Precision p);
// The dense peak used for GEMMs at precision p.
std::optional<double> PeakTflops(const Gpu& g, Precision p);
// Whether an FP32 workload's convolutions run in TF32: PyTorch leaves
// torch.backends.cudnn.allow_tf32 on by default (only matmuls default to full FP32 since 1.12),
// so a convolutional network "in FP32" on a GPU with TF32 units (Ampere and later) convolves in
// TF32 on its tensor cores, over FP32 storage.
bool ConvolutionsRunTf32(const Workload& w, const ModelArch& arch, const Gpu& g);
// The precision the model computes `w` in on `g`: TF32 for the convolutions above, else `w`'s.
Precision ComputePrecision(const Workload& w, const ModelArch& arch, const Gpu& g);

// --- Mixture of Experts (moe.cc).
// The MoE parts of Dims (routed experts per layer, the token's MLP width and routed copies).
void ApplyMoeDims(const ModelArch& m, Dims& d);
// GPUs one expert's weights are spread over: ep x tp while that fits in tp x dp.
double ExpertShards(const Layout& l);
// Token dispatch and combine of `tokens` on this GPU over `moe_layers` MoE layers, `passes`
// all-to-alls per layer, seconds (0 without expert parallelism), of which `hidden` (a fraction)
// runs behind compute.
double MoeAllToAllSeconds(const Dims& d, const Layout& l, const Hardware& hw,
                          const Calibration& cal, double tokens, double moe_layers, double passes,
                          double act_bytes, double hidden);
// GPUs one expert's matrices are split over by tensor parallelism: ExpertShards over the ep
// ranks holding whole experts (1 with expert parallelism over the tensor-parallel group; tp
// without expert parallelism, as vLLM and SGLang serve an MoE by default).
double ExpertTensorSplit(const Layout& l);
// Achieved efficiency of the expert GEMMs at the rows each expert receives from `tokens`, on
// this GPU's 1 / `split` of each expert's width.
double ExpertGemmEfficiency(const ModelArch& arch, const ArchEfficiency& eff,
                            const Calibration& cal, const Gpu& gpu, double peak, double tokens,
                            double split, Precision p, double weight_bytes);
// Seconds of `flops` of this GPU's expert GEMMs at the rows `tokens` give each expert: their
// arithmetic waits for the busiest expert (Calibration::moe_load_imbalance more rows than the
// mean), while every expert's weights are read once however many rows it gets.
double ExpertGemmSeconds(const ModelArch& arch, const ArchEfficiency& eff, const Calibration& cal,
                         const Gpu& gpu, double peak, double tokens, double split, Precision p,
                         double weight_bytes, double flops);

// Fills the overhead, totals and fit of `e.memory` from its breakdown.
// `static_gib` of the allocation is made once in large blocks and not fragmented.
void FinishMemory(Estimate& e, const Hardware& hw, const Calibration& cal, double static_gib = 0);
// The fit of memory whose needs are known, on `hw`: its GPU's usable memory and the model's
// memory error (FitGpu; FinishMemory calls it), then the host RAM offloading needs against
// what the node leaves (FitHost, after FitGpu). The layout search refits memory it has
// computed on other hardware of the same shape with them.
void FitGpu(Estimate::Memory& m, const Hardware& hw);
void FitHost(Estimate::Memory& m, const Hardware& hw, const Calibration& cal);
// What they fit to: the usable memory of one of hw's GPUs, and the node's RAM left for
// offloading (its share Calibration::host_ram_usable_fraction; checked only where both the
// need and hw.host_memory_gib are above 0).
double UsableGpuGib(const Hardware& hw);
double UsableHostGib(const Hardware& hw, const Calibration& cal);

struct TrainingInvariants;  // training_shape.h

// The two estimates behind EstimateRun (layout already checked; `peak` in TFLOPS). `shared`:
// the invariants a layout search builds once (nullptr, or made for another cp: built here).
// `memory_only`: only `memory` and `grad_accum` (what a fit probe needs), no time.
Result<Estimate> EstimateTraining(const Workload& w, const ModelArch& arch, const Hardware& hw,
                                  const Layout& l, const Calibration& cal, double peak,
                                  const TrainingInvariants* shared = nullptr,
                                  bool memory_only = false);
Result<Estimate> EstimateInference(const Workload& w, const ModelArch& arch, const Hardware& hw,
                                   const Layout& l, const Calibration& cal, double peak);
// The same for a kind=other model (sample_inference.cc): images, diffusion, speech.
// A diffusion transformer's image (or video) tokens per pass at its native size: the VAE's 8x
// in space, 2x2 patches, video VAEs 4x in time (SD3, FLUX, Wan 2.1).
double DitNativeTokens(const ModelArch& arch);
// Its forward FLOPs per pass at that size: linear layers 2 N tokens, attention 4 L tokens^2 h.
double DitNativeForwardFlops(const ModelArch& arch);
// The layer outputs one sample leaves for backward (and the memory-bound layers move): a CNN's
// or UNet's from its zoo row (activation_melems_per_sample), a diffusion transformer's 17 h
// per token and layer at its native size.
double SampleActivationElements(const ModelArch& arch);
// The bytes-passes per layer output element that NCHW activations add to each pass of a
// convolutional network whose convolutions run on tensor cores (`memory_format: nchw`): cuDNN
// transposes every convolution's input to NHWC and its output back, each read and written once
// (4 passes; a network's convolution inputs are about as many elements as its outputs). 0 for
// NHWC, for SIMT convolutions (FP32 on a GPU without TF32) and for models without convolutions.
double NchwTransposeTraffic(const Workload& w, const ModelArch& arch, const Gpu& gpu,
                            bool inference);

Result<Estimate> EstimateSampleInference(const Workload& w, const ModelArch& arch,
                                         const Hardware& hw, const Layout& l,
                                         const Calibration& cal, double peak);

// EstimateRun with the training invariants a layout search shares over its estimates;
// `memory_only` (training): the memory alone, for the search's fit probes.
Result<Estimate> EstimateRunShared(const Workload& w, const ModelArch& arch, const Hardware& hw,
                                   const Layout& layout, const Calibration& cal,
                                   const TrainingInvariants* shared, bool memory_only = false);

}  // namespace gpuplan::perf::internal

#endif  // GPUPLAN_SRC_CORE_PERF_INTERNAL_H_
