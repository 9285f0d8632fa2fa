#include "io/diffusers_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "io/json_check.h"

namespace gpuplan::io {
namespace {

using json = nlohmann::json;

// One component's config.json: required and optional numbers, with errors that name the file
// and the field. The first error sticks; later reads return 0.
class Fields {
 public:
  Fields(const json& j, std::string file) : j_(j), file_(std::move(file)) {}

  double Required(const char* field, double max = 1e7) {
    const std::optional<double> v = Optional(field, max);
    if (!v && status_.ok()) {
      status_ = Status::InvalidArgument(fmt::format(
          "{}: field \"{}\" is missing (needed for a {} config)", file_, field, ClassName()));
    }
    return v.value_or(0);
  }
  // Absent or null: nullopt. Present: a number in [0, max] or an error.
  std::optional<double> Optional(const char* field, double max = 1e7) {
    if (!status_.ok() || !j_.contains(field) || j_[field].is_null())
      return std::nullopt;
    const json& v = j_[field];
    if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > max) {
      status_ = Status::InvalidArgument(fmt::format(
          "{}: field \"{}\": expected a number from 0 to {}, got {}", file_, field, max, v.dump()));
      return std::nullopt;
    }
    return v.get<double>();
  }
  // A list of numbers ("block_out_channels": [128, 256, 512, 512]); empty when absent.
  std::vector<double> List(const char* field, bool required) {
    std::vector<double> out;
    if (!status_.ok())
      return out;
    if (!j_.contains(field) || j_[field].is_null()) {
      if (required) {
        status_ = Status::InvalidArgument(fmt::format(
            "{}: field \"{}\" is missing (needed for a {} config)", file_, field, ClassName()));
      }
      return out;
    }
    const json& v = j_[field];
    const bool ok = v.is_array() && !v.empty() && v.size() <= 64 &&
                    std::all_of(v.begin(), v.end(), [](const json& x) {
                      return x.is_number() && x.get<double>() >= 0 && x.get<double>() <= 1e6;
                    });
    if (!ok) {
      status_ = Status::InvalidArgument(
          fmt::format("{}: field \"{}\": expected a list of 1 to 64 numbers from 0 to 1e6, got {}",
                      file_, field, v.dump()));
      return out;
    }
    for (const json& x : v)
      out.push_back(x.get<double>());
    return out;
  }
  std::string String(const char* field) const {
    return j_.contains(field) && j_[field].is_string() ? j_[field].get<std::string>() : "";
  }
  bool Flag(const char* field, bool fallback) const {
    return j_.contains(field) && j_[field].is_boolean() ? j_[field].get<bool>() : fallback;
  }
  std::string ClassName() const {
    const std::string c = String("_class_name");
    return c.empty() ? String("model_type") : c;
  }
  const Status& status() const { return status_; }
  const std::string& file() const { return file_; }

 private:
  const json& j_;
  std::string file_;
  Status status_ = Status::Ok();
};

Result<json> ParseObject(std::string_view text, const std::string& file, const char* expected) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // The strict pass names the line and column where the parser stopped, as for config.json.
    if (Status at = CheckStrictJson(text, file); !at.ok())
      return Status::InvalidArgument(fmt::format("{} (expected {})", at.message(), expected));
  }
  if (j.is_discarded() || !j.is_object())
    return Status::InvalidArgument(
        fmt::format("{}: not a JSON object (expected {})", file, expected));
  return j;
}

// What the planner needs of the denoiser, and the pipeline defaults it runs at.
struct Denoiser {
  int layers = 0;
  int hidden = 0;
  double params = 0;
  int steps = 0;
  bool cfg = false;
  int width = 1024, height = 1024, frames = 0;
  std::string defaults;  // where steps, guidance and size come from, for the notes
};

// An MMDiT joint block (SD3, FLUX double-stream, Qwen-Image): per stream (image, text) an
// AdaLN-Zero modulation (6 h^2), q/k/v/out (4 h^2) and a 4h MLP (8 h^2) (Esser et al. 2024).
constexpr double kJointBlockSquares = 36;
// A FLUX single-stream block: modulation 3 h^2, q/k/v 3 h^2, the MLP's input 4 h^2 and the
// fused output projection (h + 4h) x h = 5 h^2 (diffusers FluxSingleTransformerBlock).
constexpr double kSingleBlockSquares = 15;

Result<Denoiser> ReadTransformer(const json& j, const std::string& file) {
  Fields f(j, file);
  const std::string cls = f.String("_class_name");
  Denoiser d;
  const double heads = f.Required("num_attention_heads", 4096);
  const double head_dim = f.Required("attention_head_dim", 4096);
  const double h = heads * head_dim;
  d.hidden = static_cast<int>(h);
  const double in = f.Optional("in_channels").value_or(16);
  const double text_dim = f.Optional("joint_attention_dim").value_or(4096);
  if (cls == "FluxTransformer2DModel") {
    const double dual = f.Required("num_layers", 1000);
    const double single = f.Optional("num_single_layers", 1000).value_or(0);
    const double pooled = f.Optional("pooled_projection_dim").value_or(768);
    d.layers = static_cast<int>(dual + single);
    // Blocks, then the embedders (image, text, pooled text, timestep and guidance MLPs) and
    // the output norm and projection.
    d.params = (dual * kJointBlockSquares + single * kSingleBlockSquares + 7) * h * h +
               (2 * in + text_dim + pooled + 512) * h;
    const bool guidance = f.Flag("guidance_embeds", true);
    d.steps = guidance ? 28 : 4;
    d.defaults = guidance ? "FluxPipeline's 28 steps at 1024x1024; guidance-distilled "
                            "(guidance_embeds): one pass per step"
                          : "4 steps at 1024x1024, as FLUX.1-schnell (no guidance_embeds: "
                            "timestep-distilled); one pass per step";
  } else if (cls == "SD3Transformer2DModel" || cls == "QwenImageTransformer2DModel") {
    const double layers = f.Required("num_layers", 1000);
    d.layers = static_cast<int>(layers);
    // SD3.5's dual-attention blocks add a second self-attention (4 h^2).
    double extra = 0;
    if (j.contains("dual_attention_layers") && j["dual_attention_layers"].is_array())
      extra = 4.0 * static_cast<double>(j["dual_attention_layers"].size());
    const double pooled = f.Optional("pooled_projection_dim").value_or(0);
    d.params = (layers * kJointBlockSquares + extra + 4) * h * h +
               (2 * in * 4 + text_dim + pooled + 512) * h;
    const bool sd3 = cls == "SD3Transformer2DModel";
    d.steps = sd3 ? 28 : 50;
    d.cfg = sd3;
    d.defaults = sd3 ? "StableDiffusion3Pipeline's 28 steps at 1024x1024 with guidance (two "
                       "passes per step)"
                     : "QwenImagePipeline's 50 steps at 1024x1024; true guidance runs only with "
                       "a negative prompt (set inference.cfg: true for it)";
  } else if (cls == "WanTransformer3DModel") {
    const double layers = f.Required("num_layers", 1000);
    const double ffn = f.Required("ffn_dim");
    const double image_kv = f.Optional("added_kv_proj_dim").value_or(0);
    const double freq = f.Optional("freq_dim").value_or(256);
    d.layers = static_cast<int>(layers);
    // Self- and cross-attention (8 h^2), the MLP, an image-to-video model's added key/value
    // projections; the text and timestep embedders and the 1x2x2 patch in and out.
    d.params = layers * (8 * h * h + 2 * h * ffn + 2 * h * image_kv) +
               (f.Optional("text_dim").value_or(4096) + freq + 8 * in) * h + 8 * h * h;
    d.steps = 50;
    d.cfg = true;
    d.width = 832;
    d.height = 480;
    d.frames = 81;
    d.defaults = "WanPipeline's 50 steps with guidance, 832x480, 81 frames";
  } else {
    return Status::Unsupported(fmt::format(
        "{}: transformer class \"{}\" is not read (known: FluxTransformer2DModel, "
        "SD3Transformer2DModel, QwenImageTransformer2DModel, WanTransformer3DModel); give the "
        "model by --params/--layers/--hidden or use a zoo row (gpuplan catalog models)",
        file, cls.empty() ? "(none)" : cls));
  }
  if (!f.status().ok())
    return f.status();
  if (d.layers < 1 || d.hidden < 1)
    return Status::InvalidArgument(file + ": num_layers and the attention heads must be >= 1");
  return d;
}

// A text encoder's parameters and the tokens it reads per prompt.
struct TextEncoder {
  double params = 0;
  double tokens = 0;
  std::string what;
};

Result<TextEncoder> ReadTextEncoder(std::string_view text, const std::string& file) {
  Result<json> parsed = ParseObject(text, file, "a text encoder's config.json");
  if (!parsed.ok())
    return parsed.status();
  const json& j = *parsed;
  Fields f(j, file);
  const std::string type = f.String("model_type");
  TextEncoder t;
  if (type == "t5" || type == "umt5") {
    // Encoder only: attention (4 x d_model x inner) and the gated-GELU MLP (3 x d_model x d_ff).
    const double d = f.Required("d_model"), ff = f.Required("d_ff");
    const double inner = f.Required("d_kv") * f.Required("num_heads", 4096);
    t.params = f.Required("num_layers", 1000) * (4 * d * inner + 3 * d * ff) +
               f.Required("vocab_size") * d;
    t.tokens = 512;
    t.what = type + " encoder, 512 tokens (the pipelines' max_sequence_length)";
  } else if (type == "clip_text_model" || type == "clip") {
    const json& c =
        j.contains("text_config") && j["text_config"].is_object() ? j["text_config"] : j;
    Fields g(c, file);
    const double h = g.Required("hidden_size"), ff = g.Required("intermediate_size");
    t.tokens = g.Optional("max_position_embeddings").value_or(77);
    t.params = g.Required("num_hidden_layers", 1000) * (4 * h * h + 2 * h * ff) +
               (g.Required("vocab_size") + t.tokens) * h;
    t.what = fmt::format("CLIP text encoder, {} tokens", t.tokens);
    if (!g.status().ok())
      return g.status();
  } else {
    // An LLM used as the text encoder (Qwen2.5-VL for Qwen-Image): its own config reader.
    Result<HfModelConfig> llm = ParseHfModelConfig(text, file);
    if (!llm.ok()) {
      return Status::InvalidArgument(fmt::format(
          "{}: text encoder of model_type \"{}\" not read (known: clip_text_model, t5, umt5, or "
          "an LLM config.json): {}",
          file, type.empty() ? "(none)" : type, llm.status().message()));
    }
    t.params = llm->arch.Params();
    t.tokens = 512;
    t.what = fmt::format("{} LLM encoder, 512 tokens (assumed prompt length)", type);
  }
  if (!f.status().ok())
    return f.status();
  return t;
}

// The VAE: its parameters, and its decoder's FLOPs and peak memory for one output at a size.
struct Vae {
  std::vector<double> channels;  // per level, highest resolution first
  double res_blocks = 2;         // per encoder level; the decoder has one more
  double taps = 9;               // 3x3 convolutions; 27 for the causal 3x3x3 video VAEs
  bool video = false;
  double params = 0;

  // Decoder levels from the latent up: channels[L-1-i] at 1/4^(L-1-i) of the output pixels, the
  // latent frames at the first level and all frames above (video VAEs upsample time early).
  double DecodeFlops(double width, double height, int frames) const {
    const size_t levels = channels.size();
    const double pixels = width * height;
    const double out_frames = video ? std::max(1, frames) : 1;
    const double latent_frames = video ? std::floor((out_frames - 1) / 4) + 1 : 1;
    double flops = 0;
    for (size_t i = 0; i < levels; ++i) {
      const double c = channels[levels - 1 - i];
      const double p = pixels / std::pow(4.0, static_cast<double>(levels - 1 - i));
      const double f = i == 0 ? latent_frames : out_frames;
      // Two convolutions per residual block, plus the upsampler's, plus the middle block's
      // two residual blocks at the first level.
      const double convs = 2 * (res_blocks + 1) + (i > 0 ? 1 : 4);
      flops += convs * 2 * taps * c * c * p * f;
    }
    return flops;
  }
  // The largest level's activation in fp32 (group norm upcasts), six alive at once
  // (assumption: a residual block's input, two norms' outputs, a convolution's output and its
  // sum); a video VAE decodes one latent frame (4 output frames) at a time.
  double PeakBytes(double width, double height) const {
    return 6 * channels.front() * width * height * (video ? 4 : 1) * 4;
  }
};

Result<Vae> ReadVae(std::string_view text, const std::string& file) {
  Result<json> parsed = ParseObject(text, file, "a VAE's config.json");
  if (!parsed.ok())
    return parsed.status();
  Fields f(*parsed, file);
  const std::string cls = f.String("_class_name");
  Vae v;
  if (cls == "AutoencoderKL") {
    v.channels = f.List("block_out_channels", true);
    v.res_blocks = f.Optional("layers_per_block", 16).value_or(2);
  } else if (cls == "AutoencoderKLWan" || cls == "AutoencoderKLQwenImage") {
    const double base = f.Required("base_dim", 4096);
    for (double m : f.List("dim_mult", true))
      v.channels.push_back(base * m);
    v.res_blocks = f.Optional("num_res_blocks", 16).value_or(2);
    v.taps = 27;
    v.video = cls == "AutoencoderKLWan";
  } else {
    return Status::Unsupported(
        fmt::format("{}: VAE class \"{}\" is not read (known: AutoencoderKL, AutoencoderKLWan, "
                    "AutoencoderKLQwenImage)",
                    file, cls.empty() ? "(none)" : cls));
  }
  if (!f.status().ok())
    return f.status();
  // Encoder and decoder residual blocks (two convolutions each) and the middle blocks.
  for (double c : v.channels)
    v.params += (2 * v.res_blocks + 1) * 2 * v.taps * c * c;
  v.params += 2 * 2 * 2 * v.taps * v.channels.back() * v.channels.back();
  return v;
}

// model_index.json: {"_class_name": "FluxPipeline", "transformer": ["diffusers", "Flux..."], ...}
std::vector<std::string> ComponentsNamed(const json& index, std::string_view prefix) {
  std::vector<std::string> out;
  for (auto it = index.begin(); it != index.end(); ++it) {
    const bool listed = it.value().is_array() && it.value().size() == 2 &&
                        it.value()[1].is_string() && !it.value()[1].get<std::string>().empty();
    if (listed && it.key().starts_with(prefix))
      out.push_back(it.key());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Result<HfModelConfig> ParseDiffusersPipeline(std::string_view index_text,
                                             const std::string& index_file,
                                             const ComponentReader& read) {
  Result<json> index = ParseObject(index_text, index_file, "a diffusers model_index.json");
  if (!index.ok())
    return index.status();
  const std::string pipeline = index->contains("_class_name") && (*index)["_class_name"].is_string()
                                   ? (*index)["_class_name"].get<std::string>()
                                   : "(no _class_name)";
  if (!ComponentsNamed(*index, "unet").empty()) {
    return Status::Unsupported(fmt::format(
        "{}: {} runs a UNet, whose FLOPs depend on its block layout at every resolution and are "
        "not read from its config; use the zoo's row (--model sdxl for SDXL)",
        index_file, pipeline));
  }
  if (ComponentsNamed(*index, "transformer").empty()) {
    return Status::InvalidArgument(fmt::format(
        "{}: no \"transformer\" component (expected a diffusers pipeline with a diffusion "
        "transformer)",
        index_file));
  }
  auto component = [&](const std::string& name) -> Result<std::string> {
    Result<std::string> text = read(name + "/config.json");
    if (!text.ok()) {
      return Status::NotFound(
          fmt::format("{}: component \"{}\": {}", index_file, name, text.status().message()));
    }
    return text;
  };
  Result<std::string> transformer_text = component("transformer");
  if (!transformer_text.ok())
    return transformer_text.status();
  const std::string transformer_file = "transformer/config.json";
  Result<json> transformer =
      ParseObject(*transformer_text, transformer_file, "a diffusers transformer config.json");
  if (!transformer.ok())
    return transformer.status();
  Result<Denoiser> d = ReadTransformer(*transformer, transformer_file);
  if (!d.ok())
    return d.status();

  HfModelConfig out;
  out.model_type = pipeline;
  ModelArch& m = out.arch;
  m.kind = ModelKind::kOther;
  m.name = "config";
  m.source = index_file;
  m.layers = d->layers;
  m.hidden = d->hidden;
  m.params = d->params;
  m.default_seq_len = 1;
  GenerationShape& g = m.gen;
  g.modality = Modality::kDiffusion;
  g.steps = d->steps;
  g.cfg = d->cfg;
  g.native_width = d->width;
  g.native_height = d->height;
  g.frames = d->frames;
  out.notes.push_back(fmt::format("{}: {:.2f}B parameters in {} blocks of width {}; defaults: {}",
                                  transformer_file, m.params / 1e9, m.layers, m.hidden,
                                  d->defaults));
  for (const std::string& name : ComponentsNamed(*index, "text_encoder")) {
    Result<std::string> text = component(name);
    if (!text.ok())
      return text.status();
    Result<TextEncoder> t = ReadTextEncoder(*text, name + "/config.json");
    if (!t.ok())
      return t.status();
    g.aux_params += t->params;
    g.once_flops += 2 * t->params * t->tokens;
    out.notes.push_back(fmt::format("{}: {:.2f}B parameters, {}", name, t->params / 1e9, t->what));
  }
  if (!ComponentsNamed(*index, "vae").empty()) {
    Result<std::string> text = component("vae");
    if (!text.ok())
      return text.status();
    Result<Vae> v = ReadVae(*text, "vae/config.json");
    if (!v.ok())
      return v.status();
    g.aux_params += v->params;
    const double decode = v->DecodeFlops(g.native_width, g.native_height, g.frames);
    g.once_flops += decode;
    g.peak_bytes = v->PeakBytes(g.native_width, g.native_height);
    out.notes.push_back(fmt::format(
        "vae: {:.0f}M parameters; decoding one output takes {:.0f} GFLOPs and about {:.1f} GiB "
        "at its peak (computed from its channels; the peak's six live fp32 tensors are an "
        "assumption)",
        v->params / 1e6, decode / 1e9, g.peak_bytes / (1024.0 * 1024 * 1024)));
  } else {
    out.notes.push_back(index_file + ": no vae component: the decode is not counted");
  }
  if (Status s = ValidateModelArch(m); !s.ok())
    return Status::InvalidArgument(index_file + ": " + s.message());
  return out;
}

}  // namespace gpuplan::io
