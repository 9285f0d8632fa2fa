// Reads a diffusers pipeline folder (model_index.json beside transformer/, text_encoder*/ and
// vae/, each with its config.json) into a kind=other diffusion ModelArch, as LoadHfModelConfig
// reads an LLM's config.json. Nothing is downloaded: the user points at the folder.
//
// Denoisers read: FluxTransformer2DModel (FLUX.1), SD3Transformer2DModel (SD3, SD3.5),
// QwenImageTransformer2DModel (Qwen-Image) and WanTransformer3DModel (Wan 2.1/2.2). A UNet
// pipeline (SD 1.5, SDXL) is refused with the zoo row to use: a UNet's FLOPs depend on its
// block layout at every resolution. Text encoders: CLIP, T5/UMT5, and LLM-shaped configs. VAEs:
// AutoencoderKL and the Wan/Qwen-Image causal 3D ones.
//
//   Result<io::HfModelConfig> c = io::LoadHfModelConfig("models/FLUX.1-dev");  // finds the index
#ifndef GPUPLAN_SRC_IO_DIFFUSERS_CONFIG_H_
#define GPUPLAN_SRC_IO_DIFFUSERS_CONFIG_H_

#include <functional>
#include <string>
#include <string_view>

#include "gpuplan/status.h"
#include "io/hf_config.h"

namespace gpuplan::io {

// Reads a component's file by its path relative to the pipeline folder ("vae/config.json").
using ComponentReader = std::function<Result<std::string>(const std::string& relative_path)>;

// Parses model_index.json text (`index_file` names it in errors) and the components it lists,
// read through `read`. The architecture is validated; `notes` say what was assumed (sampling
// steps, guidance and output size from the pipeline's defaults; the tokens each text encoder
// sees).
Result<HfModelConfig> ParseDiffusersPipeline(std::string_view index_text,
                                             const std::string& index_file,
                                             const ComponentReader& read);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_DIFFUSERS_CONFIG_H_
