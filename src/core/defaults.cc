#include "gpuplan/defaults.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "gpuplan/strings.h"
#include "perf/internal.h"

namespace gpuplan {
namespace {

using strings::Num;

// Tokens per optimizer step of a pre-training of `params` parameters, as published runs of that
// size chose (calibration.csv pretrain_batch_mtokens_*, with their sources), and the runs cited.
struct PublishedBatch {
  double tokens = 0;
  const char* runs = "";
};

PublishedBatch PublishedPretrainBatch(double params, const Calibration& cal) {
  if (params < 1e9)
    return {cal.pretrain_batch_mtokens_lt1b * 1e6, "GPT-3 125M-760M (Brown et al. 2020)"};
  if (params < 3e9)
    return {cal.pretrain_batch_mtokens_lt3b * 1e6, "GPT-3 1.3B and 2.7B (Brown et al. 2020)"};
  if (params < 20e9)
    return {cal.pretrain_batch_mtokens_lt20b * 1e6, "GPT-3 6.7B and 13B (Brown et al. 2020)"};
  return {cal.pretrain_batch_mtokens_large * 1e6,
          "Llama 1 and 2 from 33B (Touvron et al. 2023), GPT-3 175B 3.2M"};
}

// The power of two nearest to `x` (>= 1) in ratio.
int NearestPowerOfTwo(double x) {
  if (!(x > 1))
    return 1;
  const double exponent = std::round(std::log2(x));
  return static_cast<int>(std::min(std::exp2(exponent), static_cast<double>(1 << 24)));
}

// "2M", "0.5M", "65.5K" tokens.
std::string Tokens(double tokens) {
  return tokens >= 1e6 ? Num(tokens / 1e6) + "M" : Num(tokens / 1e3) + "K";
}

// The derived global batch of a non-transformer's pre-training (samples, not tokens), and why.
Assumption PretrainSampleBatch(const Workload& w, const Calibration& cal, int* batch) {
  double samples = cal.pretrain_batch_samples_other;
  std::string why = Num(samples) +
                    " samples per step, the large-minibatch ImageNet recipe (Goyal et al. 2017; "
                    "calibration.csv pretrain_batch_samples_other)";
  const std::optional<double> total = w.TotalTokens();  // samples: one "token" per sample
  if (total && *total / cal.pretrain_min_steps < samples) {
    samples = *total / cal.pretrain_min_steps;
    why = "the job's " + Num(*total) + " samples over " + Num(cal.pretrain_min_steps) +
          " optimizer steps (pretrain_min_steps), fewer than the " +
          Num(cal.pretrain_batch_samples_other) + " of the large-minibatch recipe";
  }
  *batch = NearestPowerOfTwo(samples);
  return {"global_batch", std::to_string(*batch),
          "pre-training at " + why + ": " + std::to_string(*batch) + " samples (a power of two)"};
}

// The derived global batch of a pre-training, and why.
Assumption PretrainBatch(const Workload& w, const ModelArch& arch, const Calibration& cal,
                         int* batch) {
  const PublishedBatch published = PublishedPretrainBatch(arch.Params(), cal);
  double tokens_per_step = published.tokens;
  std::string why = Tokens(published.tokens) +
                    " tokens per step, as published pre-training runs of " +
                    Num(arch.Params() / 1e9) + "B parameters choose (" + published.runs +
                    "; calibration.csv pretrain_batch_mtokens_*)";
  const std::optional<double> total = w.TotalTokens();
  if (total && *total / cal.pretrain_min_steps < tokens_per_step) {
    tokens_per_step = *total / cal.pretrain_min_steps;
    why = Tokens(tokens_per_step) + " tokens per step: the job's " + Tokens(*total) +
          " tokens over " + Num(cal.pretrain_min_steps) +
          " optimizer steps (pretrain_min_steps), less than the " + Tokens(published.tokens) +
          " published runs of its size choose (" + published.runs + ")";
  }
  *batch = NearestPowerOfTwo(tokens_per_step / w.seq_len);
  return {"global_batch", std::to_string(*batch),
          "pre-training at " + why + ": " + std::to_string(*batch) + " sequences of " +
              std::to_string(w.seq_len) + " tokens (a power of two)"};
}

// A kind=other model's sample (gpuplan/model.h GenerationShape): no prompt; tokens only for
// speech (decoded per 30 s window); the diffusion settings the zoo row gives, listed.
void AssumeSampleDefaults(const Workload& w, const ModelArch& arch, Workload& out,
                          std::vector<Assumption>& list) {
  const GenerationShape& g = arch.gen;
  out.inference.prompt_tokens = 1;
  if (w.unset.output_tokens) {
    out.inference.output_tokens = g.modality == Modality::kSpeech ? g.steps : 0;
    if (g.modality == Modality::kSpeech) {
      list.push_back({"inference.output_tokens", std::to_string(g.steps),
                      "tokens decoded per 30 s audio window (models.csv steps: about 150 spoken "
                      "words a minute)"});
    }
  }
  if (g.modality != Modality::kDiffusion)
    return;
  if (!w.inference.width_px || !w.inference.height_px) {
    out.inference.width_px = g.native_width;
    out.inference.height_px = g.native_height;
    list.push_back({"inference.resolution",
                    std::to_string(g.native_width) + "x" + std::to_string(g.native_height),
                    arch.name + "'s native size (models.csv native_size)"});
  }
  if (!w.inference.frames && g.frames > 0) {
    out.inference.frames = g.frames;
    list.push_back({"inference.frames", std::to_string(g.frames),
                    arch.name + "'s default clip length (models.csv frames)"});
  }
  if (!w.inference.steps) {
    out.inference.steps = g.steps;
    list.push_back({"inference.steps", std::to_string(g.steps),
                    arch.name + "'s default sampling steps (models.csv steps)"});
  }
  if (!w.inference.cfg) {
    out.inference.cfg = g.cfg;
    list.push_back({"inference.cfg", g.cfg ? "true" : "false",
                    g.cfg ? "classifier-free guidance: two denoiser passes per step"
                          : "guidance-distilled: one denoiser pass per step"});
  }
}

// The precision (and, for gpt-oss, the stored weights) an inference is served in when the
// workload gives none: as the model is released; a training's bf16 mixed precision. Sets them on
// `out` and returns why.
std::string DerivePrecision(const Workload& w, const ModelArch& arch, Workload& out) {
  const bool inference = w.task == Task::kInference;
  std::string why;
  // gpt-oss: the experts as released (deriving again finds them already set).
  const bool mxfp4_experts = w.weight_bits == 4 && w.weight_format == WeightFormat::kMxfp4 &&
                             w.quantized_layers == QuantizedLayers::kExperts;
  if (inference && arch.release == ModelArch::Release::kMxfp4Experts &&
      (w.weight_bits == 0 || mxfp4_experts)) {
    out.weight_bits = 4;
    out.weight_format = WeightFormat::kMxfp4;
    out.quantized_layers = QuantizedLayers::kExperts;
    why = "16-bit compute over the routed experts as released, in MXFP4 (" +
          Num(perf::internal::QuantBits(4, WeightFormat::kMxfp4, false)) +
          " bits per weight; models.csv release_weights, from the model's config.json "
          "quantization_config); attention, router and embeddings in 16 bits";
  } else if (inference && arch.release == ModelArch::Release::kFp8 && w.weight_bits == 0) {
    out.precision = Precision::kFp8;
    why =
        "the weights are released in FP8 (models.csv release_weights, from the model's "
        "config.json quantization_config): served as released, 1 byte per layer weight "
        "(embeddings, head and, outside TensorRT-LLM, the KV cache in 16 bits)";
  } else if (inference && w.precision == Precision::kFp8) {
    why = "the weights are released in FP8 (the config.json's quantization_config)";
  } else if (inference && w.weight_bits > 0) {
    why = "16-bit compute over the " + std::to_string(w.weight_bits) + "-bit weights given";
  } else if (inference) {
    why = "16-bit weights, as the model is released";
  } else {
    why =
        "bf16 mixed precision, as current models are trained (GPUs without bf16 units need "
        "fp16)";
  }
  return why;
}

}  // namespace

Workload DeriveDefaults(const Workload& w, const ModelArch& arch, const Calibration& cal,
                        std::vector<Assumption>* assumed) {
  Workload out = w;
  if (w.task == Task::kRendering || w.task == Task::kHpc)
    return out;
  std::vector<Assumption> list;
  const bool inference = w.task == Task::kInference;
  if (w.unset.precision) {
    const std::string why = DerivePrecision(w, arch, out);
    list.push_back({"precision", std::string(PrecisionName(out.precision)), why});
  }
  if (w.IsTraining()) {
    if (w.unset.seq_len && !arch.IsTransformer() && arch.default_seq_len > 0) {
      // A CNN's, a UNet's or a DiT's FLOPs are per sample (an image, a clip): a "sequence" is
      // one sample, never gpuplan's token default.
      out.seq_len = arch.default_seq_len;
      list.push_back({"seq_len", std::to_string(out.seq_len),
                      arch.name + " counts its work per sample (models.csv " +
                          "forward_gflops_per_sample): one sample per sequence"});
    } else if (w.unset.seq_len) {
      list.push_back(
          {"seq_len", std::to_string(w.seq_len),
           "gpuplan's default sample length" +
               (arch.default_seq_len > 0 && arch.default_seq_len != w.seq_len
                    ? " (the model was trained at " + std::to_string(arch.default_seq_len) + ")"
                    : std::string())});
    }
    if (w.unset.global_batch) {
      if (w.task == Task::kPretrain && !arch.IsTransformer() && arch.default_seq_len > 0) {
        list.push_back(PretrainSampleBatch(out, cal, &out.global_batch));
      } else if (w.task == Task::kPretrain && arch.Params() > 0) {
        list.push_back(PretrainBatch(w, arch, cal, &out.global_batch));
      } else {
        list.push_back(
            {"global_batch", std::to_string(w.global_batch),
             "gpuplan's default fine-tuning batch (" + std::to_string(w.global_batch) +
                 (arch.IsTransformer()
                      ? " sequences, " + Tokens(w.global_batch * static_cast<double>(out.seq_len)) +
                            " tokens"
                      : std::string(" samples")) +
                 " per step); it caps data parallelism at that many replicas"});
      }
    }
    if (w.unset.memory_confidence) {
      list.push_back({"memory_confidence", Num(w.memory_confidence),
                      "a layout fits only when its memory at p" +
                          std::to_string(std::lround(w.memory_confidence * 100)) +
                          " of the model's memory error is within the GPU's: an OOM wastes the "
                          "rental"});
    }
  }
  if (inference && arch.kind == ModelKind::kOther) {
    AssumeSampleDefaults(w, arch, out, list);
  } else if (inference) {
    if (w.unset.prompt_tokens) {
      list.push_back({"inference.prompt_tokens", std::to_string(w.inference.prompt_tokens),
                      "gpuplan's default prompt length"});
    }
    if (w.unset.output_tokens) {
      if (arch.reasoning) {
        int tokens = static_cast<int>(cal.reasoning_output_tokens);
        if (w.inference.output_tokens_p90)
          tokens = std::min(tokens, *w.inference.output_tokens_p90);
        out.inference.output_tokens = tokens;
        list.push_back({"inference.output_tokens", std::to_string(tokens),
                        arch.name +
                            " is a reasoning model (models.csv reasoning): it writes thousands "
                            "of tokens of thinking before its answer (calibration.csv "
                            "reasoning_output_tokens)"});
      } else {
        list.push_back({"inference.output_tokens", std::to_string(w.inference.output_tokens),
                        "gpuplan's default reply length for a model that does not reason"});
      }
    }
  }
  if (!w.memory_format && arch.ConvolutionElements() > 0) {
    list.push_back({"memory_format", "nhwc",
                    "channels last (model.to(memory_format=torch.channels_last)), the layout "
                    "tensor-core convolutions read; PyTorch's default NCHW makes cuDNN transpose "
                    "each convolution's input and output (memory_format: nchw)"});
  }
  if (assumed != nullptr)
    assumed->insert(assumed->end(), list.begin(), list.end());
  return out;
}

}  // namespace gpuplan
