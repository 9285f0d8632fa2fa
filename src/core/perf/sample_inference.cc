// Inference of kind=other models (images, diffusion, speech): the time and memory of one batch
// of samples, where a sample is an image (one forward pass), a generated image or video (a
// denoiser run `steps` times, twice per step with classifier-free guidance, then the VAE
// decode) or a 30 s audio window (an encoder pass, then an autoregressive text decoder).
#include <algorithm>
#include <cmath>
#include <string>

#include "perf/internal.h"

namespace gpuplan::perf::internal {
namespace {

// GEMM rows one image contributes to a convolution or ViT layer: a 14x14 feature map (the
// middle stage of ResNet-50, He et al. 2016 Table 1; ViT-B/16's 196 patches), so a batch of one
// runs below the roofline's ridge and large batches saturate.
constexpr double kImageGemmRows = 196;
// Whisper's encoder sees 1500 frames per 30 s window (Radford et al. 2022, 2.2: 3000 mel frames,
// stride-2 convolution).
constexpr double kSpeechEncoderFrames = 1500;
// A compiled engine (TensorRT, torch.compile with CUDA graphs) fuses convolution, norm and
// activation and launches from C++ or a graph: a quarter of eager PyTorch's host time per layer
// (assumption: three eager kernels per layer fused into one, launched without Python).
constexpr double kCompiledHostShare = 0.25;
// Eager mixed precision (torch.autocast) adds host work per convolutional layer: each forward
// casts every weight to 16 bits (autocast's cast cache lives for one autocast region), a cast
// kernel and a dispatch per weight on top of the FP32 layer's. Fitted on the same DLE batch-1
// rows as other_layer_overhead_us: AMP takes 12.8 ms per image on V100 and 12.7 ms on T4
// against FP32's 10.4 and 10.2 (VDS-RN50-001/005/009/013), 1.22x.
constexpr double kAutocastHostFactor = 1.22;
// The spread of transcript length between 30 s windows of speech, as a coefficient of
// variation: speaking rates of conversational and read English span about 120-180 words per
// minute around 150 (assumption: a spread of one sixth of the mean, 0.15 rounded). Checked on
// VDS-WHISPER-001 (HF pipeline, batches of 24 windows on A100).
constexpr double kTranscriptLengthCv = 0.15;
// Forward-only, non-causal attention (a diffusion transformer's) runs at twice the fraction of
// peak that Calibration::attention_fraction gives fused attention in training (forward and
// backward, causal): FlashAttention-2's forward reaches 1.5-2x its backward's FLOP rate (Dao
// 2023, Fig. 4-6). Checked on the two Wan 2.1 14B rows of tests/testdata/validation/
// vision_diffusion_speech.csv (H200, 480p and 720p).
constexpr double kForwardAttentionFactor = 2.0;

// Saved activations of one transformer layer in training with fused attention, per token, in
// units of the hidden size: 34 h bytes at 16 bits (Korthikanti et al. 2022, eq. 1 without the
// s^2 scores a fused kernel never stores), 17 h elements.
constexpr double kDitSavedPerTokenHidden = 17;

// The denoiser's work per pass at the workload's size: diffusion transformers from their token
// count (linear 2 N tokens, attention 4 L tokens^2 h, non-causal: Peebles & Xie 2023), UNets
// and CNNs scaled by the pixel count from their zoo FLOPs.
struct PassWork {
  double gemm_flops = 0;       // linear layers and convolutions
  double attention_flops = 0;  // attention scores and values (DiT)
  double pixel_scale = 1;      // output pixels x frames relative to the zoo's native size
  double tokens = 0;           // DiT tokens per pass
};

double LatentFrames(int frames) { return frames > 1 ? std::floor((frames - 1) / 4.0) + 1 : 1; }

double DitTokens(double width, double height, int frames) {
  return LatentFrames(frames) * std::ceil(width / 16) * std::ceil(height / 16);
}

PassWork DiffusionPass(const Workload& w, const ModelArch& arch) {
  const GenerationShape& g = arch.gen;
  const InferenceSpec& inf = w.inference;
  const double width = inf.width_px.value_or(g.native_width);
  const double height = inf.height_px.value_or(g.native_height);
  const int frames = inf.frames.value_or(g.frames);
  PassWork p;
  p.pixel_scale = width * height * std::max(1, frames) /
                  (static_cast<double>(g.native_width) * g.native_height * std::max(1, g.frames));
  if (arch.IsDit()) {
    // VAE 8x in space, 2x2 patches (SD3, FLUX, Wan); video VAEs 4x in time (Wan 2.1).
    p.tokens = DitTokens(width, height, frames);
    p.gemm_flops = 2 * arch.params * p.tokens;
    p.attention_flops = 4.0 * arch.layers * p.tokens * p.tokens * arch.hidden;
  } else {
    p.gemm_flops = arch.forward_flops_per_sample * p.pixel_scale;
  }
  return p;
}

// One batch of samples on one GPU: what the three kinds of sample share (the hardware's rates
// and the batch's shape), and each kind's time and memory. Each kind writes one batch's times
// into `it`, its memory into `mem`, and returns the FLOPs per sample.
struct Batch {
  const Workload& w;
  const InferenceSpec& inf;
  const ModelArch& arch;
  const GenerationShape& g;
  const Hardware& hw;
  const Calibration& cal;
  ArchEfficiency eff_row;
  const Gpu& gpu;
  double peak, peak_flops;  // TFLOPS, FLOP/s
  double e;                 // bytes per element
  double batch;
  double bw;          // effective memory bandwidth, bytes/s
  double host_s;      // host launches per forward pass
  double main_bytes;  // the main network's weights

  double Image(InferenceTimes& it, MemoryBreakdown& mem) const;
  double Diffusion(InferenceTimes& it, MemoryBreakdown& mem) const;
  double Speech(InferenceTimes& it, MemoryBreakdown& mem) const;
};

// A forward pass per image.
double Batch::Image(InferenceTimes& it, MemoryBreakdown& mem) const {
  const double eff = GemmEfficiency(eff_row, cal, gpu, peak, cal.conv_gemm_dim,
                                    batch * kImageGemmRows, w.precision, e);
  const double flops = arch.forward_flops_per_sample * batch;
  // Memory-bound layers over every layer's output (norms, activations, residual adds), at
  // the training model's rate per pass (which fits ResNet-50 training: README "validate").
  const double traffic = (cal.elementwise_traffic + NchwTransposeTraffic(w, arch, gpu, true)) *
                         arch.activation_elements_per_sample * e * batch / bw;
  const double gpu_s = std::max(flops / (peak_flops * eff) + traffic, main_bytes / bw);
  // Decoding the JPEGs on the host's cores (PIL, torchvision) caps the images per second at
  // the vCPUs per GPU over the decode time; on the GPU (DALI, nvJPEG) it overlaps.
  const double cpu_s =
      !inf.gpu_image_decode && hw.host_vcpus > 0
          ? batch * cal.jpeg_decode_ms * 1e-3 / (hw.host_vcpus / std::max(1, hw.gpus_per_node))
          : 0;
  it.prefill_s = std::max({gpu_s, host_s, cpu_s});
  it.request_s = it.prefill_s;
  it.ttft_ms = it.request_s * 1e3;
  // Live activations: a layer's input and output at a time; the largest layer outputs are a
  // few times the average, so a quarter of all outputs bounds them (assumption).
  mem.activations = 0.25 * arch.activation_elements_per_sample * e * batch / kGiB;
  return arch.forward_flops_per_sample;
}

// `steps` denoiser passes (twice with guidance), then the text encoders and the VAE decode.
double Batch::Diffusion(InferenceTimes& it, MemoryBreakdown& mem) const {
  const PassWork p = DiffusionPass(w, arch);
  const double steps = inf.steps.value_or(g.steps);
  const double guidance = inf.cfg.value_or(g.cfg) ? 2 : 1;
  const double rows = batch * guidance * std::max(p.tokens, 1024.0);
  const double eff =
      GemmEfficiency(eff_row, cal, gpu, peak, cal.conv_gemm_dim, rows, w.precision, e);
  // The conditional and unconditional passes run as one batch of 2 x batch latents; a UNet's
  // group norms, activations and residual adds move its layer outputs (as a CNN's).
  const double traffic =
      arch.IsDit() ? 0
                   : (cal.elementwise_traffic + NchwTransposeTraffic(w, arch, gpu, true)) *
                         arch.activation_elements_per_sample * p.pixel_scale * e / bw;
  const double attention_rate = eff_row.attention_fraction * kForwardAttentionFactor;
  const double pass_s = std::max({batch * guidance *
                                      (p.gemm_flops / (peak_flops * eff) +
                                       p.attention_flops / (peak_flops * attention_rate) + traffic),
                                  main_bytes / bw, host_s});
  // Text encoders and the VAE decode, once per sample, at the GEMM rate.
  const double once_s = batch * g.once_flops * p.pixel_scale / (peak_flops * eff);
  it.prefill_s = steps * pass_s + once_s;
  it.request_s = it.prefill_s;
  it.ttft_ms = it.request_s * 1e3;
  // The denoiser's activations of one pass (DiT: a few hidden-wide and one MLP-wide tensor
  // per token) and the VAE decode's peak, which comes after the denoiser's are freed.
  const double dit_act = arch.IsDit() ? batch * guidance * p.tokens * 8.0 * arch.hidden * e : 0;
  mem.activations = dit_act / kGiB;
  mem.transient = std::max(0.0, batch * g.peak_bytes * p.pixel_scale - dit_act) / kGiB;
  return steps * guidance * (p.gemm_flops + p.attention_flops) + g.once_flops * p.pixel_scale;
}

// The encoder over a 30 s window, then the text decoder token by token.
double Batch::Speech(InferenceTimes& it, MemoryBreakdown& mem) const {
  // The encoder over the 30 s window, then one decoder step per token: each reads the
  // decoder's weights (bandwidth-bound at small batches) and the cross-attention cache.
  const double tokens = w.inference.output_tokens > 0 ? w.inference.output_tokens : g.steps;
  // A batch of windows decodes until its longest transcript ends: the expected maximum of
  // `batch` draws is about mean x (1 + cv sqrt(2 ln batch)) (the Gaussian extreme-value bound).
  const double steps_in_batch =
      batch > 1 ? tokens * (1 + kTranscriptLengthCv * std::sqrt(2 * std::log(batch))) : tokens;
  const double eff_enc = GemmEfficiency(eff_row, cal, gpu, peak, cal.conv_gemm_dim,
                                        batch * kSpeechEncoderFrames, w.precision, e);
  const double encoder_s =
      std::max(batch * arch.forward_flops_per_sample / (peak_flops * eff_enc), host_s);
  const double context = kSpeechEncoderFrames + tokens / 2;  // cross + average self cache
  const double kv_bytes = 2.0 * arch.layers * arch.hidden * context * e * batch;
  const double eff_dec =
      GemmEfficiency(eff_row, cal, gpu, peak, arch.hidden, batch, w.precision, e);
  const double step_gpu =
      std::max(2 * g.decoder_params * batch / (peak_flops * eff_dec), g.decoder_params * e / bw) +
      kv_bytes / bw;
  const double step_host = arch.layers * cal.LayerOverheadUs(inf.engine) * 1e-6;
  const double step_s = std::max(step_gpu, step_host) + cal.StepOverheadUs(inf.engine) * 1e-6;
  it.prefill_s = encoder_s;
  it.decode_s = step_s * std::max(0.0, steps_in_batch - 1);
  it.request_s = encoder_s + step_s * steps_in_batch;
  it.ttft_ms = (encoder_s + step_s) * 1e3;
  it.tpot_ms = step_s * 1e3;
  it.decode_memory_bound = step_gpu < step_host || g.decoder_params * e / bw >= step_gpu;
  it.tokens_per_s_per_gpu = batch * tokens / it.request_s;
  mem.kv_cache =
      2.0 * arch.layers * arch.hidden * (kSpeechEncoderFrames + tokens) * e * batch / kGiB;
  mem.activations = batch * kSpeechEncoderFrames * 4.0 * arch.hidden * e / kGiB;
  return arch.forward_flops_per_sample + 2 * g.decoder_params * tokens;
}

}  // namespace

double DitNativeTokens(const ModelArch& arch) {
  const GenerationShape& g = arch.gen;
  return DitTokens(g.native_width, g.native_height, g.frames);
}

double DitNativeForwardFlops(const ModelArch& arch) {
  const double tokens = DitNativeTokens(arch);
  return 2 * arch.params * tokens + 4.0 * arch.layers * tokens * tokens * arch.hidden;
}

double SampleActivationElements(const ModelArch& arch) {
  return arch.IsDit() ? kDitSavedPerTokenHidden * arch.hidden * DitNativeTokens(arch) * arch.layers
                      : arch.activation_elements_per_sample;
}

double NchwTransposeTraffic(const Workload& w, const ModelArch& arch, const Gpu& gpu,
                            bool inference) {
  if (w.memory_format != MemoryFormat::kNchw || arch.ConvolutionElements() <= 0)
    return 0;
  const Precision p = ComputesAs(gpu, w.precision, inference);
  const bool tensor_cores = p == Precision::kFp16 || p == Precision::kBf16 ||
                            p == Precision::kTf32 || p == Precision::kFp8;
  constexpr double kTransposePasses = 4;  // input and output, each read and written once
  return tensor_cores ? kTransposePasses : 0;
}

Result<Estimate> EstimateSampleInference(const Workload& w, const ModelArch& arch,
                                         const Hardware& hw, const Layout& l,
                                         const Calibration& cal, double peak) {
  const GenerationShape& g = arch.gen;
  if (g.modality == Modality::kNone) {
    return Status::Unsupported("inference of " + arch.name +
                               " is not modelled: its zoo row gives no modality (image, "
                               "diffusion or speech)");
  }
  if (l.tp > 1 || l.pp > 1) {
    return Status::Unsupported("tensor and pipeline parallelism of " + arch.name +
                               " are not modelled: one GPU per copy");
  }
  const Gpu& gpu = *hw.gpu;
  const InferenceSpec& inf = w.inference;
  const ArchEfficiency eff_row = cal.For(gpu);
  const double e = w.precision == Precision::kFp8 ? 1 : ElementBytes(w.precision);
  const double batch = inf.batch ? *inf.batch : std::max(1, l.micro_batch);
  const double peak_flops = peak * 1e12;
  const double bw = gpu.memory_bandwidth_gbs * 1e9 * eff_row.memory_bw_fraction;
  const bool eager = inf.engine == Engine::kTorch || inf.engine == Engine::kHf;
  // Host launches per forward pass: they overlap the GPU, so a pass takes the longer of the two.
  const bool autocast =
      eager && (w.precision == Precision::kFp16 || w.precision == Precision::kBf16);
  const double host_s = arch.layers * cal.other_layer_overhead_us * 1e-6 *
                        (eager ? 1 : kCompiledHostShare) * (autocast ? kAutocastHostFactor : 1);
  const double weight_bytes = (arch.params + g.aux_params) * e;
  const double main_bytes = arch.params * e;

  Estimate est;
  InferenceTimes it;
  it.batch = static_cast<int>(batch);
  MemoryBreakdown& mem = est.memory.breakdown;
  mem.weights = weight_bytes / kGiB;
  const Batch b{w,    inf,        arch, g,     hw, cal,    eff_row,   gpu,
                peak, peak_flops, e,    batch, bw, host_s, main_bytes};
  const double flops_per_sample = g.modality == Modality::kImage       ? b.Image(it, mem)
                                  : g.modality == Modality::kDiffusion ? b.Diffusion(it, mem)
                                                                       : b.Speech(it, mem);
  FinishMemory(est, hw, cal, mem.weights);
  // Inference holds no optimizer state; the point estimate is checked like a serving copy's.
  est.memory.checked_gib = est.memory.per_gpu_gib;
  est.memory.fits = est.memory.per_gpu_gib <= est.memory.capacity_gib;

  it.prefill_tokens_per_s_per_gpu = 0;
  it.requests_per_s = batch / it.request_s * l.dp;
  est.inference = it;
  est.time.step_s = it.request_s;
  est.time.breakdown.compute = it.request_s;
  est.throughput.samples_per_s_per_gpu = batch / it.request_s;
  est.throughput.tokens_per_s_per_gpu = it.tokens_per_s_per_gpu;
  est.throughput.tflops_per_gpu = flops_per_sample * batch / it.request_s / 1e12;
  est.throughput.hardware_tflops_per_gpu = est.throughput.tflops_per_gpu;
  est.throughput.mfu = est.throughput.tflops_per_gpu / peak;
  return est;
}

}  // namespace gpuplan::perf::internal
